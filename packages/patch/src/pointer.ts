/** JSON Pointer (RFC 6901): parsing, formatting and the array index rule. */

/** Reference tokens that never appear in a patched path: they reach an object's prototype. */
export const FORBIDDEN_TOKENS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
])

/**
 * Splits a JSON Pointer into its unescaped reference tokens: `''` is the whole document,
 * `'/a~1b/~0c'` is `['a/b', '~c']`. Returns `undefined` when the text is not a pointer (it does
 * not start with `/`, or a `~` is not followed by `0` or `1`). Linear in the pointer's length.
 */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return []
  if (pointer.charCodeAt(0) !== 0x2f) return undefined
  const tokens: string[] = []
  let token = ''
  for (let i = 1; i < pointer.length; i++) {
    const c = pointer[i]
    if (c === '/') {
      tokens.push(token)
      token = ''
    } else if (c === '~') {
      const next = pointer[++i]
      if (next === '0') token += '~'
      else if (next === '1') token += '/'
      else return undefined
    } else {
      token += c
    }
  }
  tokens.push(token)
  return tokens
}

/** Escapes one reference token: `~` as `~0`, `/` as `~1`. */
export function escapeToken(token: string): string {
  let out = ''
  for (const c of token) out += c === '~' ? '~0' : c === '/' ? '~1' : c
  return out
}

/** Builds a JSON Pointer from reference tokens. */
export function formatPointer(tokens: readonly string[]): string {
  let out = ''
  for (const token of tokens) out += `/${escapeToken(token)}`
  return out
}

/** Longest array index token accepted: beyond 15 digits no JavaScript array can hold it. */
const MAX_INDEX_DIGITS = 15

/**
 * The array index a token names, or -1 when it is not one. RFC 6901 §4: `0` or a digit
 * `1`-`9` followed by digits; no sign, no leading zero, no exponent, no `-` (handled apart).
 */
export function arrayIndex(token: string): number {
  const length = token.length
  if (length === 0 || length > MAX_INDEX_DIGITS) return -1
  if (length > 1 && token.charCodeAt(0) === 0x30) return -1
  for (let i = 0; i < length; i++) {
    const c = token.charCodeAt(i)
    if (c < 0x30 || c > 0x39) return -1
  }
  return Number(token)
}

/** True when `prefix` is a proper prefix of `tokens` (same leading tokens, shorter). */
export function isProperPrefix(prefix: readonly string[], tokens: readonly string[]): boolean {
  if (prefix.length >= tokens.length) return false
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== tokens[i]) return false
  return true
}
