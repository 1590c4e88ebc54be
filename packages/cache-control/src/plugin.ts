/** The `@restwell/cache-control` plugin: an explicit `Cache-Control` and an exact `Vary` on every response. */
import { type SendStep, useNotFoundSendStep, useSendStep } from '@restwell/core'
import { appendVary, onEveryRoute, validateOptions } from '@restwell/errors'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RouteOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import type { CacheRouteConfig } from './augment.js'
import {
  type CacheDirectives,
  formatCacheControl,
  isSharedCacheControl,
  isSharedPolicy,
  parseCacheControl,
} from './directives.js'
import {
  type CacheControlOptions,
  CacheControlOptionsSchema,
  CacheRouteConfigSchema,
  type ResolvedCacheControlOptions,
  resolveCacheControlOptions,
} from './options.js'

const NAME = '@restwell/cache-control'

/** What an error, an unsafe method and OPTIONS get: nothing may be stored (RFC 9111 §5.2.2.5). */
export const NO_STORE = 'no-store'

/** A formatted policy, whether any cache may store a response carrying it, and whether a shared one may. */
interface Policy {
  value: string
  stored: boolean
  shared: boolean
}

const NO_STORE_POLICY: Policy = { value: NO_STORE, stored: false, shared: false }

/** One route's settings, resolved once when the route is added. */
interface RouteSettings {
  /** Policy of successful GET/HEAD responses. */
  read: Policy
  /** Extra `Vary` names for every response. */
  vary: readonly string[]
  varyAuthorization: boolean
  /**
   * The answer may depend on the request's credentials: the route is not `config.auth: false`
   * (protected, optional-auth, or unknown to this plugin).
   */
  credentialed: boolean
}

const OVERRIDE: unique symbol = Symbol('restwell.cache-control.override')
type WithOverride = { [OVERRIDE]: Policy | null }
/** The value this plugin set on the reply: a later pass (the error answer) may decide again. */
const DECIDED: unique symbol = Symbol('restwell.cache-control.decided')
type WithDecided = { [DECIDED]: string | null }

function toPolicy(directives: CacheDirectives): Policy {
  const value = formatCacheControl(directives)
  return { value, stored: value !== NO_STORE, shared: isSharedPolicy(directives) }
}

function cacheControl(this: FastifyReply, directives: CacheDirectives): FastifyReply {
  ;(this as unknown as WithOverride)[OVERRIDE] = toPolicy(directives)
  return this
}

/**
 * Sets `Cache-Control` unless the response already has one, then completes `Vary`:
 *   - a `Cache-Control` already set (by the handler, `@restwell/errors`, `@restwell/methods`) is kept;
 *   - status ≥ 400 → `no-store`;
 *   - `reply.cacheControl(...)` for this response → that policy;
 *   - GET or HEAD → the route's policy; any other method → `no-store`.
 * A response any cache may store (anything but `no-store`) gets `Vary: Authorization` (unless
 * turned off) when a shared cache may store it, when the route may answer by the credentials
 * (not `config.auth: false`), or when the request carried `Authorization`; and the route's
 * `vary` names. `Vary` comes out with each name once.
 */
function decide(request: FastifyRequest, reply: FastifyReply, settings: RouteSettings): void {
  let existing = reply.getHeader('cache-control')
  // Set by this plugin on an earlier pass (a 200 that a later hook turned into an error): the
  // answer sent now is another, decided anew.
  if (existing !== undefined && existing === (reply as unknown as WithDecided)[DECIDED]) {
    reply.removeHeader('cache-control')
    existing = undefined
  }
  let stored: boolean
  let shared: boolean
  if (existing === NO_STORE) {
    stored = shared = false
  } else if (existing !== undefined) {
    const parsed = parseCacheControl(existing)
    stored = !parsed.has('no-store')
    shared = isSharedCacheControl(parsed)
  } else if (reply.statusCode >= 400) {
    reply.header('cache-control', NO_STORE)
    ;(reply as unknown as WithDecided)[DECIDED] = NO_STORE
    stored = shared = false
  } else {
    const override = (reply as unknown as WithOverride)[OVERRIDE]
    const method = request.method
    const policy =
      override ?? (method === 'GET' || method === 'HEAD' ? settings.read : NO_STORE_POLICY)
    reply.header('cache-control', policy.value)
    ;(reply as unknown as WithDecided)[DECIDED] = policy.value
    stored = policy.stored
    shared = policy.shared
  }
  // RFC 9110 §12.5.5: Vary names every request header the answer may depend on; private caches
  // honour it too (RFC 9111 §4.1), so a browser never serves one user's stored copy to another.
  if (
    stored &&
    settings.varyAuthorization &&
    (shared || settings.credentialed || request.headers.authorization !== undefined)
  ) {
    appendVary(reply, ...settings.vary, 'Authorization')
  } else if (settings.vary.length > 0 || reply.hasHeader('vary')) {
    appendVary(reply, ...settings.vary)
  }
}

