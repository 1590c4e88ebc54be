/** Entity-tags (RFC 9110 §8.8.3): parsing If-Match / If-None-Match lists, comparison, formatting, hashing. */
import { identityDigest, isOws } from '@restwell/core/internal'

/** One entity-tag: `opaque` keeps its double quotes (`"abc"`), `weak` is the `W/` prefix. */
export interface EntityTag {
  weak: boolean
  opaque: string
}

/** A parsed If-Match / If-None-Match value: `*` or a list of entity-tags (malformed members dropped). */
export type EntityTagList = '*' | EntityTag[]

/** Most entity-tags read from one header; the rest of a longer list is ignored. */
export const MAX_ENTITY_TAGS = 64

/**
 * Content-codings whose name is appended to an ETag (`"abc-gzip"`) when the body is sent
 * encoded, so an encoded and an identity body never share a strong ETag (RFC 9110 §8.8.3).
 */
export const CODING_SUFFIXES: readonly string[] = ['gzip', 'br', 'deflate', 'zstd', 'compress']

/** etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3). */
function isEtagc(code: number): boolean {
  return code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff)
}

/**
 * Parses an If-Match / If-None-Match field value. Returns undefined for an absent or empty
 * field, `'*'` for `*`, else the well-formed entity-tags (at most `MAX_ENTITY_TAGS`); a
 * malformed member is skipped, so it can never match. Linear in the value's length.
 */
export function parseEntityTagList(value: string | undefined): EntityTagList | undefined {
  if (value === undefined) return undefined
  const length = value.length
  let start = 0
  let end = length
  while (start < end && isOws(value.charCodeAt(start))) start++
  while (end > start && isOws(value.charCodeAt(end - 1))) end--
  if (start === end) return undefined
  if (end - start === 1 && value.charCodeAt(start) === 0x2a) return '*'
  const tags: EntityTag[] = []
  let i = start
  while (i < end && tags.length < MAX_ENTITY_TAGS) {
    const code = value.charCodeAt(i)
    if (code === 0x2c || isOws(code)) {
      i++
      continue
    }
    let weak = false
    let j = i
    if (code === 0x57 && value.charCodeAt(i + 1) === 0x2f) {
      weak = true
      j += 2
    }
    let ok = value.charCodeAt(j) === 0x22
    let close = -1
    if (ok) {
      for (let k = j + 1; k < end; k++) {
        const c = value.charCodeAt(k)
        if (c === 0x22) {
          close = k
          break
        }
        if (!isEtagc(c)) break
      }
      ok = close !== -1
    }
    if (ok) {
      // after the closing quote only OWS then a comma or the end may follow
      let k = close + 1
      while (k < end && isOws(value.charCodeAt(k))) k++
      ok = k === end || value.charCodeAt(k) === 0x2c
      if (ok) {
        tags.push({ weak, opaque: value.slice(j, close + 1) })
        i = k
        continue
      }
    }
    // malformed member: skip to the next comma
    const comma = value.indexOf(',', i)
    i = comma === -1 || comma >= end ? end : comma + 1
  }
  return tags
}

/** Parses one entity-tag (an ETag header value), or undefined when it is malformed. */
export function parseEntityTag(value: string): EntityTag | undefined {
  const list = parseEntityTagList(value)
  return Array.isArray(list) && list.length === 1 ? list[0] : undefined
}

/** The content coding a trailing `-<coding>` suffix of an opaque-tag names, or undefined. */
export function codingOf(opaque: string): string | undefined {
  const dash = opaque.lastIndexOf('-')
  if (dash === -1) return undefined
  const coding = opaque.slice(dash + 1, -1)
  return CODING_SUFFIXES.includes(coding) ? coding : undefined
}

/** `opaque` without its `-<coding>` suffix (`coding` from `codingOf`). */
function stripCoding(opaque: string, coding: string): string {
  return `${opaque.slice(0, -coding.length - 2)}"`
}

/** The opaque-tag without a trailing `-<coding>` suffix, or undefined when it has none. */
export function withoutCoding(opaque: string): string | undefined {
  const coding = codingOf(opaque)
  return coding === undefined ? undefined : stripCoding(opaque, coding)
}

/** Appends `-<coding>` inside the quotes of an ETag header value: `W/"a"` → `W/"a-gzip"`. */
export function withCoding(etag: string, coding: string): string {
  return `${etag.slice(0, -1)}-${coding}"`
}

/**
 * Whether a tag the client holds stands for the current tag: the same opaque-tag, or the
 * same once a content-coding suffix is removed (the client holds an encoded copy of the same
 * representation). `strong` also requires both tags to be strong. With `accepts`, a suffixed
 * tag matches only when `accepts(coding)`: a 304 for `If-None-Match` lets a cache send the copy
 * it holds, which must be one the request can take (see `acceptsCoding`).
 */
