/** `Cache-Control` (RFC 9111 §5.2): build a response policy, and read one back without throwing. */
import { fieldText, isOws, isTchar } from '@restwell/core/internal'

/** Most directives read from one `Cache-Control` value; the rest are ignored. */
export const MAX_DIRECTIVES = 64

/** Longest `Cache-Control` value read; a longer one is read up to this length. */
export const MAX_CACHE_CONTROL_LENGTH = 4096

/** Largest delta-seconds a cache must understand (RFC 9111 §1.2.2: 2^31). */
export const MAX_DELTA_SECONDS = 2147483648

/**
 * A response's caching policy. Every key is optional; see `formatCacheControl` for how the
 * header is built from them.
 */
export interface CacheDirectives {
  /** `public`: every cache, shared ones included, may store it (even for an authorized request). */
  public?: boolean
  /**
   * `private`: only the client's own cache may store it. [true unless `public` or `sMaxAge`;
   * the plugin sends it then only where credentials matter] An explicit `false` leaves it out,
   * so a shared cache may store the response (RFC 9111 §3).
   */
  private?: boolean
  /** `no-cache`: a cache must revalidate before each reuse. [true when neither `maxAge` nor `sMaxAge` is given] */
  noCache?: boolean
  /** `no-store`: no cache may store it; every other key is then left out. */
  noStore?: boolean
  /** `max-age=<seconds>`: freshness lifetime. */
  maxAge?: number
  /** `s-maxage=<seconds>`: freshness lifetime in shared caches; makes the response shareable. */
  sMaxAge?: number
  /** `stale-while-revalidate=<seconds>` (RFC 5861). */
  staleWhileRevalidate?: number
  /** `stale-if-error=<seconds>` (RFC 5861). */
  staleIfError?: number
  /** `immutable` (RFC 8246): the body never changes while fresh. */
  immutable?: boolean
  /** `must-revalidate`: never served stale once expired. */
  mustRevalidate?: boolean
  /** `proxy-revalidate`: `must-revalidate` for shared caches only. */
  proxyRevalidate?: boolean
  /** `no-transform`: intermediaries must not change the body. */
  noTransform?: boolean
}

function delta(name: string, value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > MAX_DELTA_SECONDS) {
    throw new TypeError(
      `Cache-Control ${name} must be an integer number of seconds from 0 to ${MAX_DELTA_SECONDS}, got ${String(value)}`,
    )
  }
  return `${name}=${value}`
}

/** True when `private` is sent: asked for, or by default when neither `public` nor `sMaxAge` is given. */
function isPrivate(directives: CacheDirectives): boolean {
  return directives.private ?? (directives.public !== true && directives.sMaxAge === undefined)
}

/**
 * True when the policy lets a shared cache store the response: neither `no-store` nor `private`
 * is sent (`public`, `s-maxage`, or an explicit `private: false`).
 */
export function isSharedPolicy(directives: CacheDirectives): boolean {
  return directives.noStore !== true && !isPrivate(directives)
}

/**
 * Builds a `Cache-Control` value: `no-store` alone, or `public`/`private`, `no-cache` (when asked
 * or no lifetime is given), then the lifetimes and flags in a fixed order. Throws a `TypeError`
 * for `public` with `private`, or a lifetime that is not an integer of seconds.
 */
export function formatCacheControl(directives: CacheDirectives): string {
  if (directives.noStore === true) return 'no-store'
  if (directives.public === true && directives.private === true) {
    throw new TypeError('Cache-Control cannot be both public and private')
  }
  const parts: string[] = []
  if (directives.public === true) parts.push('public')
  else if (isPrivate(directives)) parts.push('private')
  const lifetime = directives.maxAge !== undefined || directives.sMaxAge !== undefined
  if (directives.noCache ?? !lifetime) parts.push('no-cache')
  if (directives.maxAge !== undefined) parts.push(delta('max-age', directives.maxAge))
  if (directives.sMaxAge !== undefined) parts.push(delta('s-maxage', directives.sMaxAge))
  if (directives.mustRevalidate === true) parts.push('must-revalidate')
  if (directives.proxyRevalidate === true) parts.push('proxy-revalidate')
  if (directives.staleWhileRevalidate !== undefined) {
    parts.push(delta('stale-while-revalidate', directives.staleWhileRevalidate))
  }
  if (directives.staleIfError !== undefined) {
    parts.push(delta('stale-if-error', directives.staleIfError))
  }
  if (directives.immutable === true) parts.push('immutable')
  if (directives.noTransform === true) parts.push('no-transform')
  return parts.join(', ')
}

/** Directives read from a `Cache-Control` value: lower-case name → argument (`''` when none). */
export type ParsedCacheControl = Map<string, string>

/**
 * Reads a `Cache-Control` value (or a list of them) into its directives. Linear in the
 * length, never throws: a malformed member is skipped up to the next comma; the first of a
 * repeated directive wins; at most `MAX_DIRECTIVES` are read.
 */
export function parseCacheControl(value: unknown): ParsedCacheControl {
  const out: ParsedCacheControl = new Map()
  const text = fieldText(value)
  const end = Math.min(text.length, MAX_CACHE_CONTROL_LENGTH)
  let i = 0
  let count = 0
  while (i < end && count < MAX_DIRECTIVES) {
    while (i < end && (isOws(text.charCodeAt(i)) || text.charCodeAt(i) === 0x2c)) i++
    const start = i
    while (i < end && isTchar(text.charCodeAt(i))) i++
    const name = text.slice(start, i).toLowerCase()
    let argument = ''
    let valid = name !== ''
    if (valid && i < end && text.charCodeAt(i) === 0x3d) {
      i++
      if (i < end && text.charCodeAt(i) === 0x22) {
        // quoted-string: "..." with \-escapes
        i++
        let closed = false
        while (i < end) {
          const code = text.charCodeAt(i)
          if (code === 0x22) {
            closed = true
            i++
            break
          }
          if (code === 0x5c && i + 1 < end) i++
          argument += text[i]
          i++
        }
        valid = closed
      } else {
        const argStart = i
        while (i < end && isTchar(text.charCodeAt(i))) i++
        argument = text.slice(argStart, i)
        valid = argument !== ''
      }
    }
    while (i < end && isOws(text.charCodeAt(i))) i++
    if (i < end && text.charCodeAt(i) !== 0x2c) {
      valid = false
      while (i < end && text.charCodeAt(i) !== 0x2c) i++
    }
    if (valid) {
      count++
      if (!out.has(name)) out.set(name, argument)
    }
  }
  return out
}

/**
 * True when a shared cache may store a response with these directives: neither `no-store` nor
 * an unqualified `private` (`private="set-cookie"` still lets the rest be shared). Such a
 * response may reach another client from a shared cache: to a request with `Authorization`
 * when it says `public`, `s-maxage` or `must-revalidate` (RFC 9111 §3.5), and, stored from an
 * anonymous request, to any later request.
 */
export function isSharedCacheControl(parsed: ParsedCacheControl): boolean {
  return !parsed.has('no-store') && parsed.get('private') !== ''
}
