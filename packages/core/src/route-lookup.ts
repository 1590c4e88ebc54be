/**
 * Which route a method and URL reach, for answers that are about another route than the one
 * Fastify routed the request to: a CORS preflight (an OPTIONS request about the method it
 * names), `Accept-Patch` on OPTIONS and 405. `fastify.findRoute` tells whether a route matches,
 * not which one, so the routes are kept in a router of their own: find-my-way, Fastify's, with
 * the matching options the app gave Fastify.
 */
import type { IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import type { FastifyInstance } from 'fastify'
import type Router from 'find-my-way'
import { onEveryRoute, type RouteEntry } from './routes.js'
import { overrideTwinOf } from './twins.js'

let findMyWay: typeof Router | undefined

/** The router options that decide which path a route matches. */
const MATCHING_OPTIONS = [
  'caseSensitive',
  'ignoreTrailingSlash',
  'ignoreDuplicateSlashes',
  'maxParamLength',
  'allowUnsafeRegex',
  'useSemicolonDelimiter',
] as const

/** The matching options as Fastify was given them (`initialConfig`, top level or `routerOptions`). */
function routerOptions(fastify: FastifyInstance): Record<string, unknown> {
  const config = fastify.initialConfig as Record<string, unknown> & {
    routerOptions?: Record<string, unknown>
  }
  const options: Record<string, unknown> = {}
  for (const key of MATCHING_OPTIONS) options[key] = config.routerOptions?.[key] ?? config[key]
  return options
}

/**
 * The URLs Fastify's router holds for a route: its `url`, and for the `/` route of a prefixed
 * plugin (`prefixTrailingSlash: 'both'`, the default) the prefix with a trailing slash too,
 * which Fastify adds without running `onRoute` hooks for it.
 */
function routerUrls(route: RouteEntry, options: Record<string, unknown>): string[] {
  const both =
    route.routePath === '' &&
    route.prefix.length > 0 &&
    (route.prefixTrailingSlash ?? 'both') === 'both' &&
    options.ignoreTrailingSlash !== true &&
    (options.ignoreDuplicateSlashes !== true || !route.prefix.endsWith('/'))
  return both ? [route.url, `${route.url}/`] : [route.url]
}

/** The routes of an instance by method and URL, each as the value a plugin keeps for it. */
export interface RouteLookup<T> {
  /** The value of the route `method url` reaches (the query is ignored), if any. */
  find(method: string, url: string): T | undefined
}

/**
 * Keeps `keep(route)` of every route of `fastify` (earlier routes too) that gives one, and
 * finds them by method and URL as Fastify's router would (a static path wins over a parametric
 * one). Routes told apart only by constraints (host, version) share an entry: `merge` makes its
 * value. The router is built at the first lookup after a route was added.
 */
export function routeLookup<T>(
  fastify: FastifyInstance,
  keep: (route: RouteEntry) => T | undefined,
  merge: (earlier: T, later: T) => T,
): RouteLookup<T> {
  const options = routerOptions(fastify)
  const entries = new Map<string, { method: string; url: string; value: T }>()
  let router: Router.Instance<Router.HTTPVersion.V1> | undefined
  onEveryRoute(fastify, (route) => {
    // A method-override twin is reached under its constraint only, as its route's method.
    if (overrideTwinOf(route) !== undefined) return
    const value = keep(route)
    if (value === undefined) return
    router = undefined
    for (const method of [route.method].flat()) {
      for (const url of routerUrls(route, options)) {
        const key = `${method} ${url}`
        const known = entries.get(key)
        entries.set(key, { method, url, value: known ? merge(known.value, value) : value })
      }
    }
  })
  const build = (): Router.Instance<Router.HTTPVersion.V1> => {
    // Loaded at the first lookup, and with `require`: find-my-way is CommonJS (and Fastify's own
    // dependency, so already loaded), which an ESM import would parse again for its exports.
    findMyWay ??= createRequire(import.meta.url)('find-my-way') as typeof Router
    const built = findMyWay(options)
    for (const { method, url, value } of entries.values()) {
      built.on(method as Router.HTTPMethod, url, noop, { value })
    }
    return built
  }
  return {
    find(method, url) {
      if (entries.size === 0) return undefined
      router ??= build()
      const found = router.find(method as Router.HTTPMethod, url)
      return (found?.store as { value: T } | undefined)?.value
    },
  }
}

/* c8 ignore next 2 -- the handler of the lookup router: it only ever finds, never serves */
function noop(): void {}

const LOOKUP_CONSTRAINTS = Symbol.for('restwell.lookupConstraints')
type Derive = (raw: IncomingMessage) => unknown
type ConstraintHolder = { [LOOKUP_CONSTRAINTS]?: Map<string, Derive> }

/**
 * Declares a routing constraint (`addConstraintStrategy`) that a lookup made about a request
 * (the methods a 405's `Allow` lists) must pass to `fastify.findRoute` as routing derived it:
 * routes behind it (a version's unprefixed twins) then count for the request as they do when
 * it is routed. `derive` gives the value for a raw request.
 */
export function shareLookupConstraint(
  fastify: FastifyInstance,
  name: string,
  derive: Derive,
): void {
  const holder = fastify as FastifyInstance & ConstraintHolder
  let shared = holder[LOOKUP_CONSTRAINTS]
  if (shared === undefined) {
    shared = new Map()
    Object.defineProperty(fastify, LOOKUP_CONSTRAINTS, { value: shared, enumerable: false })
  }
  shared.set(name, derive)
}

/** The constraints to look routes up with for `raw` (see `shareLookupConstraint`), if any. */
export function lookupConstraints(
  fastify: FastifyInstance,
  raw: IncomingMessage,
): Record<string, unknown> | undefined {
  const shared = (fastify as FastifyInstance & ConstraintHolder)[LOOKUP_CONSTRAINTS]
  if (shared === undefined) return undefined
  const constraints: Record<string, unknown> = {}
  for (const [name, derive] of shared) constraints[name] = derive(raw)
  return constraints
}
