/** Matches a request path against Fastify route patterns, for `Accept-Patch` on OPTIONS and 405. */

/** Longest request path matched; a longer one matches no pattern. */
const MAX_PATH = 2048

export interface MatchOptions {
  caseSensitive: boolean
  ignoreTrailingSlash: boolean
}

const SPECIAL = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}'])

function isNameChar(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_'
}

/** The text between balanced parentheses starting at `open`, and the index after them. */
function group(url: string, open: number): { body: string; next: number } {
  let depth = 0
  for (let i = open; i < url.length; i++) {
    const c = url[i]
    if (c === '\\') i++
    else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return { body: url.slice(open + 1, i), next: i + 1 }
  }
  return { body: url.slice(open + 1), next: url.length }
}

/**
 * Turns a Fastify (find-my-way) route pattern into a RegExp over request paths: static text,
 * `:param`, `:param(regex)`, several parameters in one segment (`/:from-:to`), `::` for a
 * literal colon, and `*`.
 */
export function compileRoutePattern(url: string, options: MatchOptions): RegExp {
  let pattern = url
  if (options.ignoreTrailingSlash && pattern.length > 1 && pattern.endsWith('/')) {
    pattern = pattern.slice(0, -1)
  }
  let source = ''
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === ':' && pattern[i + 1] === ':') {
      source += ':'
      i += 2
    } else if (c === ':') {
      i++
      while (i < pattern.length && isNameChar(pattern[i]!)) i++
      if (pattern[i] === '(') {
        const { body, next } = group(pattern, i)
        source += `(?:${body.replace(/^\^/, '').replace(/\$$/, '')})`
        i = next
      } else {
        const last = i >= pattern.length || pattern[i] === '/'
        source += last ? '[^/]+' : '[^/]+?'
      }
    } else if (c === '*') {
      source += '.*'
      i++
    } else {
      source += SPECIAL.has(c) ? `\\${c}` : c
      i++
    }
  }
  const slash = options.ignoreTrailingSlash && pattern !== '/' ? '/?' : ''
  return new RegExp(`^${source}${slash}$`, options.caseSensitive ? '' : 'i')
}

/** The path part of a request URL (no query string), or undefined when it is too long. */
export function pathOf(url: string): string | undefined {
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  return path.length > MAX_PATH ? undefined : path
}
