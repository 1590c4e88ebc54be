/**
 * Matches a request URL against Fastify route patterns, for `Accept-Patch` on OPTIONS and 405,
 * the way Fastify's router (find-my-way) does, with the app's router options: the path is cut
 * at `?` and `#` (and `;` with `useSemicolonDelimiter`), percent-decoded except for the escapes
 * of reserved characters (RFC 3986 §2.2: `%2F` stays a character of a segment, not a `/`),
 * `//` collapsed with `ignoreDuplicateSlashes`, a trailing `/` dropped with
 * `ignoreTrailingSlash`, compared case-insensitively without `caseSensitive`; a parameter
 * longer than `maxParamLength` matches nothing. An absolute-form target
 * (`http://host/books/1`, RFC 9112 §3.2.2) is read as its path.
 *
 * find-my-way itself is not a dependency of this package (only of Fastify): its lookup is
 * mirrored here, and a property test checks this matcher against Fastify's own router.
 */

/** The router options that decide which paths a route matches. */
export interface MatchOptions {
  caseSensitive: boolean
  ignoreTrailingSlash: boolean
  ignoreDuplicateSlashes: boolean
  useSemicolonDelimiter: boolean
  maxParamLength: number
}

/** The router options that decide matching, as Fastify was given them (`initialConfig`). */
export function matchOptionsOf(initialConfig: object): MatchOptions {
  const config = initialConfig as Readonly<Record<string, unknown>>
  const router = (config.routerOptions ?? {}) as Readonly<Record<string, unknown>>
  // Fastify 5 takes these at the top level (deprecated) or under `routerOptions`.
  const option = (name: string): unknown => router[name] ?? config[name]
  const maxParamLength = option('maxParamLength')
  return {
    caseSensitive: option('caseSensitive') !== false,
    ignoreTrailingSlash: option('ignoreTrailingSlash') === true,
    ignoreDuplicateSlashes: option('ignoreDuplicateSlashes') === true,
    useSemicolonDelimiter: option('useSemicolonDelimiter') === true,
    // Fastify's default, which it always shows in initialConfig.
    maxParamLength: typeof maxParamLength === 'number' ? maxParamLength : 100,
  }
}

/** A request path as the router compares it. */
export interface RequestTarget {
  /** The path compared with static text: lower case without `caseSensitive`. */
  readonly path: string
  /** The path parameters are read from (its case kept). */
  readonly origin: string
  /** The path holds escapes of reserved characters, decoded in parameter values. */
  readonly decodeParams: boolean
}

/** One part of a route pattern, in path order. */
type Part =
  | { readonly kind: 'static'; readonly text: string }
  | { readonly kind: 'param' }
  | {
      readonly kind: 'regex'
      readonly regex: RegExp
      /** Parameters in the segment, and the length of its static text (for the length bound). */
      readonly params: number
      readonly staticLength: number
    }
  | { readonly kind: 'wildcard' }

/** A compiled route pattern. */
export interface RouteMatcher {
  matches(target: RequestTarget): boolean
}

const SLASH = 47
const COLON = 58
const STAR = 42
const OPEN = 40
const CLOSE = 41
const BACKSLASH = 92

/** Escapes that decodeURI leaves encoded (reserved characters, and `%` itself), as find-my-way. */
const RESERVED_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['23', '#'],
  ['24', '$'],
  ['25', '%'],
  ['26', '&'],
  ['2B', '+'],
  ['2b', '+'],
  ['2C', ','],
  ['2c', ','],
  ['2F', '/'],
  ['2f', '/'],
  ['3A', ':'],
  ['3a', ':'],
  ['3B', ';'],
  ['3b', ';'],
  ['3D', '='],
  ['3d', '='],
  ['3F', '?'],
  ['3f', '?'],
  ['40', '@'],
])

const DUPLICATE_SLASHES = /\/\/+/g
const PERCENT_25 = /%25/g
const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\]/g
/** A last parameter marked optional (`/books/:id?`), as find-my-way reads it. */
const OPTIONAL_PARAM = /(\/:[^/()]*?)\?(\/?)/
/** Matches no string. */
const NOTHING = /(?!)/

function trimLastSlash(path: string): string {
  return path.length > 1 && path.charCodeAt(path.length - 1) === SLASH ? path.slice(0, -1) : path
}

/**
 * The path of an absolute-form target, as find-my-way reads it; undefined for a bad URL and for
 * any other form (`*` of `OPTIONS *` asks about the server, not a resource: RFC 9110 §9.3.7).
 */
