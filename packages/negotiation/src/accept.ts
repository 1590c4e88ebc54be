/** `Accept` (RFC 9110 §12.5.1): media ranges with weights, and choosing a representation. */
import {
  ACCEPT_CACHE_SIZE,
  isToken,
  type ListElement,
  parseList,
  remembered,
} from '@restwell/core/internal'

/** Each distinct `Accept` (per route, and for error bodies) and `Content-Type` is read once. */
export { ACCEPT_CACHE_SIZE, remembered }

/** One media range of an `Accept` header, lowercased. */
export interface MediaRange {
  /** `*` for `*\/*`. */
  type: string
  /** `*` for `type/*`. */
  subtype: string
  /** Media type parameters (names lowercased), before the weight. */
  params: [string, string][]
  q: number
}

/** A media type the server can produce, split once. */
export interface MediaOffer {
  /** The full type as configured (`application/hal+json`). */
  mediaType: string
  type: string
  subtype: string
}

/** Splits `type/subtype` into lowercased tokens; undefined when it is not two tokens. */
export function splitMediaType(value: string): [string, string] | undefined {
  const slash = value.indexOf('/')
  if (slash === -1) return undefined
  const type = value.slice(0, slash).toLowerCase()
  const subtype = value.slice(slash + 1).toLowerCase()
  return isToken(type) && isToken(subtype) ? [type, subtype] : undefined
}

/** Where the digits of `vnd.<name>.v<digits>+json` start, or -1 when it is not that shape. */
function versionStart(subtype: string): number {
  if (!subtype.startsWith('vnd.') || !subtype.endsWith('+json')) return -1
  const end = subtype.length - 5
  const dot = subtype.lastIndexOf('.', end - 1)
  if (dot <= 4 || subtype.charCodeAt(dot + 1) !== 118 || dot + 2 >= end) return -1
  for (let i = dot + 2; i < end; i++) {
    const c = subtype.charCodeAt(i)
    if (c < 48 || c > 57) return -1
  }
  return dot + 2
}

/** True for `vnd.<name>.v<digits>+json`, the versioned JSON of spec part 9. */
export function isVersionedJson(subtype: string): boolean {
  return versionStart(subtype) !== -1
}

/** Longest version number read from a versioned JSON subtype (as `@restwell/versioning`). */
const MAX_VERSION_DIGITS = 9

/**
 * The version a versioned JSON subtype names (`vnd.api.v2+json` → 2), or undefined when it is
 * not versioned JSON or its digits are not a canonical version (`v02`, more than 9 digits), as
 * `@restwell/versioning` reads them.
 */
export function versionedJsonVersion(subtype: string): number | undefined {
  const start = versionStart(subtype)
  if (start === -1) return undefined
  const end = subtype.length - 5
  if (end - start > MAX_VERSION_DIGITS) return undefined
  if (end - start > 1 && subtype.charCodeAt(start) === 48) return undefined
  return Number(subtype.slice(start, end))
}

/** Is this subtype JSON: versioned JSON, of a version the request may be answered in? */
function readsAsJson(subtype: string, versions: ReadonlySet<number> | undefined): boolean {
  if (versions === undefined) return isVersionedJson(subtype)
  const version = versionedJsonVersion(subtype)
  return version !== undefined && versions.has(version)
}

function toRange(
  element: ListElement,
  versionedJson: boolean,
  versions: ReadonlySet<number> | undefined,
): MediaRange | undefined {
  // A lone `*` is not a media range, but old Java clients send `*; q=.2`: read it as `*/*`.
  const split = element.value === '*' ? ['*', '*'] : splitMediaType(element.value)
  if (split === undefined) return undefined
  const [type, subtype] = split as [string, string]
  if (type === '*' && subtype !== '*') return undefined
  const mapped = versionedJson && type === 'application' && readsAsJson(subtype, versions)
  return { type, subtype: mapped ? 'json' : subtype, params: element.params, q: element.q }
}

