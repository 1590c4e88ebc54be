/**
 * Which route a CORS preflight asks about. A preflight is an OPTIONS request: Fastify routes it
 * to an OPTIONS route or to the 404 handler, never to the route the browser means to call
 * (`Access-Control-Request-Method` on the same path), so that route's `config.cors` has to be
 * looked up apart.
 */
import { onEveryRoute } from '@restwell/errors'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import Router from 'find-my-way'

/** The router options that decide which route a path matches, as Fastify was given them. */
const MATCHING_OPTIONS = [
  'caseSensitive',
  'ignoreTrailingSlash',
  'ignoreDuplicateSlashes',
  'maxParamLength',
  'allowUnsafeRegex',
  'useSemicolonDelimiter',
] as const

function routerOptions(fastify: FastifyInstance): Record<string, unknown> {
  // Fastify 5 takes these at the top level (deprecated) or under `routerOptions`; its
  // `initialConfig` shows each where it was given.
  const config = fastify.initialConfig as Record<string, unknown> & {
    routerOptions?: Record<string, unknown>
  }
  const options: Record<string, unknown> = {}
  for (const key of MATCHING_OPTIONS) options[key] = config.routerOptions?.[key] ?? config[key]
  return options
}

/**
 * A reader, for preflights only, of whether the route the preflight asks about opted out of
 * CORS (`config.cors: false`). Until some route opts out it answers true without looking (no
 * router is built). Then a router of the app's routes (method and path, the same matching
 * options as Fastify's) is built at the first preflight (routes are all known by then: Fastify
 * takes none once ready), so a static path still wins over a
 * parametric one as in Fastify. Routes told apart only by constraints (host, version) share one
 * entry, which opts out when any of them does. A method or path no route has: true (the
 * preflight is answered; the request itself then gets its 404 or 405). A request that may be
 * rerouted after its preflight is judged by every route it may reach: with method override, a
 * POST preflight that lists the override header (or whose URL carries the override parameter)
 * by each method an override may name too; with versioning, an unprefixed path by its `/v<N>`
 * routes too. Any opted-out route among them refuses the preflight.
 */
/** How a request may be rerouted after its preflight (method override, versioning). */
export interface PreflightReach {
  /** The method override header (lower case) and query parameter, or false. */
  overrideHeader: string | false
  overrideQuery: string | false
  /** The methods an override may name. */
  overrideMethods: readonly string[]
  /** Versioning on: an unprefixed path may be served by a `/v<N>` route. */
  versioned: boolean
}

const VERSION_PREFIX = /^\/v\d+(?=\/|$)/

export function preflightTargetCors(
  fastify: FastifyInstance,
  reach: PreflightReach,
): (request: FastifyRequest) => boolean {
  const routes = new Map<string, { method: string; url: string; off: boolean }>()
  const prefixes = new Set<string>()
  let anyOff = false
  let router: Router.Instance<Router.HTTPVersion.V1> | undefined
  onEveryRoute(fastify, (route) => {
    const off = (route.config as { cors?: unknown } | undefined)?.cors === false
    anyOff ||= off
    const prefix = VERSION_PREFIX.exec(route.url)?.[0]
    if (prefix !== undefined) prefixes.add(prefix)
    for (const method of [route.method].flat()) {
      const key = `${method} ${route.url}`
      const known = routes.get(key)
      routes.set(key, { method, url: route.url, off: off || known?.off === true })
    }
  })
  const build = (): Router.Instance<Router.HTTPVersion.V1> => {
    const built = Router(routerOptions(fastify))
    for (const { method, url, off } of routes.values()) {
      built.on(method as Router.HTTPMethod, url, noop, off)
    }
    return built
  }
  /** The methods the request may end up with: the one asked, and an override's targets. */
  const methodsOf = (request: FastifyRequest, asked: string): readonly string[] => {
    if (asked !== 'POST') return [asked]
    const listed = String(request.headers['access-control-request-headers'] ?? '')
      .toLowerCase()
      .split(',')
      .map((name) => name.trim())
    const byHeader = reach.overrideHeader !== false && listed.includes(reach.overrideHeader)
    const byQuery =
      reach.overrideQuery !== false &&
      new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1)).has(reach.overrideQuery)
    return byHeader || byQuery ? [asked, ...reach.overrideMethods] : [asked]
  }
  /** The URLs the request may be served at: as sent, and under each version's prefix. */
  const urlsOf = (url: string): readonly string[] =>
    !reach.versioned || VERSION_PREFIX.test(url)
      ? [url]
      : [url, ...[...prefixes].map((p) => p + url)]
  return (request) => {
    if (!anyOff) return true
    router ??= build()
    const asked = request.headers['access-control-request-method'] as string
    for (const method of methodsOf(request, asked)) {
      for (const url of urlsOf(request.url)) {
        if (router.find(method as Router.HTTPMethod, url)?.store === true) return false
      }
    }
    return true
  }
}

/* c8 ignore next 2 -- the handler of the lookup router: it only ever finds, never serves */
function noop(): void {}
