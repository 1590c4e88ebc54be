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
 * The headers of an actual CORS request from `origin`, when the settings allow it, with
 * `exposed` as `Access-Control-Expose-Headers` (none when undefined: a route's send step sets
 * its own); returns what `Access-Control-Allow-Origin` was set to, or false (no CORS header set).
 */
function allowActual(
  settings: CorsSettings,
  reply: FastifyReply,
  origin: string,
  exposed: string | undefined,
): string | false {
  const allowed = settings.allowOrigin(origin)
  if (allowed !== false) {
    reply.header('access-control-allow-origin', allowed)
    if (settings.credentials) reply.header('access-control-allow-credentials', 'true')
    if (exposed !== undefined) reply.header(EXPOSE, exposed)
  }
  return allowed
}

const EXPOSE = 'access-control-expose-headers'

/**
 * Set on a reply whose origin the request step allowed without `-Expose-Headers`: its route's
 * send step adds the route's own (`declareState`: one hidden class for every reply).
 */
export const EXPOSE_PENDING: unique symbol = Symbol.for('restwell.cors.exposePending')
type Pending = { [EXPOSE_PENDING]?: true }

/**
 * The request step, on every request before the route's own steps (rate limits and auth under
 * the umbrella). With `origin: '*'` every answer gets `Access-Control-Allow-Origin: *` and
 * `-Expose-Headers` and no `Vary: Origin`; otherwise an allowed `Origin` gets them, and every
 * answer says `Vary: Origin`. A preflight is answered 200 here; a plain OPTIONS goes on. A route
 * with `config.cors: false` gets neither, nor does a preflight asking about it. Under a pipeline
 * a route's answers get `-Expose-Headers` from its send step: the headers that route may send.
 */
export function corsRequest(settings: CorsSettings): RequestStep {
  return function restwellCors(request, reply) {
    const origin = request.headers.origin
    const preflight = isPreflight(request)
    let allowed: string | false = false
    if (settings.routeCors(request) !== false && (!preflight || settings.preflightCors(request))) {
      if (settings.varies) appendVary(reply, 'Origin')
      if (origin !== undefined || !settings.varies) {
        const deferred = settings.perRoute && !preflight && !request.is404
        const exposed = deferred ? undefined : settings.headers().exposedHeaders
        allowed = allowActual(settings, reply, origin ?? '', exposed)
        if (deferred && allowed !== false) (reply as Pending)[EXPOSE_PENDING] = true
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
 * `exposed` gives `Access-Control-Expose-Headers` (a route's own list under a pipeline, the
 * app's by default), also where the request step allowed the origin and left it to this step
 * (`EXPOSE_PENDING`); a value the handler set is kept.
 */
export function corsSend(
  settings: CorsSettings,
  exposed: () => string = () => settings.headers().exposedHeaders,
): SendStep {
  return function restwellCorsVary(request, reply) {
    if (settings.varies) {
      const vary = reply.getHeader('vary')
      if (typeof vary !== 'string' || (vary !== 'Origin' && !vary.startsWith('Origin,'))) {
        appendVary(reply, 'Origin')
      }
    }
    if ((reply as Pending)[EXPOSE_PENDING] === true) {
      if (!reply.hasHeader(EXPOSE)) reply.header(EXPOSE, exposed())
      return undefined
    }
    const origin = request.headers.origin
    if (
      (origin !== undefined || !settings.varies) &&
      !reply.hasHeader('access-control-allow-origin') &&
      !isPreflight(request)
    ) {
      allowActual(settings, reply, origin ?? '', exposed())
    }
    return undefined
  }
}
