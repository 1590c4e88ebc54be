/**
 * The step of every request, before anything else runs: the request id on the answer, then the
 * requests refused at once (the app is closing; an unmet `Expect`, a bad `Host`, see expect.ts).
 */
import type { Http2ServerRequest } from 'node:http2'
import type { RequestStep } from '@restwell/core'
import type { FastifyRequest } from 'fastify'
import { ErrorCode } from './codes.js'
import { requestRefusal } from './expect.js'
import { type HttpError, httpErrors } from './http-error.js'
import { requestIdOf } from './request-id.js'
import type { ErrorsSettings } from './settings.js'

/** Seconds a client is told to wait before retrying a request refused while the app closes. */
export const CLOSING_RETRY_AFTER = 5

/**
 * The 503 for a request that arrives while the app closes. The client is told to go elsewhere:
 * on HTTP/1.1 by `Connection: close`; on HTTP/2, where that header is forbidden (RFC 9113
 * §8.2.2), by a graceful GOAWAY on its session (§6.8): streams under way still finish.
 */
export function closingRefusal(request: FastifyRequest): HttpError {
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

/** The request step: the request id header, then a 503 while closing, a 417 or a 400. */
export function requestStep(settings: ErrorsSettings): RequestStep {
  const idHeader = settings.requestIdHeader
  return function restwellRequest(request, reply) {
    if (idHeader !== false) reply.header(idHeader, requestIdOf(request, idHeader))
    return settings.closing ? closingRefusal(request) : requestRefusal(request)
  }
}
