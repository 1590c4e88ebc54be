/**
 * The `onError` hooks auth keeps outside the pipeline (an error handler's answer is no step): a
 * 401 answered on a protected route, or on an unknown path with `hideRoutes`, carries the plain
 * challenge when it has none (RFC 9110 §15.5.2: a 401 MUST carry `WWW-Authenticate`).
 */
import { errorStatus } from '@restwell/errors'
import type { FastifyInstance, onErrorHookHandler } from 'fastify'
import { hasChallenge } from './challenge.js'
import type { AuthSettings } from './settings.js'

/**
 * A protected route's own 401 (`throw httpErrors.unauthorized('Session expired')` in its
 * handler) gets the plain challenge when it has none. Runs on errors only.
 */
export function challengeHook(settings: AuthSettings): onErrorHookHandler {
  return function restwellAuthChallenge(_request, reply, error, done) {
    if (
      errorStatus(error, reply.statusCode) === 401 &&
      !reply.hasHeader('www-authenticate') &&
      !hasChallenge((error as { headers?: unknown }).headers)
    ) {
      reply.header('www-authenticate', settings.plainChallenge)
    }
    done()
  }
}

/**
 * With `hideRoutes` an unknown path is protected like a route: a 401 answered there by an
 * earlier hook (a rate limit's keyGenerator that demands credentials) gets the challenge too.
 */
export function challengeUnknownPaths(fastify: FastifyInstance, hook: onErrorHookHandler): void {
  fastify.addHook('onError', function restwellAuthHiddenChallenge(request, reply, error, done) {
    if (request.is404) hook.call(this, request, reply, error, done)
    else done()
  })
}
