/** A linear, non-throwing parser for the comma lists of RFC 9110 §5.6.1 with `;` parameters and a weight. */
import { isOws, isTchar } from './http.js'

/** One list element: its value, its parameters (before `q`, lowercased names) and its weight. */
export interface ListElement {
  /** The element's first token-like run, as sent (`text/html`, `en-US`, `utf-8`, `*`). */
  value: string
  /** Parameters before the weight, names lowercased, quoted values unquoted. */
  params: [string, string][]
  /** The weight, 0 to 1 (three decimals); 1 when absent. */
  q: number
}

/** What a list parse found: the well-formed elements and how many malformed ones were skipped. */
export interface ParsedList {
  elements: ListElement[]
  malformed: number
}

/** Most elements read from one header; the rest are ignored (bounds work per request). */
export const MAX_LIST_ELEMENTS = 64
/** Most parameters kept per element. */
export const MAX_PARAMS = 16

const QUOTE = 34
const COMMA = 44
const SEMICOLON = 59
const EQUALS = 61
const BACKSLASH = 92

/**
 * Parses a weight: `0`, `1`, `0.5`, leniently also `.5` and more than three decimals (Java's
 * `q=.2`). Returns undefined for anything else or a value outside 0..1. A weight is kept to
 * three decimals (RFC 9110 §12.4.2), but a positive one stays positive: below 0.001 it is
 * 0.001, as `q=0` alone means "not acceptable".
 */
export function parseQ(raw: string): number | undefined {
  if (raw.length === 0 || raw.length > 8) return undefined
  let dots = 0
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i)
    if (c === 46) dots++
    else if (c < 48 || c > 57) return undefined
  }
  if (dots > 1 || raw === '.') return undefined
  const q = Number(raw)
  if (q > 1) return undefined
  return q > 0 && q < 0.001 ? 0.001 : Math.round(q * 1000) / 1000
}

/** Reads a quoted-string starting at `start` (on the quote). Returns [value, end] or undefined. */
function readQuoted(header: string, start: number): [string, number] | undefined {
  let out = ''
  let i = start + 1
  while (i < header.length) {
    const c = header.charCodeAt(i)
    if (c === QUOTE) return [out, i + 1]
    if (c === BACKSLASH) {
      i++
      if (i >= header.length) return undefined
    }
    out += header[i]
    i++
  }
  return undefined
}

/** Index of the next top-level comma at or after `from` (quotes respected), or the length. */
function nextComma(header: string, from: number): number {
  let i = from
  let quoted = false
  while (i < header.length) {
    const c = header.charCodeAt(i)
    if (quoted) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) quoted = false
    } else if (c === QUOTE) quoted = true
    else if (c === COMMA) return i
    i++
  }
  return header.length
}

/** Parses one element from `start`; returns it and where it ended, or undefined when malformed. */
function readElement(header: string, start: number): [ListElement, number] | undefined {
  const len = header.length
  let i = start
  while (i < len) {
    const c = header.charCodeAt(i)
    if (c === COMMA || c === SEMICOLON || isOws(c) || c === QUOTE) break
    i++
  }
  const value = header.slice(start, i)
  const params: [string, string][] = []
  let q = 1
  let afterQ = false
  for (;;) {
    while (i < len && isOws(header.charCodeAt(i))) i++
    if (i >= len || header.charCodeAt(i) === COMMA) break
    if (header.charCodeAt(i) !== SEMICOLON) return undefined
    i++
    while (i < len && isOws(header.charCodeAt(i))) i++
    if (i >= len || header.charCodeAt(i) === COMMA || header.charCodeAt(i) === SEMICOLON) {
      continue
    }
    const nameStart = i
    while (i < len && isTchar(header.charCodeAt(i))) i++
    if (i === nameStart || i >= len || header.charCodeAt(i) !== EQUALS) return undefined
    const name = header.slice(nameStart, i).toLowerCase()
    i++
    let paramValue: string
    if (i < len && header.charCodeAt(i) === QUOTE) {
      const quoted = readQuoted(header, i)
      if (quoted === undefined) return undefined
      ;[paramValue, i] = quoted
    } else {
      const valueStart = i
      while (i < len && isTchar(header.charCodeAt(i))) i++
      if (i === valueStart) return undefined
      paramValue = header.slice(valueStart, i)
    }
    if (afterQ) continue
    if (name === 'q') {
      const weight = parseQ(paramValue)
      if (weight === undefined) return undefined
      q = weight
      afterQ = true
    } else if (params.length < MAX_PARAMS) {
      params.push([name, paramValue])
    }
  }
  return [{ value, params, q }, i]
}

/**
 * Parses a list header (`Accept`, `Accept-Language`, `Accept-Charset`). Never throws; one pass
 * over the string; empty elements are skipped as RFC 9110 §5.6.1 requires; a malformed element
 * is skipped and counted; at most `max` elements are read.
 */
export function parseList(header: string, max: number = MAX_LIST_ELEMENTS): ParsedList {
  const elements: ListElement[] = []
  let malformed = 0
  let i = 0
  const len = header.length
  while (i < len && elements.length < max) {
    const c = header.charCodeAt(i)
    if (c === COMMA || isOws(c)) {
      i++
      continue
    }
    const read = readElement(header, i)
    if (read === undefined || read[0].value === '') {
      malformed++
      i = nextComma(header, i) + 1
      continue
    }
    elements.push(read[0])
    i = read[1] + 1
  }
  return { elements, malformed }
}

/**
 * Distinct header values remembered per memo (negotiation's `Accept` per route and for error
 * bodies and `Content-Type` per app, conditional's `Accept-Encoding`), then forgotten.
 */
export const ACCEPT_CACHE_SIZE = 64

/**
 * `judge(value)`, remembered in `memo`: clients send a handful of distinct values of a header,
 * so each is parsed once. Past `ACCEPT_CACHE_SIZE` values the memo starts over, so odd values
 * cannot grow it. A verdict is never undefined (that is a missing entry): say `null`.
 */
export function remembered<V extends NonNullable<unknown> | null>(
  memo: Map<string, V>,
  value: string,
  judge: (value: string) => V,
): V {
  let verdict = memo.get(value)
  if (verdict === undefined) {
    verdict = judge(value)
    if (memo.size >= ACCEPT_CACHE_SIZE) memo.clear()
    memo.set(value, verdict)
  }
  return verdict
}
