/** What the negotiation convention adds to a route's OpenAPI description. */
import type { RouteContext, RouteDescription } from '@restwell/core'
import type { NegotiationRouteConfig } from './options.js'
import type { NegotiationSettings } from './settings.js'

/**
 * No representation matches `Accept`: 406 with the types the route produces in `Accept` (RFC
 * 9110 §15.5.7); a QUERY's 415 names the types it takes in `Accept-Query` (RFC 10008 §3); with
 * languages, each success names its `Content-Language` (RFC 9110 §8.5).
 */
export function describeNegotiation(
  { methods, config }: RouteContext<NegotiationRouteConfig>,
  { options }: NegotiationSettings,
): RouteDescription {
  const languages = config?.languages ?? options.languages
  return {
    responses: [
      [
        406,
        'Not Acceptable: no representation matches `Accept` (`Accept` lists the supported types)',
        { headers: [['Accept', 'The media types this route produces']] },
      ],
    ],
    statusHeaders: [
      ...(methods.includes('QUERY')
        ? ([
            [
              415,
              [
                [
                  'Accept-Query',
                  'The media types a QUERY to this path takes (RFC 10008 §3: an RFC 9651 List, e.g. `application/json`)',
                ],
              ],
            ],
          ] as const)
        : []),
      ...(languages.length === 0
        ? []
        : ([['success', [['Content-Language', 'The language of the representation']]]] as const)),
    ],
  }
}
