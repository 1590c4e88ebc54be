/**
 * The not-found answer, and the not-found path of an encapsulated plugin: an unmatched request
 * runs only the hooks of the instance that set the not-found handler for its prefix.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { forgetNotFoundPreHandler, notFoundPreHandler, pathOf } from '@restwell/core/internal'
import { sendError } from './answer.js'
import { answering } from './handler.js'
import { type HttpError, httpErrors } from './http-error.js'
import type { ErrorsSettings } from './settings.js'

/** Longest path echoed in the 404 message. */
const MAX_ECHOED_PATH = 200

/**
 * The 404 for a request no route matched: "Route GET /books/x not found", the path as the
 * client sent it (before `rewriteUrl` or an override changed it), at most 200 characters. A
 * HEAD is named as GET: its Content-Length must be the one GET's 404 has (RFC 9110 §9.3.2).
 */
export function routeNotFound(request: FastifyRequest): HttpError {
  const path = pathOf(request.originalUrl)
  const shown = path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}...` : path
  const method = request.method === 'HEAD' ? 'GET' : request.method
  return httpErrors.notFound(`Route ${method} ${shown} not found`)
}

/**
 * Sets the not-found handler: `routeNotFound` in the configured form, after the steps a
 * pipeline runs before it (`notFoundPreHandler`). Fastify refuses a second not-found handler
 * for one prefix: the app's, set before, is kept, and those steps go to root hooks instead.
 */
export function setNotFoundHandler(fastify: FastifyInstance, settings: ErrorsSettings): void {
  const preHandler = notFoundPreHandler(fastify)
  try {
    fastify.setNotFoundHandler(
      preHandler === undefined ? {} : { preHandler },
      function restwellNotFound(request, reply) {
        const error = routeNotFound(request)
        // What this answer fails with reaches ours (the not-found scope's handler): last resort.
        answering(reply, error)
        return sendError(settings, error, request, reply)
      },
    )
  } catch {
    forgetNotFoundPreHandler(fastify)
  }
}

/** `routeNotFound`, sent through the scope's error handler (`@restwell/errors`' when above). */
function restwellScopeNotFound(request: FastifyRequest, reply: FastifyReply): void {
  reply.send(routeNotFound(request))
}

/**
 * The instance, `fastify` or one of its parents, that was decorated with `name`. Fastify makes
 * each encapsulated instance with its parent as prototype, and a decorator is an own property
 * of the instance it was added on.
 */
function decoratedOn(fastify: FastifyInstance, name: string): FastifyInstance | undefined {
  for (let at: object | null = fastify; at !== null; at = Object.getPrototypeOf(at)) {
    if (Object.hasOwn(at, name)) return at as FastifyInstance
  }
  return undefined
}

/**
 * Makes the requests that match no route under `fastify`'s prefix run `fastify`'s hooks, setting
 * a not-found handler in a sub-plugin when none is set; throws when the handler is a parent's
 * (`@restwell/errors` in a parent with the same prefix). `plugin` and `lost` go in the message.
 */
export function notFoundInScope(fastify: FastifyInstance, plugin: string, lost: string): void {
  // The root instance is a plain object; every sub-plugin's instance has a parent.
  if (Object.getPrototypeOf(fastify) === Object.prototype) return
  try {
    fastify.setNotFoundHandler(restwellScopeNotFound)
    return
  } catch {
    // Fastify refuses a second not-found handler for one prefix: one is set already.
  }
  const errorsOn = decoratedOn(fastify, 'restwellErrors')
  if (errorsOn === undefined || errorsOn === fastify || errorsOn.prefix !== fastify.prefix) return
  throw new Error(
    `${plugin}: registered in a plugin whose unmatched requests are answered by the not-found handler @restwell/errors set in a parent plugin, which does not run this plugin's hooks (${lost}): register ${plugin} in the plugin that registers @restwell/errors, or in a plugin with a route prefix of its own`,
  )
}
