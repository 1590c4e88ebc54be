/**
 * What `Cache-Control` and `Vary` an answer gets: the route's policy, formatted once, decided by
 * the final status (errors and writes `no-store`), `private` where the answer depends on who asks.
 */
import {
  appendVary,
  authenticates,
  type RouteEntry,
  routeName,
  type SendStep,
  type SetupContext,
} from '@restwell/core'
import {
  asksForAuthentication,
  refuseUnguardedRoutes,
  VALIDATED_METHODS,
} from '@restwell/core/internal'
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type CacheDirectives, formatCacheControl, parseCacheControl } from './directives.js'
import type { ResolvedCacheControlOptions, ValidCacheRouteConfig } from './options.js'

/** The plugin's name, as its messages begin. */
export const NAME = '@restwell/cache-control'

/** What an error, an unsafe method and OPTIONS get: nothing may be stored (RFC 9111 §5.2.2.5). */
export const NO_STORE = 'no-store'

/**
 * A formatted policy: `value` for an answer that depends on credentials, `open` for the others
 * (the same unless the policy leaves `private` to the default), and whether a cache may store it.
 */
export interface Policy {
  value: string
  open: string
  stored: boolean
}

const NO_STORE_POLICY: Policy = { value: NO_STORE, open: NO_STORE, stored: false }

/** One route's settings, resolved once when the route is added. */
export interface RouteSettings {
  /** Policy of successful GET/HEAD/QUERY responses (a QUERY answer is cacheable, RFC 10008 §2). */
  read: Policy
  /** Extra `Vary` names for every response. */
  vary: readonly string[]
  varyAuthorization: boolean
  /**
   * The route authenticates: `config.cache.authenticates`, `config.auth` is `true` or a
   * requirement (which a guard must check), or `@restwell/auth`'s guard applies (`AUTHENTICATES`
   * on `route`, read on the first answer, once every plugin's `onRoute` hook has run, whatever
   * the order they were registered in).
   */
  authenticates: boolean | undefined
  route: object
}

const OVERRIDE: unique symbol = Symbol('restwell.cache-control.override')
type WithOverride = { [OVERRIDE]: Policy | null }
/** The value this plugin set on the reply: a later pass (the error answer) may decide again. */
const DECIDED: unique symbol = Symbol('restwell.cache-control.decided')
type WithDecided = { [DECIDED]: string | null }

function toPolicy(directives: CacheDirectives): Policy {
  const value = formatCacheControl(directives)
  const defaultPrivacy =
    directives.private === undefined &&
    directives.public !== true &&
    directives.sMaxAge === undefined
  const open = defaultPrivacy ? formatCacheControl({ ...directives, private: false }) : value
  return { value, open, stored: value !== NO_STORE }
}

/** The request carried credentials (RFC 9110 §11.6.2 `Authorization`, RFC 6265 `Cookie`). */
function carriesCredentials(request: FastifyRequest): boolean {
  return request.headers.authorization !== undefined || request.headers.cookie !== undefined
}

function cachePolicy(this: FastifyReply, directives: CacheDirectives): FastifyReply {
  ;(this as unknown as WithOverride)[OVERRIDE] = toPolicy(directives)
  return this
}

/**
 * Sets `Cache-Control` unless the response already has one (errors and writes `no-store`, else
 * `reply.cachePolicy(...)` or the route's policy), then completes `Vary`.
 */
function decide(request: FastifyRequest, reply: FastifyReply, settings: RouteSettings): void {
  settings.authenticates ??= authenticates(settings.route)
  let existing = reply.getHeader('cache-control')
  // Set by this plugin on an earlier pass (a 200 that a later hook turned into an error): the
  // answer sent now is another, decided anew.
  if (existing !== undefined && existing === (reply as unknown as WithDecided)[DECIDED]) {
    reply.removeHeader('cache-control')
    existing = undefined
  }
  let stored: boolean
  if (existing === NO_STORE) {
    stored = false
  } else if (existing !== undefined) {
    stored = !parseCacheControl(existing).has('no-store')
  } else if (reply.statusCode >= 400) {
    reply.header('cache-control', NO_STORE)
    ;(reply as unknown as WithDecided)[DECIDED] = NO_STORE
    stored = false
  } else {
    const override = (reply as unknown as WithOverride)[OVERRIDE]
    const method = request.method
    const policy = override ?? (VALIDATED_METHODS.has(method) ? settings.read : NO_STORE_POLICY)
    // RFC 9111 §5.2.2.7: what depends on who asks stays out of shared caches.
    const value = settings.authenticates || carriesCredentials(request) ? policy.value : policy.open
    reply.header('cache-control', value)
    ;(reply as unknown as WithDecided)[DECIDED] = value
    stored = policy.stored
  }
  // RFC 9110 §12.5.5: Vary names every request header the answer may depend on; private caches
  // honour it too (RFC 9111 §4.1), so a browser never serves one user's stored copy to another.
  if (stored && settings.varyAuthorization && settings.authenticates) {
    appendVary(reply, ...settings.vary, 'Authorization')
  } else if (settings.vary.length > 0 || reply.hasHeader('vary')) {
    appendVary(reply, ...settings.vary)
  }
}