/** Options of `parseAccept`. */
export interface ParseAcceptOptions {
  /** Read `application/vnd.<name>.v<N>+json` as `application/json`. [true] */
  versionedJson?: boolean
  /**
   * Only a range naming one of these versions reads as JSON (the versions the request may be
   * answered in: the `API_VERSIONS` contract); another version's range stays as it is and
   * matches nothing produced. [any version]
   */
  versions?: ReadonlySet<number>
}

/**
 * Parses an `Accept` value. Malformed ranges are skipped; returns undefined when the value has
 * content but not one well-formed range (the caller answers 400), and an empty array for an
 * empty value (no preference). Never throws; linear in the length; at most 64 ranges.
 */
export function parseAccept(
  header: string,
  options: ParseAcceptOptions = {},
): MediaRange[] | undefined {
  const versionedJson = options.versionedJson ?? true
  const versions = options.versions
  const { elements, malformed } = parseList(header)
  const ranges: MediaRange[] = []
  let bad = malformed
  for (const element of elements) {
    const range = toRange(element, versionedJson, versions)
    if (range === undefined) bad++
    else ranges.push(range)
  }
  return ranges.length === 0 && bad > 0 ? undefined : ranges
}

/** Splits a configured media type into an offer; undefined when it is not `type/subtype`. */
export function toOffer(mediaType: string): MediaOffer | undefined {
  const split = splitMediaType(mediaType)
  if (split === undefined || split[0] === '*' || split[1] === '*') return undefined
  return { mediaType, type: split[0], subtype: split[1] }
}

/** The JSON:API media type, whose `profile` parameter a server may ignore (JSON:API 1.1). */
const JSON_API_SUBTYPE = 'vnd.api+json'

/**
 * Does a range's parameter list fit an offer (which carries only `charset=utf-8`)? The JSON:API
 * type is the exception: JSON:API 1.1 (content negotiation) lets a server ignore the `profile`s
 * it does not apply, and asks for 406 when every instance of its type carries any other
 * parameter: `ext` (no extension is supported) and `charset` too (the type defines none).
 */
function paramsFit(params: readonly [string, string][], offer: MediaOffer): boolean {
  const jsonApi = offer.type === 'application' && offer.subtype === JSON_API_SUBTYPE
  for (const [name, value] of params) {
    if (jsonApi ? name === 'profile' : name === 'charset' && value.toLowerCase() === 'utf-8') {
      continue
    }
    return false
  }
  return true
}

/** The range of an `Accept` that decides an offer's weight: how specific it is, and its weight. */
export interface RangeMatch {
  /** -1: no range matches; 0: `*\/*`; 1: `type/*`; 2 and up: the type itself (plus parameters). */
  specificity: number
  /** Its weight (0 when nothing matches). */
  q: number
}

/**
 * The most specific range matching an offer (a type with parameters beats the bare type, which
 * beats `type/*`, which beats `*\/*`); the first of equally specific ones.
 */
export function bestMatch(ranges: readonly MediaRange[], offer: MediaOffer): RangeMatch {
  let best = -1
  let q = 0
  for (const range of ranges) {
    let specificity: number
    if (range.type === '*') specificity = 0
    else if (range.type !== offer.type) continue
    else if (range.subtype === '*') specificity = 1
    else if (range.subtype !== offer.subtype || !paramsFit(range.params, offer)) continue
    else specificity = 2 + range.params.length
    if (specificity > best) {
      best = specificity
      q = range.q
    }
  }
  return { specificity: best, q }
}

/** The weight the ranges give one offer: that of its most specific matching range; 0 if none. */
export function qualityOf(ranges: readonly MediaRange[], offer: MediaOffer): number {
  return bestMatch(ranges, offer).q
}

/**
 * Picks the offer with the highest weight; equal weights go to the earlier offer (the server's
 * priority order); weight 0 is not acceptable. Undefined when nothing is acceptable.
 */
export function negotiateMediaType(
  ranges: readonly MediaRange[],
  offers: readonly MediaOffer[],
): MediaOffer | undefined {
  let chosen: MediaOffer | undefined
  let bestQ = 0
  for (const offer of offers) {
    const q = qualityOf(ranges, offer)
    if (q > bestQ) {
      bestQ = q
      chosen = offer
    }
  }
  return chosen
}
