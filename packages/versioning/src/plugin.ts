/** The `@restwell/versioning` plugin: URL prefix, Accept and query carriers, decided by routing. */
import type { IncomingMessage } from 'node:http'
import {
  API_VERSIONS,
  appendLink,
  appendVary,
  initialOptions,
  keyedConstraintStore,
  onEveryRoute,
  overrideTwinOf,
  type RequestStep,
  type RouteEntry,
  registerOnce,
  routeName,
  type SendStep,
  safePath,
  servedMethods,
  shareLookupConstraint,
  snapshotRoutes,
  useRootRequestStep,
  useSendStep,
  VERSION_PAIR,
  type VersionPair,
  versionPairOf,
  whenPlanned,
} from '@restwell/core'
import { ErrorCode, type HttpError, httpErrors, validateOptions } from '@restwell/errors'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyRequest,
  HTTPMethods,
  onRequestHookHandler,
  RouteOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import { joinUrl, queryValues, splitUrl, withoutQueryParam } from '@restwell/reroute'
import {
  type AcceptedVersion,
  askedVersions,
  bestVersion,
  parseAcceptVersions,
  versionMediaType,
} from './accept.js'
import { linkValue } from './lifecycle.js'
import { movedLocation } from './moved.js'
import {
  checkServedVersions,
  resolveVersioningOptions,
  type VersioningOptions,
  VersioningOptionsSchema,
} from './options.js'
import { VERSION_CONSTRAINT, versionTwinDescription } from './pair.js'
import { parseVersionNumber, prefixVersion } from './version.js'

/** What a request's carriers say, read once per request (by routing, or by the check). */
interface Carried {
  /** Unprefixed URL: the version `?version=` or `Accept` carries (a supported one). */
  readonly explicit: number | undefined
  /** The 4xx the carriers make: answered before the route runs. */
  readonly error: HttpError | undefined
  /** `carriers.prefix: false` and the URL has a `/v<N>` prefix: a 404. */
  readonly prefixRefused: boolean
  /** The URL's `/v<N>` prefix names an unsupported version: a 404 where no route matched. */
  readonly unknownPrefix: number | undefined
  /** `Accept` carried the version served (the versioned media type is answered). */
  readonly accept: boolean
  /** The URL has no version prefix. */
  readonly unprefixed: boolean
}

const PLAIN: Omit<Carried, 'unprefixed'> = {
  explicit: undefined,
  error: undefined,
  prefixRefused: false,
  unknownPrefix: undefined,
  accept: false,
}
/** A request that carries nothing, the common case: one object each, no allocation. */
const PLAIN_UNPREFIXED: Carried = { ...PLAIN, unprefixed: true }
const PLAIN_PREFIXED: Carried = { ...PLAIN, unprefixed: false }

const CARRIED: unique symbol = Symbol.for('restwell.versioning.carried') as typeof CARRIED
/** The version an unprefixed request is routed by (`null`: none), decided at its first twin. */
const ROUTED: unique symbol = Symbol.for('restwell.versioning.routed') as typeof ROUTED
type Marked = IncomingMessage & { [CARRIED]?: Carried; [ROUTED]?: string | null }

/** Most query values of the version parameter looked at. */
const MAX_QUERY_VERSIONS = 8
const VND_MARKER = /vnd\.api\.v/i

