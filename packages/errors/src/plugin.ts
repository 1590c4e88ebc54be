/** The `@restwell/errors` plugin: one error handler, one not-found handler, one body form. */
import type { OutgoingHttpHeaders } from 'node:http'
import type { Http2ServerRequest } from 'node:http2'
import { asList, pathOf, registerOnce } from '@restwell/core'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ErrorRenderer, RestwellErrorsApi } from './augment.js'
import { buildErrorBody, errorContentType, isoNow } from './body.js'
import { passExpectationsToFastify, requestRefusal } from './expect.js'
import { ErrorCode } from './codes.js'
import { type HttpError, httpErrors } from './http-error.js'
import { logError, normalizeError } from './normalize.js'
import { isHeaderError, setIfValid, writeRaw } from './last-resort.js'
import { routeNotFound } from './not-found.js'
import { type ErrorsOptions, ErrorsOptionsSchema, resolveErrorsOptions } from './options.js'
import { safeRequestId } from './request-id.js'
import {
  forgetNotFoundPreHandler,
  notFoundPreHandler,
  onEveryRoute,
  routesBefore,
  useRootRequestStep,
} from '@restwell/core'
import { validateOptions } from './validate-options.js'

/** What a route of Fastify's default error handler threw (see `defaulted`). */
const THROWN = Symbol('restwell.thrown')
type Thrown = FastifyRequest & { [THROWN]?: unknown }

/**
 * On a reply whose error is being answered: `{ first }`, what was thrown first. An error that
 * reaches the handler again for it is the failure of that answer (see `lastResort`). A reply
 * decoration (declared `null` on every reply), not a WeakMap: set on every error answer.
 */
const ANSWERING = Symbol('restwell.answering')
type Answering = FastifyReply & { [ANSWERING]: { first: unknown } | null }

/** Headers of the route a last-resort answer keeps: CORS, so a browser can read it, and Vary. */
const KEPT_HEADER = /^(?:access-control-|vary$)/

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

/** Seconds a client is told to wait before retrying a request refused while the app closes. */
export const CLOSING_RETRY_AFTER = 5

/**
 * The 503 for a request that arrives while the app closes. The client is told to go elsewhere:
 * on HTTP/1.1 by `Connection: close`; on HTTP/2, where that header is forbidden (RFC 9113
 * §8.2.2), by a graceful GOAWAY on its session (§6.8): streams under way still finish.
 */
function closingRefusal(request: FastifyRequest): HttpError {
  const http1 = request.raw.httpVersionMajor === 1
  // A stream's session is gone only once the stream is destroyed, which no hook sees.
  /* c8 ignore next */
  if (!http1) (request.raw as unknown as Http2ServerRequest).stream.session?.close()
  return httpErrors.serviceUnavailable('The server is shutting down; retry the request', {
    code: ErrorCode.SERVICE_UNAVAILABLE,
    headers: http1
      ? { 'retry-after': CLOSING_RETRY_AFTER, connection: 'close' }
      : { 'retry-after': CLOSING_RETRY_AFTER },
  })
}

