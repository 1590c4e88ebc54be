/** One key of a request's route config, read only when some route sets it. */
import { onEveryRoute } from '@restwell/core'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * A reader of `config[key]` of the request's route, for a root hook. Fastify rebuilds
 * `request.routeOptions` on every read, so it is read only once some route sets `key`.
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
