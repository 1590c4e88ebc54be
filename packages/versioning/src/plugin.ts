/** The `@restwell/versioning` plugin: URL prefix, Accept and query carriers, resolved before routing. */
import type { IncomingMessage } from 'node:http'
import { type SendStep, useSendStep, registerOnce } from '@restwell/core'
import { ErrorCode, type HttpError, httpErrors, validateOptions } from '@restwell/errors'
import {
  API_VERSIONS,
  appendLink,
  appendVary,
  onEveryRoute,
  safePath,
  servedMethods,
} from '@restwell/core'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyRequest,
  HTTPMethods,
  onRequestHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
// The shared before-routing mechanism (package @restwell/reroute).
import { addRewriter, joinUrl, queryValues, splitUrl, withoutQueryParam } from '@restwell/reroute'
import type { RerouteTarget } from '@restwell/reroute'
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
import { parseVersionNumber, prefixVersion } from './version.js'

/** Where versioning runs among the rewriters: after method override (10). */
export const VERSIONING_ORDER = 20

/** What the first pass learnt about the carriers, for the answering route's response headers. */
interface VersionInfo {
  /** The Accept header carried the version. */
  accept: boolean
  /** The client's URL had no version prefix (rerouted by a carrier or to the default). */
  unprefixed: boolean
}
const VERSION_INFO: unique symbol = Symbol.for('restwell.versioning.info')
type InfoHolder = IncomingMessage & { [VERSION_INFO]?: VersionInfo }

/** Most query values of the version parameter looked at. */
const MAX_QUERY_VERSIONS = 8
const VND_MARKER = /vnd\.api\.v/i

