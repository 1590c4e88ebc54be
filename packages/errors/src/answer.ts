/** The error answer: status, headers and body in the configured form, or a renderer's. */
import { pathOf } from '@restwell/core/internal'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { buildErrorBody, type ErrorBody, errorContentType, isoNow } from './body.js'
import { forMethod, logError, type NormalizedError, normalizeError } from './normalize.js'
import { requestIdOf } from './request-id.js'
import type { ErrorsSettings } from './settings.js'

/**
 * What a route that kept Fastify's default error handler threw, until answered: what is left
 * at `onSend` was answered by Fastify's handler (see defaulted.ts).
 */
export const THROWN = Symbol('restwell.thrown')
type Thrown = FastifyRequest & { [THROWN]?: unknown }

/** Logs the error, sets its status and headers on the reply, and returns its body. */
export function prepareAnswer(
  settings: ErrorsSettings,
  thrown: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): { error: NormalizedError; body: ErrorBody } {
  // The status the handler set before it sent or threw the error (`reply.code(404).send(err)`)
  // is the error's when the error has none of its own: read it before `reply.code` below.
  const error = forMethod(normalizeError(thrown, reply.statusCode), request.method)
  const idHeader = settings.requestIdHeader
  const requestId = requestIdOf(request, idHeader)
  logError(request, thrown, error, requestId)
  reply.code(error.statusCode)
  reply.removeHeader('content-length')
  reply.header('cache-control', 'no-store')
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
  if (idHeader !== false) reply.header(idHeader, requestId)
  const body = buildErrorBody(settings.format, error, {
    requestId,
    timestamp: isoNow(),
    // The path the client sent: `request.url` may have been rewritten internally (method
    // override, versioning, Fastify's `rewriteUrl`); Fastify keeps the original here.
    instance: pathOf(request.originalUrl),
    problemTypeBase: settings.problemTypeBase,
  })
  return { error, body }
}

/** Sends any thrown value as an error answer: a renderer's, or JSON in the configured form. */
export function sendError(
  settings: ErrorsSettings,
  thrown: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const { error, body } = prepareAnswer(settings, thrown, request, reply)
  // Only where it is declared: writing it elsewhere would add a property to the request.
  if (settings.defaulted.size > 0) (request as Thrown)[THROWN] = undefined
  for (const render of settings.renderers) {
    if (render(body, error, request, reply)) return reply
  }
  // The body is text already: a serializer of its own keeps Fastify from adding a charset to
  // a JSON type, which problem+json does not define.
  return reply.type(errorContentType(settings.format)).serializer(String).send(JSON.stringify(body))
}