/** The route's send step: the policy and `Vary` by the final status. */
function sendStep(settings: RouteSettings): SendStep {
  return function cacheControl(request, reply) {
    decide(request, reply, settings)
    return undefined
  }
}

function routeName(route: RouteOptions): string {
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  return `${methods.join(',')} ${route.url}`
}

function policyOf(where: string, directives: CacheDirectives): Policy {
  try {
    return toPolicy(directives)
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`)
  }
}

/** False only for a route that says `config.auth: false` (`@restwell/auth`'s public route). */
function isCredentialed(route: RouteOptions): boolean {
  return (route.config as { auth?: unknown } | undefined)?.auth !== false
}

function resolveRoute(
  options: ResolvedCacheControlOptions,
  pluginPolicy: Policy,
  route: RouteOptions,
  raw: CacheRouteConfig | undefined,
): RouteSettings {
  const credentialed = isCredentialed(route)
  if (raw === undefined) {
    return {
      read: pluginPolicy,
      vary: options.vary,
      varyAuthorization: options.varyAuthorization,
      credentialed,
    }
  }
  const where = `${NAME} (config.cache of ${routeName(route)})`
  const { vary, varyAuthorization, ...directives } = validateOptions(
    where,
    CacheRouteConfigSchema,
    raw,
  )
  return {
    read: policyOf(where, directives),
    vary: vary === undefined ? options.vary : [...options.vary, ...vary],
    varyAuthorization: varyAuthorization ?? options.varyAuthorization,
    credentialed,
  }
}

const plugin: FastifyPluginAsync<CacheControlOptions> = async (fastify, rawOptions) => {
  const options = resolveCacheControlOptions(
    validateOptions(NAME, CacheControlOptionsSchema, rawOptions),
  )
  const pluginPolicy = policyOf(`${NAME} (option policy)`, options.policy)
  const notFound: RouteSettings = {
    read: pluginPolicy,
    vary: options.vary,
    varyAuthorization: options.varyAuthorization,
    // No route says what the not-found path answers by (hideRoutes asks it for a token).
    credentialed: true,
  }

  fastify.decorateReply(OVERRIDE as unknown as string, null)
  fastify.decorateReply(DECIDED as unknown as string, null)
  fastify.decorateReply('cacheControl', cacheControl)

  // Alone, the route's hook comes where this plugin is registered: after the plugins whose
  // answers it describes (conditional's 304/412, compression's Vary).
  onEveryRoute(fastify, function cacheControlOnRoute(this: FastifyInstance, route) {
    const raw = route.config?.cache
    if (raw === false) return
    useSendStep(
      this,
      route,
      'cacheControl',
      sendStep(resolveRoute(options, pluginPolicy, route, raw)),
    )
  })

  // Responses of no route (the not-found handler, Fastify's own 404/400 for a bad URL) never
  // pass through a route's hooks.
  useNotFoundSendStep(fastify, 'cacheControl', sendStep(notFound))
}

/** The `@restwell/cache-control` plugin. */
export const restwellCacheControl: FastifyPluginAsync<CacheControlOptions> = fp(plugin, {
  fastify: '5.x',
  name: NAME,
})
