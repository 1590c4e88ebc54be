/**
 * `frameworkErrors` for `Fastify({ frameworkErrors })`: the errors Fastify's router raises while
 * it looks for a route (a malformed percent-escape in the path, a path parameter longer than
 * `maxParamLength`, a failing asynchronous constraint), in restwell's error form instead of
 * Fastify's `{"error":"Bad Request","code":"FST_ERR_BAD_URL",...}` written straight to the socket.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { JSON_CONTENT_TYPE, standaloneErrorBody } from './body.js'
import { httpErrors } from './http-error.js'
import { logError, normalizeError } from './normalize.js'
import { DEFAULT_REQUEST_ID_HEADER, safeRequestId } from './request-id.js'

/** The restwell error for one of Fastify's router errors; any other error is kept as it is. */
function routerError(error: FastifyError): unknown {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return httpErrors.badRequest('The request path is not valid percent-encoding', {
        cause: error,
      })
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return httpErrors.uriTooLong('A path parameter is longer than this server accepts', {
        cause: error,
      })
    case 'FST_ERR_ASYNC_CONSTRAINT':
      // A route constraint's own code failed: a server fault, masked like any 5xx.
      return httpErrors.internalServerError(undefined, { cause: error })
    default:
      return error
  }
}

/**
 * For `Fastify({ frameworkErrors })`. Fastify calls it with the error and a request and reply of
 * its own making (no route, no hooks ran). With `@restwell/errors` registered on the root
 * instance the answer goes through the plugin (its format, request id header, renderers);
 * without it, it is a structured-form answer with `X-Request-Id` and `Cache-Control: no-store`.
 */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const thrown = routerError(error)
  const server = reply.server
  if (server.hasDecorator('restwellErrors')) {
    server.restwellErrors.send(thrown, request, reply)
    return
  }
  const normalized = normalizeError(thrown)
  const requestId = safeRequestId(request.headers[DEFAULT_REQUEST_ID_HEADER]) ?? String(request.id)
  logError(request, error, normalized, requestId)
  reply
    .code(normalized.statusCode)
    .header('cache-control', 'no-store')
    .header(DEFAULT_REQUEST_ID_HEADER, requestId)
    .type(JSON_CONTENT_TYPE)
    .send(standaloneErrorBody(normalized, requestId))
}