const plugin: FastifyPluginAsync<ErrorsOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/errors', 'errors')
  const options = resolveErrorsOptions(
    validateOptions('@restwell/errors', ErrorsOptionsSchema, rawOptions),
  )
  const renderers: ErrorRenderer[] = []
  const idHeader = options.requestIdHeader

  fastify.decorateRequest('requestId', '')

  function requestIdOf(request: FastifyRequest): string {
    // Falsy when not yet known: '' (the decorator's default) or, on the request Fastify makes
    // for `frameworkErrors` (its base class, without decorators), undefined.
    if (request.requestId) return request.requestId
    const id = (idHeader && safeRequestId(request.headers[idHeader])) || String(request.id)
    request.requestId = id
    return id
  }

  // While the app closes, requests still arriving on kept-alive connections get a 503 in the
  // error form with Retry-After and `Connection: close` (spec 8), when the app lets them reach
  // its hooks (`Fastify({ return503OnClosing: false })`: Fastify's own answer is a bare 503).
  let closing = false
  fastify.addHook('preClose', (done) => {
    closing = true
    done()
  })

  // The first onRequest hook: the request id, then the requests refused before anything else
  // runs (the app is closing; an unmet `Expect`, a Host-less HTTP/1.1 request, see expect.ts).
  useRootRequestStep(fastify, 'request', function restwellRequest(request, reply) {
    if (idHeader !== false) reply.header(idHeader, requestIdOf(request))
    return closing ? closingRefusal(request) : requestRefusal(request)
  })
  passExpectationsToFastify(fastify.server)

  /** Logs the error, sets its status and headers, and returns its body. */
  function prepare(thrown: unknown, request: FastifyRequest, reply: FastifyReply) {
    // The status the handler set before it sent or threw the error (`reply.code(404).send(err)`)
    // is the error's when the error has none of its own: read it before `reply.code` below.
    const error = normalizeError(thrown, reply.statusCode)
    const requestId = requestIdOf(request)
    logError(request, thrown, error, requestId)
    reply.code(error.statusCode)
    reply.removeHeader('content-length')
    reply.header('cache-control', 'no-store')
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
    if (idHeader !== false) reply.header(idHeader, requestId)
    const body = buildErrorBody(options.format, error, {
      requestId,
      timestamp: isoNow(),
      // The path the client sent: `request.url` may have been rewritten internally (method
      // override, versioning, Fastify's `rewriteUrl`); Fastify keeps the original here.
      instance: pathOf(request.originalUrl),
      problemTypeBase: options.problemTypeBase,
    })
    return { error, body }
  }

  /** Whether requests carry `THROWN` (declared only when some route kept the default handler). */
  let keepsThrown = false

  function send(thrown: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const { error, body } = prepare(thrown, request, reply)
    // Only where it is declared: writing it elsewhere would add a property to the request.
    if (keepsThrown) (request as Thrown)[THROWN] = undefined
    for (const render of renderers) {
      if (render(body, error, request, reply)) return reply
    }
    // The body is text already: a serializer of its own keeps Fastify from adding a charset to
    // a JSON type, which problem+json does not define.
    return reply
      .type(errorContentType(options.format))
      .serializer(String)
      .send(JSON.stringify(body))
  }

  const api: RestwellErrorsApi = {
    format: options.format,
    requestIdHeader: idHeader,
    problemTypeBase: options.problemTypeBase,
    addRenderer(renderer) {
      renderers.push(renderer)
    },
    send,
  }
  fastify.decorate('restwellErrors', api)

  // Routes added at the root before this plugin was even registered got Fastify's default
  // error handler when they were added (a 500 would show its message). Their errors are
  // caught on the way out instead: the onError hook keeps what was thrown, `send` forgets it,
  // and what is left at onSend was answered by Fastify's default handler.
  const defaulted = new Set<string>()
  // An error handler the app (or a plugin) set before this one is kept: every error reaches it,
  // and it may answer in the configured form with `fastify.restwellErrors.send`.
  const appHandler = fastify.errorHandler !== (await fastifyDefaultErrorHandler())
  if (!appHandler) {
    for (const route of routesBefore(fastify)) {
      if (route.errorHandler !== undefined) continue
      for (const method of asList(route.method)) defaulted.add(`${method} ${route.url}`)
    }
  }

  /** The masked 500 of the last-resort answer: nothing of the failure is shown. */
  const lastResortError = normalizeError(httpErrors.internalServerError())

  /**
   * The answer when answering an error failed (or would fail: a header Node refuses): the masked
   * 500 in the configured form (no renderer), with only the headers this plugin sets and the
   * route's CORS and Vary headers Node accepts, written past Fastify's reply and hooks (they
   * failed once). `logged`: the failure was logged at error already.
   */
  function lastResort(
    thrown: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    logged: boolean,
  ) {
    const requestId = requestIdOf(request)
    if (!logged) logError(request, thrown, lastResortError, requestId)
    const body = JSON.stringify(
      buildErrorBody(options.format, lastResortError, {
        requestId,
        timestamp: isoNow(),
        instance: pathOf(request.originalUrl),
        problemTypeBase: options.problemTypeBase,
      }),
    )
    const headers: OutgoingHttpHeaders = {}
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (KEPT_HEADER.test(name)) setIfValid(headers, name, value)
    }
    if (idHeader !== false) setIfValid(headers, idHeader, requestId)
    headers['cache-control'] = 'no-store'
    headers['content-type'] = errorContentType(options.format)
    // A HEAD answer's Content-Length is the one GET would get (RFC 9110 §9.3.2).
    headers['content-length'] = Buffer.byteLength(body)
    writeRaw(reply, lastResortError.statusCode, headers, body)
  }

  fastify.decorateReply(ANSWERING as unknown as string, null)
  function restwellErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    const answering = (reply as Answering)[ANSWERING]
    if (answering !== null) {
      // Our answer to the first error failed: the same failure again (a hook that throws on
      // every body) was logged with the first one when that was a 5xx.
      const logged = reply.statusCode >= 500 && sameFailure(answering.first, error)
      lastResort(error, request, reply, logged)
      return
    }
    if (isHeaderError(error)) {
      // A header the route set is refused by Node: every answer with it fails the same way.
      lastResort(error, request, reply, false)
      return
    }
    ;(reply as Answering)[ANSWERING] = { first: error }
    return send(error, request, reply)
  }

  if (!appHandler) {
    fastify.setErrorHandler(restwellErrorHandler)
    // Fastify keeps it bound to the instance: what `errorHandler` shows in every scope that kept it.
    const ours = fastify.errorHandler

    // Fastify sends an error that an error handler's answer fails with to the parent handler,
    // Fastify's default at the root, whose answer shows the error's message. A route whose scope
    // keeps ours gets ours as its own handler too (the route option `errorHandler`), so its
    // parent, ours again, takes that second failure and answers the masked 500.
    onEveryRoute(fastify, function restwellErrorRoute(this: FastifyInstance, route) {
      if (route.errorHandler !== undefined || this.errorHandler !== ours) return
      const scope = this
      route.errorHandler = function restwellRouteErrorHandler(error, request, reply) {
        // A handler set in the route's scope after the route was added answers first, as
        // Fastify would have it: throwing hands the error to it.
        if (scope.errorHandler !== ours) throw error
        return restwellErrorHandler(error, request, reply)
      }
    })
  }

  if (defaulted.size > 0) {
    keepsThrown = true
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
      const { body } = prepare(thrown, request, reply)
      reply.type(errorContentType(options.format))
      done(null, JSON.stringify(body))
    })
  }

  if (options.notFoundHandler) {
    const preHandler = notFoundPreHandler(fastify)
    try {
      fastify.setNotFoundHandler(
        preHandler === undefined ? {} : { preHandler },
        function restwellNotFound(request, reply) {
          const error = routeNotFound(request)
          // What this answer fails with reaches ours (the not-found scope's handler): last resort.
          ;(reply as Answering)[ANSWERING] = { first: error }
          return send(error, request, reply)
        },
      )
    } catch {
      // Fastify refuses a second not-found handler for one prefix: the app's, set before, is
      // kept, as with `notFoundHandler: false` (the plugins' steps go to root hooks instead).
      forgetNotFoundPreHandler(fastify)
    }
  }
}

let defaultHandler: unknown

/**
 * Fastify's own error handler, the one an instance has until one is set. Imported when the
 * plugin registers: a process that only creates errors (a job worker) never loads Fastify.
 */
async function fastifyDefaultErrorHandler(): Promise<unknown> {
  defaultHandler ??= (await import('fastify')).default().errorHandler
  return defaultHandler
}

/** The `@restwell/errors` plugin. */
export const restwellErrors: FastifyPluginAsync<ErrorsOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/errors',
  decorators: {},
})
