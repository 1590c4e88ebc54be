/** The `@restwell/methods` plugin: 405 + Allow, automatic OPTIONS, 501, TRACE/CONNECT refused, 201. */
import { ErrorCode, httpErrors, notFoundInScope, validateOptions } from '@restwell/errors'
import {
  lookupConstraints,
  pathOf,
  type RequestStep,
  useNotFoundPreHandlerStep,
  useRootRequestStep,
  registerOnce,
} from '@restwell/core'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { allowedMethods, REFUSED_METHODS, routedMethods } from './allow.js'
import { type MethodsOptions, MethodsOptionsSchema, resolveMethodsOptions } from './options.js'

/** No CR, LF or NUL: a `Location` that cannot split the response. */
const SAFE_LOCATION = /^[^\r\n\0]+$/

function created(this: FastifyReply, location: string | URL, body?: unknown): FastifyReply {
  const value =
    typeof location === 'string' ? location : location instanceof URL ? location.href : ''
  if (!SAFE_LOCATION.test(value)) {
    throw new TypeError('reply.created(location): location must be a non-empty URL or path')
  }
  this.code(201).header('location', value)
  return body === undefined ? this.send() : this.send(body)
}

const plugin: FastifyPluginAsync<MethodsOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/methods', 'methods')
  const options = resolveMethodsOptions(
    validateOptions('@restwell/methods', MethodsOptionsSchema, rawOptions),
  )
  // In a sub-plugin, unmatched requests run this plugin's hooks (405, OPTIONS, 501) only from a
  // not-found handler set in that sub-plugin: one is set, or the registration refused.
  notFoundInScope(fastify, '@restwell/methods', 'no 405, OPTIONS or 501 there')

  fastify.decorateReply('created', created)

  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) {
      if (REFUSED_METHODS.has(method.toUpperCase())) {
        throw new Error(
          `@restwell/methods: route ${method} ${route.url} refused: TRACE and CONNECT are never routed`,
        )
      }
    }
  })

  /** Methods that have routes, known at ready; the 405 path asks the router about these only. */
  let routed: string[] | undefined

  fastify.addHook('onReady', async () => {
    routed = routedMethods(fastify)
    // Routes added at the root before this plugin loaded never reached onRoute: check them here.
    for (const method of REFUSED_METHODS) {
      if (!fastify.supportedMethods.includes(method)) continue
      const tree = fastify.printRoutes({ method, commonPrefix: false })
      if (!tree.includes('(empty tree)')) {
        throw new Error(`@restwell/methods: ${method} routes are refused: they are never routed`)
      }
    }
  })

  // Requests this registration has already judged (the 404 path may run both hooks): a flag on
  // the request, cheaper than a WeakSet entry per not-found request. One symbol per
  // registration, so a second registration (a child scope) judges for itself.
  const JUDGED = Symbol('restwell.methods.judged')
  type Judged = FastifyRequest & { [JUDGED]?: boolean }
  fastify.decorateRequest(JUDGED as unknown as string, false)

  /**
   * Methods Node parses that this app knows (routable or refused), read on the first not-found
   * request: by then no method can be added. `fastify.supportedMethods` builds a new array on
   * every read.
   */
  let known: ReadonlySet<string> | undefined

  const judge: RequestStep = function onNotFound(request, reply) {
    // Matched routes pay one property check; the router is asked only on the not-found path.
    if (!request.is404 || (request as Judged)[JUDGED]) return undefined
    ;(request as Judged)[JUDGED] = true
    const method = request.method
    known ??= new Set([...fastify.supportedMethods, ...REFUSED_METHODS])
    if (!known.has(method) && options.notImplemented) {
      return httpErrors.notImplemented(`This server does not implement the ${method} method`, {
        code: ErrorCode.METHOD_NOT_IMPLEMENTED,
      })
    }
    const allow = allowedMethods(
      fastify,
      request.url,
      options.autoOptions,
      routed,
      lookupConstraints(fastify, request.raw),
    )
    if (allow.length === 0) return undefined
    if (method === 'OPTIONS' && options.autoOptions) {
      reply
        .code(200)
        .header('allow', allow.join(', '))
        .header('cache-control', 'no-store')
        .header('content-length', '0')
        .send()
      return true
    }
    // The method has a route here: its handler chose not-found (`reply.callNotFound()`), so
    // this is a 404, never a 405 whose Allow lists the very method refused.
    if (allow.includes(method)) return undefined
    // A HEAD where GET too is refused is named as GET: its Content-Length must be the one GET's
    // 405 has (RFC 9110 §9.3.2). Where GET is allowed (`exposeHeadRoutes: false`), GET's answer
    // is not a 405 anyway, and the message names HEAD.
    const named = method === 'HEAD' && !allow.includes('GET') ? 'GET' : method
    // The router is asked about the URL that was routed (`request.url`, less a method
    // override's `_method`); the client is shown the one it sent.
    return httpErrors.methodNotAllowed(
      `Method ${named} is not allowed on ${pathOf(request.originalUrl)}`,
      {
        code: ErrorCode.METHOD_NOT_ALLOWED,
        headers: { allow: allow.join(', ') },
      },
    )
  }
  useRootRequestStep(fastify, 'methods', judge, 'onNotFound')
  // `reply.callNotFound()` (e.g. from a catch-all `OPTIONS *` route handing a plain OPTIONS on)
  // runs only the 404 context's preHandler hooks, so the same judgement is made there too.
  useNotFoundPreHandlerStep(fastify, 'methods', judge, 'onNotFound')
}

/** The `@restwell/methods` plugin. */
export const restwellMethods: FastifyPluginAsync<MethodsOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/methods',
})
