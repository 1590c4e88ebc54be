/** The `WWW-Authenticate: Bearer` challenge of RFC 6750 §3. */

/** The RFC 6750 §3.1 error codes. */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope'

export interface BearerChallenge {
  realm: string
  error?: BearerErrorCode
  description?: string
  /** Scopes needed, for `insufficient_scope`. */
  scopes?: readonly string[]
}

/** RFC 6750 `error_description`: `%x20-21 / %x23-5B / %x5D-7E`. */
const DESCRIPTION_CHAR = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/
/** RFC 6750 §3 scope-token: `1*( %x21 / %x23-5B / %x5D-7E )`. */
export const SCOPE_TOKEN: RegExp = /^[\x21\x23-\x5B\x5D-\x7E]+$/
/** Longest `error_description` sent. */
const MAX_DESCRIPTION = 200

/** Makes any text a valid `error_description` value: disallowed chars become spaces, bounded length. */
export function safeDescription(text: string): string {
  const bounded = text.length > MAX_DESCRIPTION ? text.slice(0, MAX_DESCRIPTION) : text
  if (DESCRIPTION_CHAR.test(bounded)) return bounded
  let out = ''
  for (let i = 0; i < bounded.length; i++) {
    const code = bounded.charCodeAt(i)
    out += code >= 0x20 && code <= 0x7e && code !== 0x22 && code !== 0x5c ? bounded[i] : ' '
  }
  return out
}

/** Formats the challenge: `Bearer realm="api", error="invalid_token", error_description="..."`. */
export function formatChallenge(challenge: BearerChallenge): string {
  let header = `Bearer realm="${challenge.realm}"`
  if (challenge.error !== undefined) header += `, error="${challenge.error}"`
  if (challenge.description !== undefined) {
    header += `, error_description="${safeDescription(challenge.description)}"`
  }
  if (challenge.scopes !== undefined && challenge.scopes.length > 0) {
    header += `, scope="${challenge.scopes.join(' ')}"`
  }
  return header
}

/** True when error headers (any object, any name case) carry a `WWW-Authenticate`. */
export function hasChallenge(headers: unknown): boolean {
  if (typeof headers !== 'object' || headers === null) return false
  for (const name of Object.keys(headers)) {
    if (name.length === 16 && name.toLowerCase() === 'www-authenticate') return true
  }
  return false
}
