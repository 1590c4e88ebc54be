/**
 * The CORS steps: the headers of every answer and a preflight answered before anything else
 * (request), and `Vary: Origin` kept on the final answer (send, and the answers of no route).
 */
import { appendVary, type RequestStep, type SendStep } from '@restwell/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CorsSettings } from './settings.js'

/** A CORS preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  )
}

/**
 * The headers of an actual CORS request from `origin`, when the settings allow it; returns what
 * `Access-Control-Allow-Origin` was set to, or false (no CORS header set).
 */
function allowActual(settings: CorsSettings, reply: FastifyReply, origin: string): string | false {
  const allowed = settings.allowOrigin(origin)
  if (allowed !== false) {
    reply.header('access-control-allow-origin', allowed)
    if (settings.credentials) reply.header('access-control-allow-credentials', 'true')
    reply.header('access-control-expose-headers', settings.headers().exposedHeaders)
  }
  return allowed
}

/**
 * The request step, on every request before the route's own steps (rate limits and auth under
 * the umbrella). With `origin: '*'` every answer gets `Access-Control-Allow-Origin: *` and
 * `-Expose-Headers` and no `Vary: Origin`; otherwise an allowed `Origin` gets them, and every
 * answer says `Vary: Origin`. A preflight is answered 200 here; a plain OPTIONS goes on. A route
 * with `config.cors: false` gets neither, nor does a preflight asking about it.
 */
export function corsRequest(settings: CorsSettings): RequestStep {
  return function restwellCors(request, reply) {
    const origin = request.headers.origin
    const preflight = isPreflight(request)
    let allowed: string | false = false
    if (settings.routeCors(request) !== false && (!preflight || settings.preflightCors(request))) {
      if (settings.varies) appendVary(reply, 'Origin')
      if (origin !== undefined || !settings.varies) {
        allowed = allowActual(settings, reply, origin ?? '')
      }
    }
    if (!preflight) return undefined
    if (allowed !== false) {
      const headers = settings.headers()
      reply.headers(headers.preflightHeaders)
      // QUERY is allowed where the path has a QUERY route, and listed then only.
      if (
        request.headers['access-control-request-method'] === 'QUERY' &&
        settings.queryRoute(request)
      ) {
        reply.header('access-control-allow-methods', headers.queryMethods)
      }
    }
    // '*' for every origin: the preflight's answer depends on the method and headers asked only.
    if (settings.varies) appendVary(reply, 'Origin')
    appendVary(reply, 'Access-Control-Request-Method', 'Access-Control-Request-Headers')
    reply.code(200).header('content-length', '0').send()
    return true
  }
}

/**
 * The send step: keeps `Origin` in the final answer's `Vary` when a handler or an error replaced
 * the header, and gives the CORS headers to an answer made before the request step ran (a
 * request refused while the app closes, say), so a script sees the status, not a network error.
 */
export function corsSend(settings: CorsSettings): SendStep {
  return function restwellCorsVary(request, reply) {
    const vary = reply.getHeader('vary')
    if (
      settings.varies &&
      (typeof vary !== 'string' || (vary !== 'Origin' && !vary.startsWith('Origin,')))
    ) {
      appendVary(reply, 'Origin')
    }
    const origin = request.headers.origin
    if (
      (origin !== undefined || !settings.varies) &&
      !reply.hasHeader('access-control-allow-origin') &&
      !isPreflight(request)
    ) {
      allowActual(settings, reply, origin ?? '')
    }
    return undefined
  }
}