function absolutePath(url: string): string | undefined {
  const schemeEnd = url.indexOf('://')
  const scheme = url.slice(0, Math.max(schemeEnd, 0)).toLowerCase()
  if (scheme !== 'http' && scheme !== 'https') return undefined
  const authorityStart = schemeEnd + 3
  const pathStart = url.indexOf('/', authorityStart)
  const queryStart = url.indexOf('?', authorityStart)
  let authorityEnd = pathStart === -1 ? url.length : pathStart
  if (queryStart !== -1 && queryStart < authorityEnd) authorityEnd = queryStart
  if (url.includes('#', authorityStart) || authorityEnd === authorityStart) return undefined
  // An http(s) URL that parses has a host (WHATWG URL: special schemes need one).
  if (!URL.canParse(url)) return undefined
  if (authorityEnd === url.length) return '/'
  return authorityEnd === queryStart ? `/${url.slice(queryStart)}` : url.slice(pathStart)
}

/**
 * The path of a request URL as the router compares it, or undefined when the router finds no
 * route for it (a malformed percent-encoding or absolute URL: Fastify answers 400).
 */
export function requestTarget(url: string, options: MatchOptions): RequestTarget | undefined {
  let path: string | undefined = url
  if (path.charCodeAt(0) !== SLASH) {
    path = absolutePath(path)
    if (path === undefined) return undefined
  }
  // The query (and fragment) start at the first delimiter after the first character.
  for (let i = 1; i < path.length; i++) {
    const c = path[i]
    if (c === '?' || c === '#' || (c === ';' && options.useSemicolonDelimiter)) {
      path = path.slice(0, i)
      break
    }
  }
  let decode = false
  let decodeParams = false
  for (let i = path.indexOf('%', 1); i !== -1; i = path.indexOf('%', i + 1)) {
    if (RESERVED_ESCAPES.has(path.slice(i + 1, i + 3))) {
      decodeParams = true
      if (path[i + 1] === '2' && path[i + 2] === '5') decode = true
      i += 2
    } else {
      decode = true
    }
  }
  if (decode) {
    try {
      // `%25` is kept as it is: decodeURI would turn it into a `%` starting another escape.
      path = decodeURI(path.replace(PERCENT_25, '%2525'))
    } catch {
      return undefined
    }
  }
  if (options.ignoreDuplicateSlashes) path = path.replace(DUPLICATE_SLASHES, '/')
  if (options.ignoreTrailingSlash) path = trimLastSlash(path)
  return {
    path: options.caseSensitive ? path : path.toLowerCase(),
    origin: path,
    decodeParams,
  }
}

/** A parameter value with the escapes of reserved characters decoded (find-my-way's). */
function decodeReserved(value: string): string {
  let out = ''
  let last = 0
  for (let i = value.indexOf('%'); i !== -1; i = value.indexOf('%', i + 1)) {
    // After requestTarget, every `%` left starts the escape of a reserved character.
    out += value.slice(last, i) + RESERVED_ESCAPES.get(value.slice(i + 1, i + 3))
    last = i + 3
  }
  return out + value.slice(last)
}

/** Index of the parenthesis closing the one at `open`; the end of `url` when unbalanced. */
function closingParenthesis(url: string, open: number): number {
  let depth = 1
  let i = open
  while (i < url.length) {
    i++
    const c = url.charCodeAt(i)
    if (c === BACKSLASH) i++
    else if (c === CLOSE && --depth === 0) return i
    else if (c === OPEN) depth++
  }
  // find-my-way refuses such a route when Fastify adds it.
  return url.length
}

/** A regex given in a pattern, without its `^` and `$` anchors. */
function trimAnchors(regex: string): string {
  let out = regex
  if (out.charCodeAt(1) === 94) out = out.slice(0, 1) + out.slice(2)
  if (out.charCodeAt(out.length - 2) === 36) out = out.slice(0, -2) + out.slice(-1)
  return out
}

function staticText(text: string): string {
  return text.replaceAll('::', ':').replaceAll('%', '%25')
}

/**
 * Reads the parameters starting after the `:` at `at` up to the end of their segment (find-my-
 * way's parametric node): one plain parameter, or a regex over the segment when it has a
 * `(regex)`, several parameters or static text after one (`/:from-:to`, `/:file.json`).
 */
