/**
 * The error handler: every error of a route in the configured form, and the last resort when
 * that answer fails in turn.
 */
import { onEveryRoute } from '@restwell/core/internal'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { sendError } from './answer.js'
import { isHeaderError, lastResort } from './last-resort.js'
import type { ErrorsSettings } from './settings.js'

/**
 * On a reply whose error is being answered: `{ first }`, what was thrown first. An error that
 * reaches the handler again for it is the failure of that answer (see `lastResort`). A reply
 * decoration (declared `null` on every reply), not a WeakMap: set on every error answer.
 */
export const ANSWERING = Symbol('restwell.answering')
type Answering = FastifyReply & { [ANSWERING]: { first: unknown } | null }

/** Marks `reply` as answering `error`: what the answer fails with next goes to the last resort. */
export function answering(reply: FastifyReply, error: unknown): void {
  ;(reply as Answering)[ANSWERING] = { first: error }
}

/** Whether a second failure is the first one again (a hook that throws on every body). */
function sameFailure(first: unknown, second: unknown): boolean {
  if (first === second) return true
  return (
    first instanceof Error &&
    second instanceof Error &&
    first.name === second.name &&
    first.message === second.message
  )
}

type ErrorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) => unknown

/** The error handler of a registration. */
export function errorHandler(settings: ErrorsSettings): ErrorHandler {
  return function restwellErrorHandler(error, request, reply) {
    const first = (reply as Answering)[ANSWERING]
    if (first !== null) {
      // Our answer to the first error failed: the same failure again (a hook that throws on
      // every body) was logged with the first one when that was a 5xx.
      const logged = reply.statusCode >= 500 && sameFailure(first.first, error)
      lastResort(settings, error, request, reply, logged)
      return
    }
    if (isHeaderError(error)) {
      // A header the route set is refused by Node: every answer with it fails the same way.
      lastResort(settings, error, request, reply, false)
      return
    }
    answering(reply, error)
    return sendError(settings, error, request, reply)
  }
}

/**
 * Sets `handler` as the error handler of `fastify`, and as the own handler of each route whose
 * scope keeps it. Fastify sends an error that an error handler's answer fails with to the parent
 * handler, Fastify's default at the root, whose answer shows the error's message; with ours as
 * the route's own handler, its parent, ours again, takes that second failure: the masked 500.
 */
export function installErrorHandler(fastify: FastifyInstance, handler: ErrorHandler): void {
  fastify.setErrorHandler(handler)
  // Fastify keeps it bound to the instance: what `errorHandler` shows in every scope that kept it.
  const ours = fastify.errorHandler
  onEveryRoute(fastify, function restwellErrorRoute(this: FastifyInstance, route) {
    if (route.errorHandler !== undefined || this.errorHandler !== ours) return
    const scope = this
    route.errorHandler = function restwellRouteErrorHandler(error, request, reply) {
      // A handler set in the route's scope after the route was added answers first, as
      // Fastify would have it: throwing hands the error to it.
      if (scope.errorHandler !== ours) throw error
      return handler(error, request, reply)
    }
  })
}

let defaultHandler: unknown

/**
 * Whether the app (or a plugin) set an error handler before this one, compared with Fastify's
 * own, the one an instance has until one is set. Fastify is imported when the plugin registers:
 * a process that only creates errors (a job worker) never loads it.
 */
export async function hasAppErrorHandler(fastify: FastifyInstance): Promise<boolean> {
  defaultHandler ??= (await import('fastify')).default().errorHandler
  return fastify.errorHandler !== defaultHandler
}
