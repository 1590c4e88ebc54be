/**
 * Routes added at the root before the plugin was registered got Fastify's default error handler
 * when they were added (a 500 would show its message). Their errors are caught on the way out:
 * an `onError` hook keeps what was thrown, `sendError` forgets it, and what is left at `onSend`
 * was answered by Fastify's default handler, whose body is replaced.
 */
import { asList, routesBefore } from '@restwell/core/internal'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { prepareAnswer, THROWN } from './answer.js'
import { errorContentType } from './body.js'
import type { ErrorsSettings } from './settings.js'

type Thrown = FastifyRequest & { [THROWN]?: unknown }

/** The routes added at the root before the plugin that kept Fastify's default handler. */
export function defaultedRoutes(fastify: FastifyInstance): Set<string> {
  const defaulted = new Set<string>()
  for (const route of routesBefore(fastify)) {
    if (route.errorHandler !== undefined) continue
    for (const method of asList(route.method)) defaulted.add(`${method} ${route.url}`)
  }
  return defaulted
}

/** The `onError` and `onSend` hooks that answer the errors of the defaulted routes. */
export function catchDefaulted(fastify: FastifyInstance, settings: ErrorsSettings): void {
  const { defaulted } = settings
  if (defaulted.size === 0) return
  fastify.decorateRequest(THROWN as unknown as string, undefined)
  fastify.addHook('onError', function restwellKeepError(request, _reply, error, done) {
    ;(request as Thrown)[THROWN] = error
    done()
  })
  fastify.addHook('onSend', function restwellDefaultedError(request, reply, payload, done) {
    const thrown = (request as Thrown)[THROWN]
    if (thrown === undefined) return done(null, payload)
    ;(request as Thrown)[THROWN] = undefined
    const { method, url } = request.routeOptions
    if (!defaulted.has(`${method} ${url}`)) return done(null, payload)
    const { body } = prepareAnswer(settings, thrown, request, reply)
    reply.type(errorContentType(settings.format))
    done(null, JSON.stringify(body))
  })
}
