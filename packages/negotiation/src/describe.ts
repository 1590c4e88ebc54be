/** What the negotiation convention adds to a route's OpenAPI description. */
import type { RouteContext, RouteDescription } from '@restwell/core'
import type { NegotiationRouteConfig } from './options.js'
import type { NegotiationSettings } from './settings.js'

/**
 * No representation matches `Accept`: 406 with the types the route produces in `Accept` (RFC
 * 9110 §15.5.7); with languages, each success names its `Content-Language` (§8.5).
 */
export function describeNegotiation(
  { config }: RouteContext<NegotiationRouteConfig>,
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
    ...(languages.length === 0
      ? {}
      : {
          statusHeaders: [
            ['success', [['Content-Language', 'The language of the representation']]],
          ],
        }),
  }
}
