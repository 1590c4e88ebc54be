/**
 * What `@restwell/errors` sets on Fastify once per registration, in one place. Its one step (the
 * request id and the refusals before anything runs) is in steps.ts; the rest must stay Fastify's
 * handlers and hooks:
 * - the `requestId` request decoration and the `restwellErrors` API on the instance;
 * - a `preClose` hook: requests still arriving while the app closes are refused (a 503);
 * - Node's `checkExpectation` listener, so an unmet `Expect` reaches the step (a 417);
 * - the error handler, and each route's own copy of it (handler.ts), unless the app set one;
 * - for routes added before the plugin with Fastify's default error handler, an `onError` and
 *   an `onSend` hook that answer their errors (defaulted.ts);
 * - the not-found handler (not-found.ts), which runs the pipeline's not-found handler steps.
 */
import type { FastifyInstance } from 'fastify'
import type { RestwellErrorsApi } from './augment.js'
import { sendError } from './answer.js'
import { catchDefaulted, defaultedRoutes } from './defaulted.js'
import { passExpectationsToFastify } from './expect.js'
import { ANSWERING, errorHandler, hasAppErrorHandler, installErrorHandler } from './handler.js'
import { setNotFoundHandler } from './not-found.js'
import type { ResolvedErrorsOptions } from './options.js'
import { type ErrorsSettings, errorsSettings } from './settings.js'

/** Sets the plugin up on `fastify`; returns what its step reads. */
export async function setupErrors(
  fastify: FastifyInstance,
  options: ResolvedErrorsOptions,
): Promise<ErrorsSettings> {
  // An error handler the app (or a plugin) set before this one is kept: every error reaches it,
  // and it may answer in the configured form with `fastify.restwellErrors.send`.
  const appHandler = await hasAppErrorHandler(fastify)
  const settings = errorsSettings(options, appHandler ? new Set() : defaultedRoutes(fastify))

  fastify.decorateRequest('requestId', '')
  const api: RestwellErrorsApi = {
    format: settings.format,
    requestIdHeader: settings.requestIdHeader,
    problemTypeBase: settings.problemTypeBase,
    addRenderer(renderer) {
      settings.renderers.push(renderer)
    },
    send: (thrown, request, reply) => sendError(settings, thrown, request, reply),
  }
  fastify.decorate('restwellErrors', api)

  // Reached only when the app lets requests arriving while it closes reach its hooks
  // (`Fastify({ return503OnClosing: false })`): Fastify's own answer is a bare 503.
  fastify.addHook('preClose', (done) => {
    settings.closing = true
    done()
  })
  passExpectationsToFastify(fastify.server)

  fastify.decorateReply(ANSWERING as unknown as string, null)
  if (!appHandler) installErrorHandler(fastify, errorHandler(settings))
  catchDefaulted(fastify, settings)
  if (options.notFoundHandler) setNotFoundHandler(fastify, settings)
  return settings
}
