/**
 * Route naming rules of spec part 2: collections are plural nouns, lowercase, words joined by
 * hyphens; collections and ids alternate (`/{collection}/{id}/{sub-collection}/{sub_id}`);
 * nesting is at most `maxDepth` collections deep.
 */
import { createRequire } from 'node:module'
import type Pluralize from 'pluralize'
import type { ResolvedNamingOptions } from './options.js'

let words: typeof Pluralize | undefined

/** pluralize, loaded when the first route is checked: importing the package does not load it. */
function pluralize(): typeof Pluralize {
  words ??= createRequire(import.meta.url)('pluralize') as typeof Pluralize
  return words
}

/** The rules, by the name reports use. */
export type NamingRule =
  | 'lowercase-hyphenated'
  | 'plural-collection'
  | 'alternation'
  | 'nesting-depth'

/** One rule one route breaks. */
export interface NamingViolation {
  rule: NamingRule
  /** The offending segment (or the whole checked path for `nesting-depth`). */
  segment: string
  message: string
}

/** Lowercase words of letters and digits, starting with a letter, joined by single hyphens. */
function isKebab(segment: string): boolean {
  let previousHyphen = true
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i)
    if (c === 45) {
      if (previousHyphen) return false
      previousHyphen = true
      continue
    }
    const letter = c >= 97 && c <= 122
    const digit = c >= 48 && c <= 57
    if (!letter && !(digit && i > 0)) return false
    previousHyphen = false
  }
  return !previousHyphen
}

function isVersionSegment(segment: string): boolean {
  if (segment.length < 2 || segment[0] !== 'v') return false
  for (let i = 1; i < segment.length; i++) {
    const c = segment.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

/** True when a path starts with `prefix` at a segment boundary. */
function startsWithSegment(path: string, prefix: string): boolean {
  if (prefix === '/') return true
  return path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47)
}

/** Whether the options exclude this route from the checks. */
export function isExcluded(url: string, options: ResolvedNamingOptions): boolean {
  return options.exclude.some((prefix) => startsWithSegment(url, prefix))
}

/** The well-known leading segment that names an API, not a collection (`/api/books`). */
export const API_SEGMENT = 'api'

/**
 * The segments that name resources: a configured prefix removed, then a leading `api` and a
 * leading `/v<N>` (one of each, in either order: `/api/v1`, `/v1/api`), empty ones dropped.
 */
export function resourceSegments(url: string, options: ResolvedNamingOptions): string[] {
  let path = url
  const prefix = options.prefixes.find((p) => startsWithSegment(path, p))
  if (prefix !== undefined && prefix !== '/') path = path.slice(prefix.length)
  const segments = path.split('/').filter((s) => s !== '')
  let api = options.apiPrefix
  let version = options.versionPrefix
  for (;;) {
    const first = segments[0]
    if (api && first === API_SEGMENT) api = false
    else if (version && first !== undefined && isVersionSegment(first)) version = false
    else return segments
    segments.shift()
  }
}

function isPluralName(segment: string, allow: ReadonlySet<string>): boolean {
  if (allow.has(segment)) return true
  const last = segment.slice(segment.lastIndexOf('-') + 1)
  return allow.has(last) || pluralize().isPlural(last)
}

/** Every rule the route path breaks (empty when it follows them all). */
export function checkRouteName(url: string, options: ResolvedNamingOptions): NamingViolation[] {
  const violations: NamingViolation[] = []
  let collections = 0
  let expectCollection = true
  for (const segment of resourceSegments(url, options)) {
    // A wildcard is opaque: nothing after it is a resource name.
    if (segment.includes('*')) break
    const isParameter = segment.includes(':')
    if (isParameter !== !expectCollection) {
      violations.push({
        rule: 'alternation',
        segment,
        message: isParameter
          ? `parameter "${segment}" must follow a collection name (/{collection}/{id})`
          : `"${segment}" follows another name: collections and ids alternate (/{collection}/{id}/{sub-collection})`,
      })
    }
    expectCollection = isParameter
    if (isParameter) continue
    collections++
    if (!isKebab(segment)) {
      violations.push({
        rule: 'lowercase-hyphenated',
        segment,
        message: `"${segment}" must be lowercase words joined by hyphens`,
      })
    } else if (!isPluralName(segment, options.allow)) {
      violations.push({
        rule: 'plural-collection',
        segment,
        message: `"${segment}" must be a plural noun (e.g. "${pluralize().plural(segment)}")`,
      })
    }
  }
  if (collections > options.maxDepth) {
    violations.push({
      rule: 'nesting-depth',
      segment: url,
      message: `${collections} collections deep; at most ${options.maxDepth}`,
    })
  }
  return violations
}
