/** What the auth convention adds to a protected route's OpenAPI description. */
import type { RouteDescription } from '@restwell/core'

/** A token missing or refused: 401 with the challenge (RFC 6750 §3); a scope lacking: 403. */
export function describeAuth(): RouteDescription {
  return {
    responses: [
      [
        401,
        'Unauthorized: missing or invalid Bearer token (`WWW-Authenticate`)',
        { headers: [['WWW-Authenticate', '`Bearer` challenge (RFC 6750)']] },
      ],
      [403, 'Forbidden: the token lacks a required scope'],
    ],
  }
}
