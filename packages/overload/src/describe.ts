/** What the overload convention adds to a route's OpenAPI description. */
import type { RouteDescription } from '@restwell/core'

/** Any request may be shed under pressure: 503 with `Retry-After` (RFC 9110 §15.6.4). */
export function describeOverload(): RouteDescription {
  return {
    responses: [
      [
        503,
        'Service Unavailable: overloaded (`Retry-After`)',
        { headers: [['Retry-After', 'Seconds to wait before retrying']] },
      ],
    ],
  }
}