const plugin: FastifyPluginAsync<VersioningOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/versioning', 'versioning')
  const options = resolveVersioningOptions(
    validateOptions('@restwell/versioning', VersioningOptionsSchema, rawOptions),
  )
  if (fastify.hasPlugin('@restwell/methods')) {
    throw new Error(
      '@restwell/versioning: register it before @restwell/methods, or a request its carriers refuse (400, 406) or its moved paths redirect would answer 405',
    )
  }
  /** What serves an unprefixed URL by version: each `/v<N>` route then gets an unprefixed twin. */
  const unprefixedCarriers = [
    options.accept ? 'Accept' : '',
    options.query === false ? '' : `?${options.query}=`,
    options.routeToDefault ? 'the default version' : '',
  ].filter((name) => name !== '')
  const discovered = new Set<number>()
  let supportedList: number[] = []
  let defaultVersion: number | undefined
  /** The constraint value of the default version's twins (set when ready). */
  let defaultKey: string | undefined

  const supported = (version: number): boolean =>
    options.versions === undefined ? discovered.has(version) : options.versions.has(version)

  /** `UNKNOWN_VERSION`: `message` (what was refused), then the supported versions. */
  function unknownVersion(
    status: 'notFound' | 'notAcceptable' | 'badRequest',
    message: string,
    field: string,
  ): HttpError {
    // An app with no `/v<N>` routes (yet) serves no version: said so, with no empty `Accept`.
    const list = supportedList.length > 0 ? supportedList.join(', ') : 'none'
    return httpErrors[status](`${message}; supported versions: ${list}`, {
      code: ErrorCode.UNKNOWN_VERSION,
      details: [{ field, message: `supported versions: ${list}`, code: ErrorCode.UNKNOWN_VERSION }],
      headers:
        status === 'notAcceptable' && supportedList.length > 0
          ? { accept: supportedList.map(versionMediaType).join(', ') }
          : {},
    })
  }

  /**
   * The 406 for an Accept whose versioned ranges name no version that can be served (and that
   * accepts nothing else): the versions it asks for, which are all unsupported, or, when it
   * gives every version it names q=0, that.
   */
  function unacceptableVersions(accepted: readonly AcceptedVersion[]): HttpError {
    const { versions, more } = askedVersions(accepted)
    const named = `${versions.join(', ')}${more ? ', …' : ''}`
    const message =
      versions.length === 0
        ? 'Accept accepts none of the versions it names (q=0)'
        : versions.length === 1
          ? `Version ${named} in Accept is not supported`
          : `Versions ${named} in Accept are not supported`
    return unknownVersion('notAcceptable', message, 'headers/accept')
  }

  function conflicting(a: string, b: string, field: string): HttpError {
    return httpErrors.badRequest(`Conflicting versions: ${a} and ${b}`, {
      code: ErrorCode.CONFLICTING_VERSIONS,
      details: [{ field, message: `disagrees with ${a}`, code: ErrorCode.CONFLICTING_VERSIONS }],
    })
  }

  const queryField = `querystring/${options.query}`

  /**
   * `path` (which names a version by its `/v<N>` prefix) with `query`, less the version
   * parameter: the prefix carries the version, and a `?version=` left beside it would make the
   * URL a 400 CONFLICTING_VERSIONS whenever the two differ. Other pairs are kept byte for byte
   * (the caller makes the URL a valid URI-Reference with `safePath`).
   */
  function versionedUrl(path: string, query: string | undefined): string {
    if (query === undefined || options.query === false) return joinUrl(path, query)
    // As in `readCarriers`: the parameter is a carrier only when its name is there unescaped
    // (then every spelling of it counted, and every one goes).
    if (!query.includes(options.query)) return joinUrl(path, query)
    return joinUrl(path, withoutQueryParam(query, options.query))
  }

  /** The version of `?version=`, undefined, or the 400 of a malformed, unknown or conflicting one. */
  function queryVersion(values: readonly string[]): number | HttpError | undefined {
    let version: number | undefined
    for (const value of values.slice(0, MAX_QUERY_VERSIONS)) {
      const parsed = parseVersionNumber(value)
      if (parsed === undefined || !supported(parsed)) {
        return unknownVersion(
          'badRequest',
          `Version ${JSON.stringify(value.slice(0, 16))} is not supported`,
          queryField,
        )
      }
      if (version !== undefined && parsed !== version) {
        return conflicting(
          `?${options.query}=${version}`,
          `?${options.query}=${parsed}`,
          queryField,
        )
      }
      version = parsed
    }
    return version
  }

  /** What the URL and headers of a request carry (see `read`). */
  function readCarriers(url: string, acceptHeader: string | undefined): Carried {
    const prefix = prefixVersion(url)
    const accept = options.accept ? acceptHeader : undefined
    const acceptCarries = accept !== undefined && VND_MARKER.test(accept)
    let values: string[] | undefined
    if (options.query !== false) {
      const q = url.indexOf('?')
      if (q !== -1 && url.includes(options.query, q)) {
        const found = queryValues(url.slice(q + 1), options.query)
        if (found.length > 0) values = found
      }
    }
    // Fast path: nothing carried, and no prefix or a supported one.
    if (
      !acceptCarries &&
      values === undefined &&
      (prefix === undefined || (options.prefix && supported(prefix.version)))
    ) {
      return prefix === undefined ? PLAIN_UNPREFIXED : PLAIN_PREFIXED
    }
    const unprefixed = prefix === undefined
    if (!unprefixed && !options.prefix) return { ...PLAIN_PREFIXED, prefixRefused: true }
    let fixed: number | undefined
    let unknownPrefix: number | undefined
    if (prefix !== undefined) {
      if (supported(prefix.version)) fixed = prefix.version
      else unknownPrefix = prefix.version
    }
    const refuse = (error: HttpError): Carried => ({ ...PLAIN, unknownPrefix, error, unprefixed })
    const fromQuery = values === undefined ? undefined : queryVersion(values)
    if (fromQuery instanceof Error) return refuse(fromQuery)
    if (fixed !== undefined && fromQuery !== undefined && fixed !== fromQuery) {
      return refuse(conflicting(`/v${fixed}`, `?${options.query}=${fromQuery}`, queryField))
    }
    const pinned = fixed ?? fromQuery
    let fromAccept: number | undefined
    if (acceptCarries) {
      const parsed = parseAcceptVersions(accept)
      if (parsed.versions.length > 0) {
        if (pinned !== undefined) {
          if (parsed.versions.some((v) => v.version === pinned && v.q > 0)) fromAccept = pinned
          else if (parsed.versions.some((v) => supported(v.version))) {
            const pinnedBy = fixed !== undefined ? `/v${fixed}` : `?${options.query}=${pinned}`
            return refuse(conflicting(pinnedBy, 'Accept', 'headers/accept'))
          } else if (!parsed.other) {
            return refuse(unacceptableVersions(parsed.versions))
          }
        } else {
          fromAccept = bestVersion(parsed.versions, supported)
          if (fromAccept === undefined && !parsed.other) {
            return refuse(unacceptableVersions(parsed.versions))
          }
        }
      }
    }
    if (!unprefixed) {
      // A prefixed URL is routed by its path; the carriers only agreed with it.
      return {
        ...PLAIN,
        unknownPrefix,
        accept: fixed !== undefined && fromAccept !== undefined,
        unprefixed,
      }
    }
    return {
      ...PLAIN,
      explicit: fromQuery ?? fromAccept,
      accept: fromAccept !== undefined,
      unprefixed,
    }
  }

  /** The carriers of `raw`, read once: by routing (the version constraint), or by the check. */
  function read(raw: Marked): Carried {
    const known = raw[CARRIED]
    if (known !== undefined) return known
    const carried = readCarriers(raw.url as string, raw.headers.accept)
    raw[CARRIED] = carried
    return carried
  }

  /** First path segments of the app's own unprefixed routes (lower case), for `mayBeServed`. */
  const ownFirst = new Set<string>()
  let ownAnyFirst = false
  const caseSensitive =
    (fastify.initialConfig as { caseSensitive?: boolean }).caseSensitive !== false

  /** A path's first segment, up to `/` or `;` (which the router may read as a delimiter). */
  function firstSegment(path: string): string {
    let end = 1
    while (end < path.length && path[end] !== '/' && path[end] !== ';') end++
    const segment = path.slice(1, end)
    return caseSensitive ? segment : segment.toLowerCase()
  }

  /** Whether some own route of the app could match `path` (its first segment tells). */
  function mayBeServed(path: string): boolean {
    if (ownAnyFirst) return true
    const first = firstSegment(path)
    return first.includes('%') || ownFirst.has(first)
  }

  /**
   * An unprefixed path some route of the app answers for any method: the request is that
   * resource's (its own route, or its 405), not the default version's. OPTIONS does not count:
   * a catch-all `OPTIONS *` (as `@fastify/cors` adds) makes no resource.
   */
  function servedUnprefixed(path: string): boolean {
    for (const method of resourceMethods) {
      if (fastify.findRoute({ method, url: path }) !== null) return true
    }
    return false
  }
  /** The methods that can make a resource, set when ready (`supportedMethods` is a new array per read). */
  let resourceMethods: HTTPMethods[] = []

  /** Whether an unprefixed request that carries no version goes to the default version. */
  function toDefault(raw: Marked): boolean {
    if (!options.routeToDefault || defaultKey === undefined) return false
    const path = splitUrl(raw.url as string).path
    if (options.moved.length > 0 && movedLocation(options.moved, path) !== undefined) return false
    return !(mayBeServed(path) && servedUnprefixed(path))
  }

  /**
   * The version (a constraint value) an unprefixed request is routed by: the one its carriers
   * name, or the default one when it names none and the app has no route of its own for the
   * path; null for none. Decided at the first twin routing meets, then kept.
   */
  function routedVersion(raw: Marked): string | null {
    const known = raw[ROUTED]
    if (known !== undefined) return known
    const carried = read(raw)
    const routed =
      carried.explicit !== undefined
        ? String(carried.explicit)
        : carried.error === undefined && toDefault(raw)
          ? (defaultKey as string)
          : null
    raw[ROUTED] = routed
    return routed
  }

  // An unprefixed request reaches a version's twin when its carriers name that version, or it
  // names none and the twin is the default version's: routing decides, once.
  fastify.addConstraintStrategy({
    name: VERSION_CONSTRAINT,
    mustMatchWhenDerived: false,
    // Routing asks with the request (derived below), and the version is decided then.
    storage: () => keyedConstraintStore((asked) => routedVersion(asked as Marked)),
    // The request itself: what it carries is read only where routing meets a version's twin.
    // A prefixed URL is routed by its path alone.
    deriveConstraint: (req: IncomingMessage) =>
      (prefixVersion(req.url as string) === undefined ? req : undefined) as unknown as string,
  })
  /**
   * The 405's `Allow` counts the twins of the version the request is routed by: shared once the
   * first twin exists (an app without versions asks the router as it is).
   */
  let sharedLookup = false
  function shareLookup(): void {
    if (sharedLookup) return
    sharedLookup = true
    shareLookupConstraint(fastify, VERSION_CONSTRAINT, (raw) =>
      prefixVersion(raw.url as string) === undefined ? raw : undefined,
    )
  }

  /** Answers what the carriers refuse, before anything else reads the request. */
  const check: RequestStep = function restwellVersioning(request) {
    const carried = read(request.raw)
    if (carried === PLAIN_UNPREFIXED || carried === PLAIN_PREFIXED) return undefined
    if (carried.prefixRefused) {
      return httpErrors.notFound(`Route ${request.method} ${splitUrl(request.url).path} not found`)
    }
    if (carried.unknownPrefix !== undefined && request.is404) {
      if (movedLocation(options.moved, splitUrl(request.url).path) !== undefined) return undefined
      // `path/0`: the path's first segment, the `/v<N>` prefix (the errors README's `path` part).
      return unknownVersion(
        'notFound',
        `Version ${carried.unknownPrefix} is not supported`,
        'path/0',
      )
    }
    return carried.error
  }
  useRootRequestStep(fastify, 'versioning', check, 'restwellVersioning')

  if (options.moved.length > 0) {
    const redirectMoved: onRequestHookHandler = (request, reply, done) => {
      if (!request.is404) return done()
      // The path under the version it was asked in (an unprefixed path with a carried version
      // is that version's), the query as the client sent it: a 308 is replayed as sent, so it
      // keeps `_method` (which override removed from `request.url`).
      const carried = read(request.raw)
      let { path } = splitUrl(request.url)
      if (carried.explicit !== undefined) path = underVersion(carried.explicit, path)
      const location = movedLocation(options.moved, path)
      if (location === undefined) return done()
      const { query } = splitUrl(request.originalUrl)
      const prefix = prefixVersion(location)
      const safe = request.method === 'GET' || request.method === 'HEAD'
      // A valid URI-Reference (RFC 9110 §10.2.2, RFC 3986 §2): the client's raw `"`, `>`,
      // `{`, a bare `%`, ... percent-encoded, as in every link restwell makes.
      reply
        .code(safe ? 301 : 308)
        .header(
          'location',
          safePath(
            prefix !== undefined && supported(prefix.version)
              ? versionedUrl(location, query)
              : joinUrl(location, query),
          ),
        )
      // The Accept version took part in the redirect, as in `versionHeaders` (RFC 9110 §12.5.5;
      // a 301 is cacheable by default, RFC 9111 §4.2.2): the URL had no prefix, so a versioned
      // Accept would have routed it, or Accept agreed with the prefix.
      if (options.accept && (carried.unprefixed || carried.accept)) appendVary(reply, 'Accept')
      reply.send()
    }
    fastify.addHook('onRequest', redirectMoved)
  }

  fastify.decorateRequest('apiVersion', {
    getter(this: FastifyRequest): number | undefined {
      const prefix = prefixVersion(this.url)
      if (prefix !== undefined) return supported(prefix.version) ? prefix.version : undefined
      // Unprefixed: a version's twin answers only where routing chose a version.
      const routed = (this.raw as Marked)[ROUTED]
      if (routed === undefined || routed === null) return undefined
      return versionPairOf(this.routeOptions)?.version
    },
  })

  /** Every supported version (set when ready), and `{N}` per version served so far. */
  let allVersions: ReadonlySet<number> = new Set()
  const oneVersion = new Map<number, ReadonlySet<number>>()
  fastify.decorateRequest(API_VERSIONS as unknown as string, {
    getter(this: FastifyRequest): ReadonlySet<number> {
      const version = this.apiVersion
      if (version === undefined) return allVersions
      let set = oneVersion.get(version)
      if (set === undefined) {
        set = new Set([version])
        oneVersion.set(version, set)
      }
      return set
    },
  })

  /** The send step of a route serving `version` at `/v<N>/…` (`prefixed`) or unprefixed. */
  function versionHeaders(version: number, prefixed: boolean): SendStep {
    const retired = options.retired.get(version)
    const mediaType = versionMediaType(version)
    const prefixLength = prefixed ? `/v${version}`.length : 0
    return function restwellVersionHeaders(request, reply) {
      // A 2xx/3xx only: an error is not a representation of the version, and with auth's
      // hideRoutes an anonymous 401 from a route must look like the one from an unknown path.
      // Run again for an error a later step made of a 2xx (a 416, a 412): the header goes then.
      if (options.responseHeader !== false) {
        if (reply.statusCode < 400) reply.header(options.responseHeader, String(version))
        else reply.removeHeader(options.responseHeader)
      }
      // With the Accept carrier, `Accept` may pick this version and its media type: every answer
      // of the route says so, the plain one too, or a cache serves it for a versioned Accept.
      if (options.accept) appendVary(reply, 'Accept')
      if ((request.raw as Marked)[CARRIED]?.accept === true) {
        const type = reply.getHeader('content-type')
        if (
          reply.statusCode < 400 &&
          typeof type === 'string' &&
          type.startsWith('application/json')
        ) {
          reply.header('content-type', mediaType + type.slice('application/json'.length))
        }
      }
      if (retired !== undefined) {
        reply.header('deprecation', retired.deprecation)
        if (retired.sunset !== undefined) reply.header('sunset', retired.sunset)
        if (retired.successor !== undefined) {
          // The resource as routed (`_method`, which override removed, is no part of it), as
          // a valid URI-Reference (RFC 8288 §3): a raw `>` would end the target, a `"` or `{`
          // make it no URI.
          const { path, query } = splitUrl(request.url)
          appendLink(
            reply,
            linkValue(
              safePath(
                versionedUrl(underVersion(retired.successor, path.slice(prefixLength)), query),
              ),
              'successor-version',
            ),
          )
        }
        if (retired.policyLink !== undefined) appendLink(reply, retired.policyLink)
      }
      return undefined
    }
  }

  /** `<method> <url> <version>` of every twin added: a GET's twin brings its HEAD one. */
  const twinKeys = new Set<string>()
  const exposeHeads =
    (fastify.initialConfig as { exposeHeadRoutes?: boolean }).exposeHeadRoutes !== false
  // A twin is made from the route's options as Fastify first gave them, as Fastify makes a GET's
  // HEAD route: every plugin's onRoute hook then sets it up as the route it stands for.
  snapshotRoutes(fastify)

  onEveryRoute(fastify, function versioningOnRoute(this: FastifyInstance, route) {
    const pair = versionPairOf(route)
    if (pair !== undefined) {
      useVersion(pair.version, route)
      if (!pair.prefixed) shareLookup()
      if (route.config?.versioning !== false) {
        useSendStep(this, route, 'versioning', versionHeaders(pair.version, pair.prefixed))
      }
      return
    }
    const prefix = prefixVersion(route.url)
    if (
      prefix === undefined ||
      (options.versions !== undefined && !options.versions.has(prefix.version))
    ) {
      noteOwn(route)
      return
    }
    const version = prefix.version
    discovered.add(version)
    if (route.config?.versioning !== false) {
      useSendStep(this, route, 'versioning', versionHeaders(version, true))
    }
    // A method-override twin's route has a version twin, which gets a POST twin of its own.
    if (unprefixedCarriers.length === 0 || overrideTwinOf(route) !== undefined) return
    if (route.prefix !== '') {
      throw new Error(
        `@restwell/versioning: route ${routeName(route)} is in a plugin registered with prefix '${route.prefix}', where an unprefixed request (${unprefixedCarriers.join(', ')}) cannot reach it; register the plugin with app.register(versioned(${version}, plugin)) instead of app.register(plugin, { prefix: '/v${version}' })`,
      )
    }
    const rest = route.url.slice(prefix.length)
    const url = rest === '' ? '/' : rest
    const methods = servedMethods(route).filter((m) => !twinKeys.has(`${m} ${url} ${version}`))
    if (methods.length === 0) return
    for (const method of methods) twinKeys.add(`${method} ${url} ${version}`)
    if (methods.includes('GET') && exposeHeads && route.exposeHeadRoute !== false) {
      twinKeys.add(`HEAD ${url} ${version}`)
    }
    const initial = initialOptions(route)
    /* c8 ignore next 6 -- every route is snapshotted: `snapshotRoutes` runs when an instance is
       created after restwell was imported, and earlier instances with routes are refused. */
    if (initial === undefined) {
      throw new Error(
        `@restwell/versioning: route ${route.url} was not seen as it was added; import @restwell/versioning (or restwell) before creating the Fastify instance`,
      )
    }
    whenPlanned(this, route, () => {
      this.route(twinOptions(initial, route, version, url, methods))
    })
  })

  /** A version met on a route of a `versioned()` plugin. */
  function useVersion(version: number, route: RouteEntry): void {
    if (options.versions !== undefined && !options.versions.has(version)) {
      throw new Error(
        `@restwell/versioning: route ${routeName(route)} serves version ${version}, which \`versions\` does not list; add it there, or register the plugin without versioned()`,
      )
    }
    discovered.add(version)
  }

  /** An unprefixed route of the app's own: an unprefixed request for its path is its. */
  function noteOwn(route: RouteEntry): void {
    if ([route.method].flat().every((m) => m === 'OPTIONS')) return
    const first = firstSegment(route.url)
    if (first.includes(':') || first.includes('*') || first.includes('(')) ownAnyFirst = true
    else ownFirst.add(first)
  }

  fastify.addHook('onReady', async () => {
    resourceMethods = fastify.supportedMethods.filter((m) => m !== 'OPTIONS') as HTTPMethods[]
    supportedList = [...(options.versions ?? discovered)].sort((a, b) => a - b)
    allVersions = new Set(supportedList)
    defaultVersion = options.defaultVersion ?? supportedList[supportedList.length - 1]
    defaultKey = defaultVersion === undefined ? undefined : String(defaultVersion)
    // Against the routes found (`discovered` holds only supported versions), not the list: a
    // version listed in `versions` without routes can be neither the default nor a successor.
    checkServedVersions(options, discovered, defaultVersion)
  })
}

