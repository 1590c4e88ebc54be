/**
 * The step of the not-found path: 501 for a method the app does not know, an automatic OPTIONS,
 * 405 with `Allow` for a path whose routes take other methods; a path without routes is left
 * to the not-found handler (404).
 */
import type { RequestStep } from '@restwell/core'
import { lookupConstraints, pathOf, REFUSED_METHODS } from '@restwell/core/internal'
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { allowedMethods } from './allow.js'
import { judgedBefore, type MethodsSettings } from './settings.js'

/** The 501 for a method the app does not know at all, or undefined. */
function notImplemented(settings: MethodsSettings, method: string): HttpError | undefined {
  settings.known ??= new Set([...settings.fastify.supportedMethods, ...REFUSED_METHODS])
  if (settings.known.has(method) || !settings.notImplemented) return undefined
  return httpErrors.notImplemented(`This server does not implement the ${method} method`, {
    code: ErrorCode.METHOD_NOT_IMPLEMENTED,
  })
}

/** The automatic answer to an OPTIONS on a path that has routes: 200 with `Allow`. */
function answerOptions(reply: FastifyReply, allow: readonly string[]): true {
  reply
    .code(200)
    .header('allow', allow.join(', '))
    .header('cache-control', 'no-store')
    .header('content-length', '0')
    .send()
  return true
}

/** The 405 for `request`, whose path allows `allow` only. */
function notAllowed(request: FastifyRequest, allow: readonly string[]): HttpError {
  const method = request.method
  // A HEAD where GET too is refused is named as GET: its Content-Length must be the one GET's
  // 405 has (RFC 9110 §9.3.2). Where GET is allowed (`exposeHeadRoutes: false`), GET's answer
  // is not a 405 anyway, and the message names HEAD.
  const named = method === 'HEAD' && !allow.includes('GET') ? 'GET' : method
  // The router was asked about the URL routed (`request.url`, less a method override's
  // `_method`); the client is shown the one it sent.
  return httpErrors.methodNotAllowed(
    `Method ${named} is not allowed on ${pathOf(request.originalUrl)}`,
    { code: ErrorCode.METHOD_NOT_ALLOWED, headers: { allow: allow.join(', ') } },
  )
}

/**
 * Judges a request no route matched (run on every request, and before the not-found handler,
 * which `reply.callNotFound()` reaches): matched routes pay one property check, and the router
 * is asked only on the not-found path.
 */
export function judgeNotFound(settings: MethodsSettings): RequestStep {
  return function onNotFound(request, reply) {
    if (!request.is404 || judgedBefore(settings, request)) return undefined
    const refusal = notImplemented(settings, request.method)
    if (refusal !== undefined) return refusal
    const allow = allowedMethods(
      settings.fastify,
      request.url,
      settings.autoOptions,
      settings.routed,
      lookupConstraints(settings.fastify, request.raw),
    )
    if (allow.length === 0) return undefined
    if (request.method === 'OPTIONS' && settings.autoOptions) return answerOptions(reply, allow)
    // The method has a route here: its handler chose not-found (`reply.callNotFound()`), so
    // this is a 404, never a 405 whose Allow lists the very method refused.
    if (allow.includes(request.method)) return undefined
    return notAllowed(request, allow)
  }
}
