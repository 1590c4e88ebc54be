/** `Accept-Language` (RFC 9110 §12.5.4) with RFC 4647 lookup and basic filtering. */
import { parseList } from '@restwell/core/internal'

/** One language range, lowercased, with its weight. */
export interface LanguageRange {
  range: string
  q: number
}

function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

/** RFC 4647 §2.1 language-range: `*` or `1*8ALPHA *("-" 1*8alphanum)`. */
export function isLanguageRange(value: string): boolean {
  if (value === '*') return true
  let run = 0
  let first = true
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c === 45) {
      if (run === 0) return false
      run = 0
      first = false
      continue
    }
    if (!(isAlpha(c) || (!first && isDigit(c))) || ++run > 8) return false
  }
  return run > 0
}

/**
 * Parses `Accept-Language` into ranges ordered by weight, highest first (ties keep header
 * order). Malformed ranges are ignored. Never throws; linear in the length.
 */
export function parseAcceptLanguage(header: string): LanguageRange[] {
  const ranges: LanguageRange[] = []
  for (const element of parseList(header).elements) {
    if (isLanguageRange(element.value)) {
      ranges.push({ range: element.value.toLowerCase(), q: element.q })
    }
  }
  // Array.prototype.sort is stable: equal weights keep the order the client sent.
  return ranges.sort((a, b) => b.q - a.q)
}

/** True when a basic-filtering range matches a tag (RFC 4647 §3.3.1); both lowercased. */
function filters(range: string, tag: string): boolean {
  return range === '*' || tag === range || (tag.startsWith(range) && tag[range.length] === '-')
}

/** The tag itself, then each shorter prefix, as RFC 4647 §3.4 lookup truncates it. */
function* truncations(range: string): Generator<string> {
  let candidate = range
  while (candidate.length > 0) {
    yield candidate
    let cut = candidate.lastIndexOf('-')
    if (cut === -1) return
    // A single-character subtag (an extension prefix such as `x`) goes with the one after it.
    if (cut >= 2 && candidate[cut - 2] === '-') cut -= 2
    candidate = candidate.slice(0, cut)
  }
}

/**
 * Whether the ranges refuse a tag: the longest range other than `*` that matches it (basic
 * filtering) has q=0 (RFC 2616 §14.4: a tag's weight is that of the longest matching range). So
 * `en;q=0` excludes `en-US` but not `en-GB` when `en-GB` is asked for with a positive weight.
 */
function refused(ranges: readonly LanguageRange[], tag: string): boolean {
  let longest = -1
  let q = 1
  for (const range of ranges) {
    if (range.range === '*' || !filters(range.range, tag)) continue
    const length = range.range.length
    // The same range twice (only an equal string matches with an equal length): q=0 wins.
    if (length > longest || (length === longest && range.q === 0)) {
      longest = length
      q = range.q
    }
  }
  return longest !== -1 && q === 0
}

/**
 * Chooses a language: for each range by weight, RFC 4647 lookup first (`de-CH` → `de`), then
 * basic filtering (`en` → `en-US`); `*` takes the default. A range with q=0 excludes the tags
 * it matches unless a longer range with a positive weight matches them too (`en-GB, en;q=0`
 * keeps `en-GB`). Nothing acceptable → the default (never an error).
 */
export function pickLanguage(
  ranges: readonly LanguageRange[],
  available: readonly string[],
  fallback: string,
): string {
  const lower = available.map((tag) => tag.toLowerCase())
  const excluded = new Set<number>()
  if (ranges.some(({ range, q }) => q === 0 && range !== '*')) {
    lower.forEach((tag, index) => {
      if (refused(ranges, tag)) excluded.add(index)
    })
  }
  const allowed = (index: number): boolean => index !== -1 && !excluded.has(index)
  for (const { range, q } of ranges) {
    if (q === 0) continue
    if (range === '*') {
      const preferred = lower.indexOf(fallback.toLowerCase())
      if (allowed(preferred)) return available[preferred]!
      const other = lower.findIndex((_, index) => allowed(index))
      if (other !== -1) return available[other]!
      continue
    }
    for (const candidate of truncations(range)) {
      const index = lower.indexOf(candidate)
      if (allowed(index)) return available[index]!
    }
    const filtered = lower.findIndex((tag, index) => allowed(index) && filters(range, tag))
    if (filtered !== -1) return available[filtered]!
  }
  return fallback
}
