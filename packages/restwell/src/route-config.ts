/** One key of a request's route config, read only when some route sets it. */
import { onEveryRoute } from '@restwell/core'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * A reader of `config[key]` of the request's route, for a root hook. Fastify builds
 * `request.routeOptions` anew on every read (an object of a dozen fields, and a router lookup
 * for the `version` constraint: ~0.2 µs); most apps set no route's `config.cors` or
 * `config.rateLimit`, so until a route sets `key` (seen as routes are added, those added before
 * restwell included) nothing is read and every request gets undefined. A value put into
 * `config` by an `onRoute` hook added after restwell's is not seen.
 */
export function routeConfigKey(
  fastify: FastifyInstance,
  key: string,
): (request: FastifyRequest) => unknown {
  let set = false
  onEveryRoute(fastify, (route) => {
    if ((route.config as Record<string, unknown> | undefined)?.[key] !== undefined) set = true
  })
  return (request) =>
    set ? (request.routeOptions.config as unknown as Record<string, unknown>)[key] : undefined
}
