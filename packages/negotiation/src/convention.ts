/** The negotiation convention: representation, language and charset; request body types. */
import { defineConvention } from '@restwell/core'
import { advertiseAcceptQuery } from './accept-query.js'
import { validateOptions } from '@restwell/errors'
import { describeNegotiation } from './describe.js'
import {
  type NegotiationOptions,
  NegotiationOptionsSchema,
  type NegotiationRouteConfig,
  NegotiationRouteSchema,
  type ResolvedNegotiationOptions,
  resolveNegotiationOptions,
} from './options.js'
import { negotiationRoute } from './route.js'
import { PLUGIN } from './settings.js'
import { setupNegotiation } from './setup.js'

/**
 * Content negotiation (spec 4.5): `Accept` with q-values and `?format=`, 406/415/300, `Vary`,
 * `Accept-Language`, `Accept-Charset`; JSON, XML, HAL, JSON:API and Siren; form-urlencoded and
 * multipart bodies on the routes that list them (`config.negotiation`).
 */
export const negotiation = defineConvention({
  name: 'negotiation',
  plugin: PLUGIN,
  phases: ['beforeBody', 'serialize', 'send', 'notFoundSend'],
  options: (raw: NegotiationOptions) =>
    resolveNegotiationOptions(
      validateOptions(PLUGIN, NegotiationOptionsSchema, raw) as NegotiationOptions,
    ),
  routeConfig: (raw: unknown, where: string) =>
    validateOptions(where, NegotiationRouteSchema, raw) as NegotiationRouteConfig,
  setup: setupNegotiation,
  route: negotiationRoute,
  app: (settings) => ({ notFoundSend: advertiseAcceptQuery(settings.queries) }),
  contributes: (options) => ({
    queryParameters: options.formatParam === false ? [] : [options.formatParam],
    // Safelisted only for some values (Fetch): a JSON body's type, an `Accept` with a quoted
    // profile, any value over 128 bytes make a browser ask first. Accept-Charset it cannot set.
    requestHeaders: ['accept', 'accept-language', 'content-type'],
    // The types of a 406 and a 415, and a 300's preferred choice (Content-Language is safelisted).
    // A QUERY's result (`Content-Location`) and its 415's types (`Accept-Query`), RFC 10008.
    responseHeaders: sentHeaders(options, true),
  }),
  // A QUERY's 400/415 (`Accept-Query`) and result (`Content-Location`) are a QUERY route's only;
  // an OPTIONS and a 405 naming `Accept-Query` are answers of no route.
  routeResponseHeaders: ({ methods }, settings) =>
    sentHeaders(settings.options, methods.includes('QUERY')),
  describe: describeNegotiation,
  // Alone, before the route's own onRequest hooks: every hook of the route sees what was chosen.
  alone: { beforeBody: 'onRequest' },
})

/** The response headers negotiation sends, those of a QUERY with `query`. */
function sentHeaders(options: ResolvedNegotiationOptions, query: boolean): string[] {
  return [
    'Accept',
    ...(query ? ['Accept-Query', 'Content-Location'] : []),
    ...(options.formatParam === false ? [] : ['Location']),
  ]
}