/** The route's send step: the policy and `Vary` by the final status. */
export function sendStep(settings: RouteSettings): SendStep {
  return function cacheControl(request, reply) {
    decide(request, reply, settings)
    return undefined
  }
}

function policyOf(where: string, directives: CacheDirectives): Policy {
  try {
    return toPolicy(directives)
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`)
  }
}

/**
 * What the route's `config` says: `config.cache.authenticates`, or `config.auth` `true` or a
 * requirement, authenticates; `config.auth: false` does not; undefined when neither says (then
 * `@restwell/auth`'s mark decides).
 */
function configAuthenticates(route: RouteEntry): boolean | undefined {
  const config = route.config as { auth?: unknown; cache?: { authenticates?: unknown } } | undefined
  if (config?.cache?.authenticates === true || asksForAuthentication(route)) return true
  if (config?.auth === false) return false
  return undefined
}

/** The settings of one route: the plugin's, with the route's own `config.cache` over them. */
export function routeSettings(
  plugin: CacheControlSettings,
  route: RouteEntry,
  config: ValidCacheRouteConfig | undefined,
  where: string,
): RouteSettings {
  const { options } = plugin
  const authenticates = configAuthenticates(route)
  if (config === undefined) {
    return {
      read: plugin.policy,
      vary: options.vary,
      varyAuthorization: options.varyAuthorization,
      authenticates,
      route,
    }
  }
  const { vary, varyAuthorization, authenticates: _, ...directives } = config
  return {
    read: policyOf(where, directives),
    vary: vary === undefined ? options.vary : [...options.vary, ...vary],
    varyAuthorization: varyAuthorization ?? options.varyAuthorization,
    authenticates,
    route,
  }
}

/** What the plugin's setup makes of its options: what every route's settings start from. */
export interface CacheControlSettings {
  readonly options: ResolvedCacheControlOptions
  /** The policy of successful reads, formatted once. */
  readonly policy: Policy
  /** The settings of the answers of no route. */
  readonly notFound: RouteSettings
}

/**
 * Decorates replies with `cachePolicy` and formats the plugin's policy once. Alone, a route
 * asking for authentication that no guard checks is refused: it would be public (the umbrella
 * refuses it when its `auth` option is not given).
 */
export function setupCacheControl(
  fastify: FastifyInstance,
  options: ResolvedCacheControlOptions,
  context: SetupContext,
): CacheControlSettings {
  if (!context.pipeline) refuseUnguardedRoutes(fastify, unguarded)
  const policy = policyOf(`${NAME} (option policy)`, options.policy)
  fastify.decorateReply(OVERRIDE as unknown as string, null)
  fastify.decorateReply(DECIDED as unknown as string, null)
  fastify.decorateReply('cachePolicy', cachePolicy)
  return {
    options,
    policy,
    notFound: {
      read: policy,
      vary: options.vary,
      varyAuthorization: options.varyAuthorization,
      // Its answers are errors and automatic OPTIONS (`no-store`): no route's credentials to read.
      authenticates: false,
      route: {},
    },
  }
}

/** The refusal of routes whose `config.auth` nothing checks, with the fixes. */
function unguarded(routes: readonly RouteEntry[]): OptionsError {
  return new OptionsError(
    NAME,
    'config.auth',
    `of ${routes.map(routeName).join(', ')} asks for authentication that no authentication plugin checks there, so the route would be public. Register @restwell/auth (restwell: its \`auth: { verify }\` option) where it reaches the route, or drop config.auth; a route that checks credentials itself says so with \`config.cache: { authenticates: true }\`.`,
  )
}
