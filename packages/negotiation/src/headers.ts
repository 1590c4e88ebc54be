/** The send step of negotiation: `Vary` and `Content-Language` of the representation sent. */
import { appendVary, type SendStep } from '@restwell/core'
import type { RouteSettings } from './settings.js'

/**
 * The route's send step. Below 400: `Vary` names what the route negotiates, and the language
 * chosen is the `Content-Language` unless the handler set its own (it knows what it sent,
 * RFC 9110 §8.5). An error is not localized: its form varies by `Accept` alone.
 */
export function sendStep(settings: RouteSettings): SendStep {
  return function negotiationSend(request, reply) {
    const status = reply.statusCode
    if (status >= 400) {
      appendVary(reply, 'Accept')
      return undefined
    }
    if (settings.vary.length > 0) appendVary(reply, ...settings.vary)
    // A 304 carries no Content-Language (RFC 9110 §15.4.5): none is set to be dropped.
    if (status !== 304 && request.language !== undefined && !reply.hasHeader('content-language')) {
      reply.header('content-language', request.language)
    }
    return undefined
  }
}
