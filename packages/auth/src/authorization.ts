/** The `Authorization` header, read as RFC 6750 §2.1 Bearer credentials (scheme per RFC 9110 §11). */
import { isTchar } from '@restwell/core/internal'

/** What one `Authorization` header value holds. */
export type ParsedAuthorization =
  /** No header, or an empty one. */
  | { kind: 'none' }
  /** A well-formed `Bearer <b64token>`. */
  | { kind: 'bearer'; token: string }
  /** Credentials of another scheme (`Basic ...`): not ours, treated as no Bearer credentials. */
  | { kind: 'other'; scheme: string }
  /** Not parseable as credentials, or a Bearer scheme without a valid b64token. */
  | { kind: 'malformed'; reason: string }

const NONE: ParsedAuthorization = { kind: 'none' }

/** RFC 6750 b64token chars (before the trailing `=` padding), by char code. */
const B64TOKEN: Uint8Array = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c)
  const alnum = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
  if (alnum) B64TOKEN[c] = 1
}
for (const c of '-._~+/') B64TOKEN[c.charCodeAt(0)] = 1

/**
 * Parses one `Authorization` value. Linear in its length, never throws. The scheme is matched
 * case-insensitively; between scheme and token only spaces (`1*SP`); the token is a b64token:
 * `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
 */
export function parseAuthorization(value: string | undefined): ParsedAuthorization {
  if (value === undefined) return NONE
  const length = value.length
  let start = 0
  // Node trims OWS already; a hand-built header may still carry it.
  while (start < length && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09))
    start++
  let end = length
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09))
    end--
  if (start === end) return NONE
  let i = start
  while (i < end && isTchar(value.charCodeAt(i))) i++
  if (i === start) return { kind: 'malformed', reason: 'the authentication scheme is missing' }
  const scheme = value.slice(start, i)
  if (i < end && value.charCodeAt(i) !== 0x20) {
    return {
      kind: 'malformed',
      reason: 'the authentication scheme must be a token followed by a space',
    }
  }
  if (scheme.length !== 6 || scheme.toLowerCase() !== 'bearer') return { kind: 'other', scheme }
  while (i < end && value.charCodeAt(i) === 0x20) i++
  if (i === end) return { kind: 'malformed', reason: 'the Bearer scheme carries no token' }
  const tokenStart = i
  while (i < end) {
    const code = value.charCodeAt(i)
    if (code >= 128 || B64TOKEN[code] !== 1) break
    i++
  }
  if (i === tokenStart) return { kind: 'malformed', reason: 'the Bearer token is not a b64token' }
  while (i < end && value.charCodeAt(i) === 0x3d) i++
  if (i !== end) return { kind: 'malformed', reason: 'the Bearer token is not a b64token' }
  return { kind: 'bearer', token: value.slice(tokenStart, end) }
}

/**
 * How many `Authorization` header lines the raw request carried. Node keeps only the first
 * of duplicated `Authorization` lines in `headers`, so several credentials are only visible here.
 */
export function countAuthorizationLines(rawHeaders: readonly string[]): number {
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]
    if (name !== undefined && name.length === 13 && name.toLowerCase() === 'authorization') count++
  }
  return count
}