export function tagMatches(
  held: EntityTag,
  current: EntityTag,
  strong: boolean,
  accepts?: (coding: string) => boolean,
): boolean {
  if (strong && (held.weak || current.weak)) return false
  if (held.opaque === current.opaque) return true
  const coding = codingOf(held.opaque)
  return (
    coding !== undefined &&
    stripCoding(held.opaque, coding) === current.opaque &&
    (accepts === undefined || accepts(coding))
  )
}

/**
 * Finds the member of a parsed list that matches `current` (the list `*` matches anything),
 * and returns it, or undefined. `accepts` as for `tagMatches`.
 */
export function findMatch(
  list: EntityTagList,
  current: EntityTag,
  strong: boolean,
  accepts?: (coding: string) => boolean,
): EntityTag | undefined {
  if (list === '*') return current
  for (const held of list) {
    if (tagMatches(held, current, strong, accepts)) return held
  }
  return undefined
}

/**
 * Whether a tag the client holds names the state `current` is the tag of: it matches as
 * `tagMatches` does, or it is the tag of another representation of that state, `current` with
 * a representation key (`"7;xml"`, `"7;hal;de"` for `"7"`, see `withRepresentation`), perhaps
 * with a coding suffix too. What a write compares: the client holds the current state, in
 * whatever form it read it. `strong` as for `tagMatches`.
 */
export function namesState(held: EntityTag, current: EntityTag, strong: boolean): boolean {
  if (strong && (held.weak || current.weak)) return false
  if (tagMatches(held, current, strong)) return true
  const coding = codingOf(held.opaque)
  const opaque = coding === undefined ? held.opaque : stripCoding(held.opaque, coding)
  const state = current.opaque.slice(0, -1)
  return opaque.length > state.length + 2 && opaque.startsWith(`${state};`)
}

/** The member of a parsed list that names the state `current` is the tag of (`namesState`). */
export function findState(
  list: EntityTagList,
  current: EntityTag,
  strong: boolean,
): EntityTag | undefined {
  if (list === '*') return current
  return list.find((held) => namesState(held, current, strong))
}

/**
 * The tag of one representation of a state: `;<key>` added inside the quotes (`"7"` →
 * `"7;xml"`), the key saying what tells it from the default representation (the
 * `REPRESENTATION` of `@restwell/core`); the tag itself when there is none. A strong tag names
 * one representation only (RFC 9110 §8.8.3).
 */
export function withRepresentation(tag: EntityTag, key: string | undefined): EntityTag {
  return key === undefined ? tag : { weak: tag.weak, opaque: `${tag.opaque.slice(0, -1)};${key}"` }
}

/** A version, or the versions of the parts a representation is made of (`combineVersions`). */
export type Version = string | number | readonly (string | number)[]

const VERSION_PART = /^[A-Za-z0-9_-]+$/

/**
 * One version made of several, for a representation built from several stored parts (a book
 * with its author embedded): it changes whenever one of them does. `[3, 7]` → `'3.7'`; parts
 * holding other characters than letters, digits, `_` and `-` are hashed together instead.
 *
 * @example
 * reply.etag(combineVersions([book.version, author.version]))  // ETag: "3.7"
 */
export function combineVersions(versions: readonly (string | number)[]): string {
  const parts = versions.map(String)
  return parts.every((part) => VERSION_PART.test(part))
    ? parts.join('.')
    : identityDigest(JSON.stringify(parts))
}

/** Serialises an entity-tag as an ETag header value. */
export function formatEntityTag(tag: EntityTag): string {
  return tag.weak ? `W/${tag.opaque}` : tag.opaque
}

/**
 * Makes an ETag header value from a handler-given validator: an already quoted entity-tag
 * (`"v7"`, `W/"v7"`) is kept; any other string or number is quoted; a list of versions is
 * combined first (`combineVersions`). A value holding characters an entity-tag cannot carry is
 * replaced by its hash.
 */
export function toEntityTag(value: Version, weak = false): EntityTag {
  const text = typeof value === 'object' ? combineVersions(value) : String(value)
  const parsed = text.charCodeAt(text.length - 1) === 0x22 ? parseEntityTag(text) : undefined
  if (parsed !== undefined) return weak ? { weak: true, opaque: parsed.opaque } : parsed
  let valid = text.length > 0
  for (let i = 0; valid && i < text.length; i++) valid = isEtagc(text.charCodeAt(i))
  return { weak, opaque: valid ? `"${text}"` : `"${identityDigest(text)}"` }
}

/** The ETag of a body: the quoted hash of its exact bytes, weak when asked. */
export function hashEntityTag(payload: string | Buffer, weak = false): EntityTag {
  return { weak, opaque: `"${identityDigest(payload)}"` }
}