const plugin: FastifyPluginAsync<VersioningOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/versioning', 'versioning')
  const options = resolveVersioningOptions(
    validateOptions('@restwell/versioning', VersioningOptionsSchema, rawOptions),
  )
  const discovered = new Set<number>()
  /** `<N> <METHOD> <path without prefix>` of every versioned route: the twins of unprefixed routes. */
  const twins = new Set<string>()
  let supportedList: number[] = []
  let defaultVersion: number | undefined

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
    // As in `rewrite`: the parameter is a carrier only when its name is there unescaped (then
    // every spelling of it counted, and every one goes).
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

  function rewrite(target: RerouteTarget): HttpError | undefined {
    const request = target.request
    const url = target.url
    const prefix = prefixVersion(url)
    const accept = options.accept ? request.headers.accept : undefined
    const acceptCarries = accept !== undefined && VND_MARKER.test(accept)
    let values: string[] | undefined
    if (options.query !== false) {
      const q = url.indexOf('?')
      if (q !== -1 && url.includes(options.query, q)) {
        const found = queryValues(url.slice(q + 1), options.query)
        if (found.length > 0) values = found
      }
    }
    // Fast path: nothing carried, and the request matched a route.
    if (
      !acceptCarries &&
      values === undefined &&
      !request.is404 &&
      (prefix === undefined || options.prefix)
    ) {
      return undefined
    }
    const path = prefix === undefined && request.is404 ? splitUrl(url).path : ''
    let fixed: number | undefined
    if (prefix !== undefined) {
      if (!options.prefix) {
        return httpErrors.notFound(`Route ${target.method} ${splitUrl(url).path} not found`)
      }
      if (supported(prefix.version)) fixed = prefix.version
      else if (request.is404) {
        if (movedLocation(options.moved, splitUrl(url).path) !== undefined) return undefined
        return unknownVersion(
          'notFound',
          `Version ${prefix.version} is not supported`,
          'path/version',
        )
      }
    }
    const fromQuery = values === undefined ? undefined : queryVersion(values)
    if (fromQuery instanceof Error) return fromQuery
    if (fixed !== undefined && fromQuery !== undefined && fixed !== fromQuery) {
      return conflicting(`/v${fixed}`, `?${options.query}=${fromQuery}`, queryField)
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
            return conflicting(pinnedBy, 'Accept', 'headers/accept')
          } else if (!parsed.other) {
            return unacceptableVersions(parsed.versions)
          }
        } else {
          fromAccept = bestVersion(parsed.versions, supported)
          if (fromAccept === undefined && !parsed.other) {
            return unacceptableVersions(parsed.versions)
          }
        }
      }
    }
    const raw = request.raw as InfoHolder
    if (fixed !== undefined) {
      if (fromAccept !== undefined) raw[VERSION_INFO] = { accept: true, unprefixed: false }
      return undefined
    }
    const carried = fromQuery ?? fromAccept
    let version: number | undefined
    if (carried !== undefined) {
      // An unprefixed route that matched is served as is, unless the version has its own twin.
      if (request.is404 || twins.has(`${carried} ${target.method} ${request.routeOptions.url}`)) {
        version = carried
      }
    } else if (
      options.routeToDefault &&
      request.is404 &&
      defaultVersion !== undefined &&
      movedLocation(options.moved, path) === undefined &&
      !servedUnprefixed(path)
    ) {
      version = defaultVersion
    }
    if (version === undefined) return undefined
    raw[VERSION_INFO] = { accept: fromAccept !== undefined, unprefixed: true }
    // `/` becomes `/v<N>` (a prefixed plugin's root route answers both `/v<N>` and `/v<N>/`).
    const root = url === '/' || url.startsWith('/?')
    target.url = `/v${version}${root ? url.slice(1) : url}`
    return undefined
  }

  /**
   * An unprefixed path some route answers for another method: the request is a 405 of that
   * resource, not a request for the default version's (which would turn it into a 404).
   * OPTIONS does not count: a catch-all `OPTIONS *` (as `@fastify/cors` adds) makes no resource.
   */
  function servedUnprefixed(path: string): boolean {
    for (const method of fastify.supportedMethods) {
      if (method === 'OPTIONS') continue
      if (fastify.findRoute({ method: method as HTTPMethods, url: path }) !== null) return true
    }
    return false
  }

  addRewriter(fastify, { name: '@restwell/versioning', order: VERSIONING_ORDER, rewrite })

  if (options.moved.length > 0) {
    if (fastify.hasPlugin('@restwell/methods')) {
      throw new Error(
        '@restwell/versioning: register it before @restwell/methods, or its moved paths would answer 405',
      )
    }
    const redirectMoved: onRequestHookHandler = (request, reply, done) => {
      if (!request.is404) return done()
      // The path as routed (a carrier may have put a `/v<N>` prefix on it), the query as the
      // client sent it: a 308 is replayed as sent, so it keeps `_method` (which override
      // removed from `request.url`).
      const location = movedLocation(options.moved, splitUrl(request.url).path)
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
      // a 301 is cacheable by default, RFC 9111 §4.2.2): it rerouted the request or agreed with
      // its prefix, or the URL had no prefix, so a versioned Accept would have rerouted it.
      if (
        options.accept &&
        ((request.raw as InfoHolder)[VERSION_INFO] !== undefined ||
          prefixVersion(request.url) === undefined)
      ) {
        appendVary(reply, 'Accept')
      }
      reply.send()
    }
    fastify.addHook('onRequest', redirectMoved)
  }

  fastify.decorateRequest('apiVersion', {
    getter(this: FastifyRequest): number | undefined {
      const prefix = prefixVersion(this.url)
      return prefix !== undefined && supported(prefix.version) ? prefix.version : undefined
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

  function versionHeaders(version: number): SendStep {
    const retired = options.retired.get(version)
    const mediaType = versionMediaType(version)
    const prefixLength = `/v${version}`.length
    return function restwellVersionHeaders(request, reply) {
      // A 2xx/3xx only: an error is not a representation of the version, and with auth's
      // hideRoutes an anonymous 401 from a route must look like the one from an unknown path.
      if (options.responseHeader !== false && reply.statusCode < 400) {
        reply.header(options.responseHeader, String(version))
      }
      // With the Accept carrier, `Accept` may pick this version and its media type: every answer
      // of the route says so, the plain one too, or a cache serves it for a versioned Accept.
      if (options.accept) appendVary(reply, 'Accept')
      const info = (request.raw as InfoHolder)[VERSION_INFO]
      if (info !== undefined) {
        const type = reply.getHeader('content-type')
        if (
          info.accept &&
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
              safePath(versionedUrl(`/v${retired.successor}${path.slice(prefixLength)}`, query)),
              'successor-version',
            ),
          )
        }
        if (retired.policyLink !== undefined) appendLink(reply, retired.policyLink)
      }
      return undefined
    }
  }

  onEveryRoute(fastify, function versioningOnRoute(this: FastifyInstance, route) {
    const prefix = prefixVersion(route.url)
    if (prefix === undefined) return
    const version = prefix.version
    if (options.versions !== undefined && !options.versions.has(version)) return
    discovered.add(version)
    const rest = route.url.slice(prefix.length)
    for (const method of servedMethods(route))
      twins.add(`${version} ${method} ${rest === '' ? '/' : rest}`)
    if (route.config?.versioning === false) return
    useSendStep(this, route, 'versioning', versionHeaders(version))
  })

  fastify.addHook('onReady', async () => {
    supportedList = [...(options.versions ?? discovered)].sort((a, b) => a - b)
    allVersions = new Set(supportedList)
    defaultVersion = options.defaultVersion ?? supportedList[supportedList.length - 1]
    // Against the routes found (`discovered` holds only supported versions), not the list: a
    // version listed in `versions` without routes can be neither the default nor a successor.
    checkServedVersions(options, discovered, defaultVersion)
  })
}

/**
 * API versioning before routing: routes live under `/v<N>` prefixes; a version carried by
 * `Accept: application/vnd.api.v<N>+json` or `?version=<N>` reroutes an unprefixed request to
 * that version's route; requests carrying none get the default version. Options:
 * {@link VersioningOptions}.
 * @example
 * await app.register(restwellVersioning, { retired: { 1: { deprecation: '2025-01-01', successor: 2 } } })
 * await app.register(async (v1) => { v1.get('/books', list) }, { prefix: '/v1' })
 */
export const restwellVersioning: FastifyPluginAsync<VersioningOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/versioning',
})
