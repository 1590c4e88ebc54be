/**
 * Which route a CORS preflight asks about. A preflight is an OPTIONS request: Fastify routes it
 * to an OPTIONS route or to the 404 handler, never to the route the browser means to call
 * (`Access-Control-Request-Method` on the same path), so that route's `config.cors` has to be
 * looked up apart.
 */
import { routeLookup, servedMethods } from '@restwell/core/internal'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MethodOverrideReach } from './options.js'

/**
 * Whether the route a preflight asks about allows CORS (not `config.cors: false`); true for a
 * method or path no route has. A request whose method may be overridden is refused when any
 * route it may reach opted out; so is one for an unprefixed path where any version's twin
 * (`@restwell/versioning`) opted out: the lookup holds them all.
 */
export function preflightTargetCors(
  fastify: FastifyInstance,
  reach: MethodOverrideReach | false,
): (request: FastifyRequest) => boolean {
  let anyOff = false
  const lookup = routeLookup(
    fastify,
    (route) => {
      const off = (route.config as { cors?: unknown } | undefined)?.cors === false
      anyOff ||= off
      return off
    },
    (earlier, later) => earlier || later,
  )
  /** The methods the request may end up with: the one asked, and an override's targets. */
  const methodsOf = (request: FastifyRequest, asked: string): readonly string[] => {
    if (asked !== 'POST' || reach === false) return [asked]
    const listed = String(request.headers['access-control-request-headers'] ?? '')
      .toLowerCase()
      .split(',')
      .map((name) => name.trim())
    const byHeader = reach.header !== false && listed.includes(reach.header)
    const byQuery =
      reach.query !== false &&
      new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1)).has(reach.query)
    return byHeader || byQuery ? [asked, ...reach.methods] : [asked]
  }
  return (request) => {
    if (!anyOff) return true
    const asked = request.headers['access-control-request-method'] as string
    for (const method of methodsOf(request, asked)) {
      if (lookup.find(method, request.url) === true) return false
    }
    return true
  }
}

/**
 * Whether the path a preflight asks about has a QUERY route. QUERY is no CORS-safelisted
 * method (Fetch): a preflight for it is allowed QUERY only where a route takes it.
 */
export function queryRouteOf(fastify: FastifyInstance): (request: FastifyRequest) => boolean {
  const lookup = routeLookup(
    fastify,
    (route) => (servedMethods(route).includes('QUERY') ? true : undefined),
    () => true,
  )
  return (request) => lookup.find('QUERY', request.url) === true
}