/** An unprefixed path under `/v<version>`: `/` is the version's root, `/v<N>`. */
function underVersion(version: number, path: string): string {
  return `/v${version}${path === '/' ? '' : path}`
}

/**
 * The unprefixed twin of the `/v<N>` route `of` (for `methods`, those not twinned yet): its
 * options as first given, at `url`, reached under the version constraint, marked in its config
 * and left out of the OpenAPI document (its `/v<N>` route is described).
 */
function twinOptions(
  initial: RouteEntry,
  of: RouteEntry,
  version: number,
  url: string,
  methods: readonly string[],
): RouteOptions {
  const { url: _url, path: _path, routePath: _routePath, prefix: _prefix, ...rest } = initial
  const pair: VersionPair = { version, prefixed: false, of }
  return {
    ...rest,
    method: methods.length === 1 ? methods[0] : methods,
    url,
    constraints: { ...initial.constraints, [VERSION_CONSTRAINT]: String(version) },
    config: {
      ...(initial.config as object | undefined),
      [VERSION_PAIR]: pair,
      swaggerTransform: versionTwinDescription,
    },
  } as unknown as RouteOptions
}

/**
 * API versions for Fastify v5: routes live under `/v<N>` prefixes; a version carried by
 * `Accept: application/vnd.api.v<N>+json` or `?version=<N>`, or the default one, serves an
 * unprefixed request through the route's unprefixed twin, reached by routing once. Options:
 * {@link VersioningOptions}.
 * @example
 * await app.register(restwellVersioning, { retired: { 1: { deprecation: '2025-01-01', successor: 2 } } })
 * await app.register(versioned(1, async (v1) => { v1.get('/books', list) }))
 */
export const restwellVersioning: FastifyPluginAsync<VersioningOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/versioning',
})
