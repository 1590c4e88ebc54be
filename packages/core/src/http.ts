/** Small HTTP helpers every restwell plugin uses, written once. */

/** The path of a request URL, without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/**
 * The URL of a request as the client knows it, for the links a response carries: the client's
 * path (`request.originalUrl`, kept by rewrites) with the query the route saw (`request.url`'s,
 * less a method override parameter).
 */
export function publicUrl(request: { url: string; originalUrl: string }): string {
  const url = request.url
  const original = request.originalUrl
  if (original === url) return url
  const q = url.indexOf('?')
  return q === -1 ? pathOf(original) : pathOf(original) + url.slice(q)
}

/** RFC 9110 §5.6.3 OWS: a space or a horizontal tab. */
export function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09
}

/** RFC 9110 §5.6.2 tchar, as a lookup table over ASCII. */
const TCHAR: Uint8Array = (() => {
  const table = new Uint8Array(128)
  for (const c of "!#$%&'*+-.^_`|~") table[c.charCodeAt(0)] = 1
  for (let c = 48; c <= 57; c++) table[c] = 1
  for (let c = 65; c <= 90; c++) table[c] = 1
  for (let c = 97; c <= 122; c++) table[c] = 1
  return table
})()

/** True for an RFC 9110 token character. */
export function isTchar(code: number): boolean {
  return code < 128 && TCHAR[code] === 1
}

/** True when the whole string is a non-empty RFC 9110 token. */
export function isToken(value: string): boolean {
  if (value.length === 0) return false
  for (let i = 0; i < value.length; i++) if (!isTchar(value.charCodeAt(i))) return false
  return true
}

/**
 * A field value as one string: a list (a repeated field, or a header set as an array) joined
 * with commas, as RFC 9110 §5.3 allows for list-based fields; anything else is empty.
 */
export function fieldText(value: unknown): string {
  if (typeof value === 'string') return value
  if (!Array.isArray(value)) return ''
  return value.filter((v): v is string => typeof v === 'string').join(',')
}

/** A route option that takes one value or a list (`method`, `onRequest`, ...) as a list. */
export function asList<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}