function parametric(pattern: string, at: number): { part: Part; end: number } {
  const regexps: string[] = []
  let isRegex = false
  let safe = true
  let backtrack = ''
  let params = 0
  let staticLength = 0
  let j = at + 1
  for (; ; j++) {
    const c = pattern.charCodeAt(j)
    const regexParam = c === OPEN
    const staticPart = c === 45 || c === 46 // `-` or `.` ends a parameter name
    const endOfNode = c === SLASH || j >= pattern.length
    if (!regexParam && !staticPart && !endOfNode) continue
    params++
    isRegex ||= regexParam || staticPart
    if (regexParam) {
      const close = closingParenthesis(pattern, j)
      regexps.push(trimAnchors(pattern.slice(j, close + 1)))
      j = close + 1
      safe = true
    } else {
      regexps.push(safe ? '(.*?)' : `(${backtrack}|(?:(?!${backtrack}).)*)`)
      safe = false
    }
    const start = j
    for (; j < pattern.length; j++) {
      const d = pattern.charCodeAt(j)
      if (d === SLASH) break
      if (d === COLON) {
        if (pattern.charCodeAt(j + 1) === COLON) j++
        else break
      }
    }
    const text = staticText(pattern.slice(start, j))
    if (text !== '') {
      backtrack = text.replace(REGEXP_SPECIAL, '\\$&')
      regexps.push(backtrack)
      staticLength += text.length
    }
    if (j >= pattern.length || pattern.charCodeAt(j) === SLASH) break
  }
  if (!isRegex) return { part: { kind: 'param' }, end: j }
  let regex: RegExp
  try {
    regex = new RegExp(`^${regexps.join('')}$`)
  } catch {
    // Fastify refuses the route when it is added (find-my-way compiles the same regex).
    regex = NOTHING
  }
  return { part: { kind: 'regex', regex, params, staticLength }, end: j }
}

/** The parts of one pattern (no optional parameter), as find-my-way stores a route. */
function parts(url: string, options: MatchOptions): Part[] {
  let pattern = url
  if (options.ignoreDuplicateSlashes) pattern = pattern.replace(DUPLICATE_SLASHES, '/')
  if (options.ignoreTrailingSlash) pattern = trimLastSlash(pattern)
  const out: Part[] = []
  let staticStart = 0
  for (let i = 0; i <= pattern.length; i++) {
    const c = pattern.charCodeAt(i)
    if (c === COLON && pattern.charCodeAt(i + 1) === COLON) {
      i++
      continue
    }
    const isParam = c === COLON
    const isWildcard = c === STAR
    if (isParam || isWildcard || (i === pattern.length && i !== staticStart)) {
      const text = pattern.slice(staticStart, i)
      if (text !== '') {
        out.push({
          kind: 'static',
          text: staticText(options.caseSensitive ? text : text.toLowerCase()),
        })
      }
    }
    if (isParam) {
      const { part, end } = parametric(pattern, i)
      out.push(part)
      staticStart = end
      i = end - 1
    } else if (isWildcard) {
      out.push({ kind: 'wildcard' })
      staticStart = i + 1
    }
  }
  return out
}

function matchParts(
  route: readonly Part[],
  target: RequestTarget,
  maxParamLength: number,
): boolean {
  const { path, origin } = target
  let at = 0
  for (const part of route) {
    if (part.kind === 'static') {
      if (!path.startsWith(part.text, at)) return false
      at += part.text.length
      continue
    }
    if (part.kind === 'wildcard') return true
    let end = origin.indexOf('/', at)
    if (end === -1) end = origin.length
    const value = target.decodeParams
      ? decodeReserved(origin.slice(at, end))
      : origin.slice(at, end)
    if (part.kind === 'param') {
      if (value.length > maxParamLength) return false
    } else {
      if (value.length > part.params * maxParamLength + part.staticLength) return false
      const found = part.regex.exec(value)
      if (found === null) return false
      for (let g = 1; g < found.length; g++) {
        if ((found[g] ?? '').length > maxParamLength) return false
      }
    }
    at = end
  }
  return at === path.length
}

/**
 * Compiles a Fastify route pattern: static text, `:param`, `:param(regex)`, several parameters
 * in one segment (`/:from-:to`), `::` for a literal colon, `*`, and a last optional parameter
 * (`/books/:id?`, which find-my-way adds as two routes).
 */
export function compileRoutePattern(url: string, options: MatchOptions): RouteMatcher {
  const optional = OPTIONAL_PARAM.exec(url)
  const variants = optional
    ? [url.replace(OPTIONAL_PARAM, '$1$2'), url.replace(OPTIONAL_PARAM, '$2') || '/']
    : [url]
  const compiled = variants.map((variant) => parts(variant, options))
  return {
    matches: (target) =>
      compiled.some((route) => matchParts(route, target, options.maxParamLength)),
  }
}
