/**
 * `Accept-Query` (RFC 10008 §3): the media types a resource takes as QUERY content, an RFC 9651
 * List of media ranges as Tokens. Sent on the 400/415 of a QUERY, its route's OPTIONS and 405.
 */
import type { RouteEntry, SendStep } from '@restwell/core'
import { routeLookup, servedMethods } from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'
import { serializeList, Token } from 'structured-headers'

/** The `Accept-Query` value of a list of media types (`application/json, text/plain`). */
export function acceptQueryValue(types: Iterable<string>): string {
  return serializeList([...types].map((type) => [new Token(type), new Map()]))
}

/** The QUERY routes of an app and the `Accept-Query` value of each, for OPTIONS and 405. */
export interface QueryRoutes {
  /** Each QUERY route's value, set when negotiation decides the route. */
  readonly values: WeakMap<RouteEntry, string>
  readonly lookup: { find(method: string, url: string): readonly RouteEntry[] | undefined }
}

/** Keeps the QUERY routes of `fastify` (their values are set as each route is decided). */
export function queryRoutes(fastify: FastifyInstance): QueryRoutes {
  return {
    values: new WeakMap(),
    lookup: routeLookup(
      fastify,
      (route) => (servedMethods(route).includes('QUERY') ? [route] : undefined),
      (earlier, later) => [...earlier, ...later],
    ),
  }
}

/** The `Accept-Query` value of the path `url` names, undefined where no QUERY route is. */
export function acceptQueryFor(routes: QueryRoutes, url: string): string | undefined {
  for (const route of routes.lookup.find('QUERY', url) ?? []) {
    const value = routes.values.get(route)
    if (value !== undefined) return value
  }
  return undefined
}

/**
 * The send step of the answers of no route: `Accept-Query` on an OPTIONS 2xx and a 405 of a
 * path with a QUERY route, unless set. An OPTIONS answered with an error describes no resource.
 */
export function advertiseAcceptQuery(routes: QueryRoutes): SendStep {
  return function advertiseAcceptQuery(request, reply) {
    const status = reply.statusCode
    if (status !== 405 && (status >= 300 || request.method !== 'OPTIONS')) return undefined
    if (reply.hasHeader('accept-query')) return undefined
    const value = acceptQueryFor(routes, request.url)
    if (value !== undefined) reply.header('accept-query', value)
    return undefined
  }
}
