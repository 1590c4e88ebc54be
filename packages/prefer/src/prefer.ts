/**
 * The `Prefer` request field (RFC 7240 §2) and `Preference-Applied` (§3). The grammar is the
 * RFC's own (not RFC 9651): `token [BWS "=" BWS word] *(OWS ";" [OWS parameter])`, a word being
 * a token or a quoted-string. One pass, no backtracking; never throws; bounded.
 */
import { fieldText, isOws, isTchar } from '@restwell/core/internal'

/** Preferences read from one request; later ones are ignored. */
export const MAX_PREFERENCES = 32
/** Parameters read for one preference; later ones are ignored. */
export const MAX_PARAMETERS = 16

/** One preference: its value (undefined when none or empty, §2) and its parameters. */
export interface Preference {
  readonly value: string | undefined
  readonly parameters: ReadonlyMap<string, string | undefined>
}

/** The preferences of a request by lower-case name, each as its first occurrence states it (§2). */
export type Preferences = ReadonlyMap<string, Preference>

const COMMA = 0x2c
const SEMICOLON = 0x3b
const EQUALS = 0x3d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** A cursor over the field value. */
interface Cursor {
  readonly text: string
  at: number
}

function skipOws(cursor: Cursor): void {
  while (cursor.at < cursor.text.length && isOws(cursor.text.charCodeAt(cursor.at))) cursor.at++
}

function token(cursor: Cursor): string {
  const start = cursor.at
  while (cursor.at < cursor.text.length && isTchar(cursor.text.charCodeAt(cursor.at))) cursor.at++
  return cursor.text.slice(start, cursor.at)
}

/**
 * A quoted-string's content (RFC 9110 §5.6.4), or undefined when it is not closed or holds a
 * control character; the cursor is past its closing quote either way, when it has one.
 */
function quoted(cursor: Cursor): string | undefined {
  let out = ''
  let valid = true
  cursor.at++
  while (cursor.at < cursor.text.length) {
    const code = cursor.text.charCodeAt(cursor.at++)
    if (code === QUOTE) return valid ? out : undefined
    if (code === BACKSLASH) {
      if (cursor.at >= cursor.text.length) return undefined
      out += cursor.text[cursor.at++]
    } else if (code < 0x20 && code !== 0x09) {
      valid = false
    } else out += String.fromCharCode(code)
  }
  return undefined
}

/** `[BWS "=" BWS word]`: the value, '' for none, or undefined when the value is malformed. */
function wordValue(cursor: Cursor): string | undefined {
  const before = cursor.at
  skipOws(cursor)
  if (cursor.text.charCodeAt(cursor.at) !== EQUALS) {
    cursor.at = before
    return ''
  }
  cursor.at++
  skipOws(cursor)
  if (cursor.text.charCodeAt(cursor.at) === QUOTE) return quoted(cursor)
  const word = token(cursor)
  return word === '' ? undefined : word
}

/** Moves past the rest of a malformed element, to the comma that ends it (quotes respected). */
function skipElement(cursor: Cursor): void {
  const { text } = cursor
  while (cursor.at < text.length) {
    const code = text.charCodeAt(cursor.at)
    if (code === COMMA) return
    if (code === QUOTE) quoted(cursor)
    else cursor.at++
  }
}

/** One preference at the cursor, or undefined when it is malformed (it is then ignored, §2). */
function preference(cursor: Cursor): [string, Preference] | undefined {
  const name = token(cursor).toLowerCase()
  if (name === '') return undefined
  const value = wordValue(cursor)
  if (value === undefined) return undefined
  const parameters = new Map<string, string | undefined>()
  for (;;) {
    skipOws(cursor)
    if (cursor.text.charCodeAt(cursor.at) !== SEMICOLON) break
    cursor.at++
    skipOws(cursor)
    const next = cursor.text.charCodeAt(cursor.at)
    if (next === SEMICOLON || next === COMMA || cursor.at >= cursor.text.length) continue
    const key = token(cursor).toLowerCase()
    if (key === '') return undefined
    const given = wordValue(cursor)
    if (given === undefined) return undefined
    if (!parameters.has(key) && parameters.size < MAX_PARAMETERS) {
      parameters.set(key, given === '' ? undefined : given)
    }
  }
  if (cursor.at < cursor.text.length && cursor.text.charCodeAt(cursor.at) !== COMMA) {
    return undefined
  }
  return [name, { value: value === '' ? undefined : value, parameters }]
}

/**
 * The preferences of a `Prefer` field (every line of it, §2: one list). A malformed element is
 * ignored, as is an unknown preference; a name is compared case-insensitively, a value as sent;
 * an empty value is no value; the first occurrence of a name wins.
 */
export function parsePrefer(field: unknown): Preferences {
  const cursor: Cursor = { text: fieldText(field), at: 0 }
  const preferences = new Map<string, Preference>()
  const { text } = cursor
  while (cursor.at < text.length && preferences.size < MAX_PREFERENCES) {
    skipOws(cursor)
    if (text.charCodeAt(cursor.at) === COMMA) {
      cursor.at++
      continue
    }
    if (cursor.at >= text.length) break
    const parsed = preference(cursor)
    if (parsed === undefined) skipElement(cursor)
    else if (!preferences.has(parsed[0])) preferences.set(parsed[0], parsed[1])
  }
  return preferences
}

/** A `Preference-Applied` value (§3): each applied preference, with its value when it has one. */
export function formatApplied(
  applied: ReadonlyArray<readonly [string, string | undefined]>,
): string {
  return applied
    .map(([name, value]) => (value === undefined ? name : `${name}=${value}`))
    .join(', ')
}

/** `wait` as delta-seconds (RFC 7240 §4.3, RFC 9111 §1.2.2), or undefined when it is not one. */
export function waitSeconds(preference: Preference | undefined): number | undefined {
  const value = preference?.value
  if (value === undefined || !/^\d{1,10}$/.test(value)) return undefined
  return Number(value)
}
