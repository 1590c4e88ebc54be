/** What the methods convention adds to a route's OpenAPI description. */
import type { RouteDescription } from '@restwell/core'

/** A method the route's path has no route for: 405 with `Allow` (RFC 9110 §15.5.6). */
export function describeMethods(): RouteDescription {
  return {
    responses: [
      [
        405,
        'Method Not Allowed on this path (`Allow` lists the supported methods)',
        { headers: [['Allow', 'The methods this path supports']] },
      ],
    ],
  }
}
