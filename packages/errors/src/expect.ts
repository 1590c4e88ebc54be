/**
 * Requests refused before anything else runs, in the error form, in the plugin's first
 * `onRequest` hook: an `Expect` other than 100-continue (RFC 9110 §10.1.1, a 417, which Node
 * would answer bare), and a `Host` the server must refuse (RFC 9112 §3.2, a 400): missing on
 * HTTP/1.1, on more than one line, or not `uri-host [ ":" port ]`.
 */
import type { EventEmitter } from 'node:events'
import type { FastifyRequest } from 'fastify'
import { ErrorCode } from './codes.js'
import { fieldText, isOws } from '@restwell/core/internal'
import { hostLines, isValidHost } from './host.js'
import { type HttpError, httpErrors } from './http-error.js'

const CONTINUE = '100-continue'

/**
 * True when an `Expect` field value has a member other than `100-continue` (compared
 * case-insensitively, RFC 9110 §10.1.1; empty list members are ignored, §5.6.1). One pass, no
 * regex. A quoted string holding a comma splits into pieces that are not `100-continue`
 * either, so a naive split on commas never lets an unmet expectation through.
 */
export function hasUnmetExpectation(value: unknown): boolean {
  const text = fieldText(value)
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf(',', start)
    if (end === -1) end = text.length
    let from = start
    let to = end
    while (from < to && isOws(text.charCodeAt(from))) from++
    while (to > from && isOws(text.charCodeAt(to - 1))) to--
    if (
      to > from &&
      (to - from !== CONTINUE.length || text.slice(from, to).toLowerCase() !== CONTINUE)
    ) {
      return true
    }
    start = end + 1
  }
  return false
}

function badHost(message: string, detail: string, code: string): HttpError {
  return httpErrors.badRequest(message, {
    code: ErrorCode.MALFORMED_HEADER,
    details: [{ field: 'headers/host', message: detail, code }],
  })
}

/**
 * The 400 for a request's `Host`, or undefined: missing on HTTP/1.1, on more than one field
 * line (Node keeps the first in `headers`, `rawHeaders` has them all), or an invalid value.
 */
function hostRefusal(request: FastifyRequest): HttpError | undefined {
  const host = request.headers.host
  if (host === undefined) {
    if (request.raw.httpVersion !== '1.1') return undefined
    return httpErrors.badRequest('An HTTP/1.1 request must carry a Host header', {
      details: [{ field: 'headers/host', message: 'required', code: 'REQUIRED' }],
    })
  }
  if (hostLines(request.raw.rawHeaders) > 1)
    return badHost('A request must carry one Host header', 'more than one field line', 'DUPLICATE')
  if (!isValidHost(host))
    return badHost(
      'The Host header is not a valid host',
      'must be uri-host [ ":" port ] (RFC 3986)',
      ErrorCode.MALFORMED_HEADER,
    )
  return undefined
}

/**
 * The error a request is refused with before anything else runs, or undefined: 417 for an
 * expectation this server cannot meet, 400 for a missing, repeated or invalid `Host`. Matched
 * requests pay a scan of the raw header names and of the Host value.
 */
export function requestRefusal(request: FastifyRequest): HttpError | undefined {
  const headers = request.headers
  if (headers.expect !== undefined && hasUnmetExpectation(headers.expect)) {
    return httpErrors.expectationFailed('This server can meet no expectation but 100-continue', {
      code: ErrorCode.EXPECTATION_FAILED,
      details: [
        { field: 'headers/expect', message: 'only 100-continue is supported', code: 'UNSUPPORTED' },
      ],
    })
  }
  return hostRefusal(request)
}

/**
 * Hands a request with an `Expect` other than 100-continue to Fastify, so the plugin answers its
 * 417 in the error form instead of Node's bare one. Not added when the app has a listener.
 */
export function passExpectationsToFastify(server: EventEmitter): void {
  if (server.listenerCount('checkExpectation') > 0) return
  server.on('checkExpectation', function restwellCheckExpectation(req: unknown, res: unknown) {
    server.emit('request', req, res)
  })
}
