/** What the auth convention adds to a protected route's OpenAPI description. */
import type { RouteDescription } from '@restwell/core'

/** The Bearer scheme of RFC 6750, as the document defines it. */
const BEARER = { type: 'http', scheme: 'bearer', description: 'RFC 6750 Bearer token' }

/**
 * A token missing or refused: 401 with the challenge (RFC 6750 §3); a scope lacking: 403. The
 * route needs a Bearer token with `scopes`.
 */
export function describeAuth(scopes: readonly string[]): RouteDescription {
  return {
    responses: [
      [
        401,
        'Unauthorized: missing or invalid Bearer token (`WWW-Authenticate`)',
        { headers: [['WWW-Authenticate', '`Bearer` challenge (RFC 6750)']] },
      ],
      [403, 'Forbidden: the token lacks a required scope'],
    ],
    security: { name: 'bearerAuth', scheme: BEARER, scopes },
  }
}
