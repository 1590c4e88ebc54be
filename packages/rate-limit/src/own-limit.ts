/**
 * A route's own limit (`config.rateLimit`, an object): its window checked when the route is
 * added, its limiter made by `@fastify/rate-limit` in a slot of ours rather than a hook, and run
 * as a step of the route, before auth's guard or where its `hook` says. A route's twins (its
 * HEAD, a method override's, a version's) share its counter (RFC 9110 §9.3.2).
 */
import { type RequestStep, type RouteEntry, routeName } from '@restwell/core'
import { addRouteHook, parsingHook, requestHook, twinSourceOf } from '@restwell/core/internal'
import { OptionsError } from '@restwell/errors'
import type { onRouteHookHandler } from 'fastify'
import { rateLimited } from './answers.js'
import type { DescribedLimit } from './describe.js'
import { announcement, POLICY_NAME } from './fields.js'
import {
  type KeyGenerator,
  type ResolvedRateLimitOptions,
  shown,
  WINDOW_RULE,
  windowMs,
} from './options.js'
import { computedKeyFirst, type Limiter, limiterStep, type StoreSettings } from './store.js'

/**
 * The route option `@fastify/rate-limit` is told (its `hook` option) to put a route's own
 * limiter in: Fastify runs no hook from it, and the route's steps take the limiter from there.
 */
const OWN_LIMITER = 'restwellOwnRateLimit'

/** Where a route's own limit runs, and, once made, its step (its twins share it). */
interface OwnLimit extends DescribedLimit {
  /** How its limiter meets the store (its `skipOnError` over `failOpen`; its key made first). */
  readonly store: StoreSettings
  /** `config.rateLimit` as `@fastify/rate-limit` is given it, for the route and its twins. */
  readonly config: object
  step?: RequestStep
}

/** A GET route with its own limit, as its HEAD twin will need it. */
interface LimitedGet {
  /** The route's `config` and `handler` as given: Fastify gives its HEAD twin the same objects. */
  readonly config: unknown
  readonly handler: unknown
  readonly limit: OwnLimit
}

/** The own limits of one registration's routes, from the route being added to its steps. */
export interface OwnLimits {
  /** Each route's limit, until its steps are made. */
  readonly pending: WeakMap<object, OwnLimit>
  /** Each route's limit, for its method-override and version twins (added once it is planned). */
  readonly families: WeakMap<object, OwnLimit>
  /** Each route's limit, twins' too, for the OpenAPI document. */
  readonly described: WeakMap<object, DescribedLimit>
  /** The last GET with its own limit: Fastify adds its HEAD twin right after it. */
  lastGet: LimitedGet | undefined
}

export function ownLimits(): OwnLimits {
  return {
    pending: new WeakMap(),
    families: new WeakMap(),
    described: new WeakMap(),
    lastGet: undefined,
  }
}

/** Refuses a route's window that names no window (unreadable text would make every request a 500). */
function checkWindow(route: RouteEntry, timeWindow: unknown, plugin: string): void {
  if (timeWindow === undefined || typeof timeWindow === 'function') return
  if (windowMs(timeWindow) !== undefined) return
  throw new OptionsError(
    plugin,
    'config.rateLimit.timeWindow',
    `of route ${routeName(route)} ${WINDOW_RULE} (got ${shown(timeWindow)})`,
  )
}

/**
 * A route's policy name in the IETF fields: its `config.rateLimit.policy`, else its name
 * (`GET /login`) as an RFC 9651 String may carry it. A name it cannot carry is refused.
 */
function policyOf(route: RouteEntry, policy: unknown, plugin: string): string {
  if (policy === undefined) {
    return routeName(route).replace(/[^\x20-\x7e]/gu, (character) => encodeURIComponent(character))
  }
  if (typeof policy === 'string' && POLICY_NAME.test(policy)) return policy
  throw new OptionsError(
    plugin,
    'config.rateLimit.policy',
    `of route ${routeName(route)} must be a non-empty string of printable ASCII, as an RFC 9651 String carries it (got ${shown(policy)})`,
  )
}

/** The limit `route` shares: its source's, for a twin, or its GET's, for a HEAD. */
function sharedLimit(limits: OwnLimits, route: RouteEntry, config: unknown): OwnLimit | undefined {
  const source = twinSourceOf(route)
  if (source !== undefined) return limits.families.get(source)
  const get = route.method === 'HEAD' ? limits.lastGet : undefined
  return get !== undefined && get.config === config && get.handler === route.handler
    ? get.limit
    : undefined
}

/** A route's own limit from its `config.rateLimit`, the library's copy of it rewritten. */
function ownLimit(
  own: Record<string, unknown>,
  options: ResolvedRateLimitOptions,
  policy: string,
  rootWindow: number,
): OwnLimit {
  const { hook, skipOnError, keyGenerator, timeWindow, max } = own
  // A window a function gives is not fixed: the policy then names none.
  const announced = announcement(
    options.headers,
    policy,
    timeWindow === undefined ? rootWindow : windowMs(timeWindow),
  )
  const keyOf =
    options.redis === undefined
      ? undefined
      : ((keyGenerator as KeyGenerator | undefined) ?? options.keyGenerator)
  return {
    phase: typeof hook === 'string' ? hook : 'onRequest',
    announced,
    // A function gives the quota per request.
    quota: max === undefined ? options.max : typeof max === 'number' ? max : undefined,
    store: {
      redis: options.redis !== undefined,
      storeTimeout: options.storeTimeout,
      failOpen: typeof skipOnError === 'boolean' ? skipOnError : options.failOpen,
      keyOf,
      announced,
    },
    // Store errors come to the step (storeTimeout, failOpen, 503), not to the library; `hook`
    // names no lifecycle hook here: the slot is ours. Its 429 names its own policy.
    config: {
      errorResponseBuilder: (_request: unknown, context: { max: number; after: string }) =>
        rateLimited(context.max, context.after, announced.policy),
      ...own,
      hook: OWN_LIMITER,
      skipOnError: false,
      ...(keyOf === undefined ? {} : { keyGenerator: computedKeyFirst(keyOf) }),
    },
  }
}

/**
 * The `onRoute` hook to add before `@fastify/rate-limit`'s: it checks a route's own window and
 * hands the library the route's `config.rateLimit` rewritten (a twin gets its source's).
 */
export function prepareOwnLimits(
  limits: OwnLimits,
  options: ResolvedRateLimitOptions,
  rootWindow: number,
  plugin: string,
): onRouteHookHandler {
  return function restwellRateLimitRoute(route) {
    const config = route.config as { rateLimit?: unknown } | undefined
    const own = config?.rateLimit
    if (typeof own !== 'object' || own === null) return
    checkWindow(route, (own as { timeWindow?: unknown }).timeWindow, plugin)
    let limit = sharedLimit(limits, route, config)
    if (limit === undefined) {
      const policy = policyOf(route, (own as { policy?: unknown }).policy, plugin)
      limit = ownLimit(own as Record<string, unknown>, options, policy, rootWindow)
      limits.families.set(route, limit)
      if ([route.method].flat().includes('GET')) {
        limits.lastGet = { config, handler: route.handler, limit }
      }
    }
    limits.pending.set(route, limit)
    limits.described.set(route, limit)
    route.config = { ...route.config, rateLimit: limit.config } as typeof route.config
  }
}

/**
 * The steps of a route's own limit, once `@fastify/rate-limit` made its limiter: a `guard` step
 * (its `hook` left as `onRequest`), a `beforeHandler` step (`hook: 'preHandler'`), or, for
 * `preParsing` and `preValidation`, a hook of the route's own, last, where the library puts it.
 * A twin's limiter is its source's: the library's own for it is dropped.
 */
export function ownLimitSteps(
  limits: OwnLimits,
  route: RouteEntry,
  plugin: string,
): { readonly guard?: RequestStep; readonly beforeHandler?: RequestStep } | undefined {
  const limit = limits.pending.get(route)
  if (limit === undefined) return undefined
  limits.pending.delete(route)
  const entry = route as unknown as Record<string, unknown>
  if (limit.step === undefined) {
    // @fastify/rate-limit 11 puts the limiter in a list where its `hook` option says.
    const limiter = (entry[OWN_LIMITER] as unknown[] | undefined)?.[0]
    /* c8 ignore next 5: what a version that stopped doing so would meet */
    if (typeof limiter !== 'function') {
      throw new Error(
        `${plugin}: @fastify/rate-limit made no limiter for route ${routeName(route)}; this version of @fastify/rate-limit is not supported`,
      )
    }
    limit.step = limiterStep(limiter as Limiter, limit.store)
  }
  delete entry[OWN_LIMITER]
  const step = limit.step
  if (limit.phase === 'onRequest') return { guard: step }
  if (limit.phase === 'preHandler') return { beforeHandler: step }
  const hook =
    limit.phase === 'preParsing'
      ? parsingHook('restwellRateLimit', [step])
      : requestHook('restwellRateLimit', [step])
  addRouteHook(route, limit.phase as 'preParsing' | 'preValidation', hook)
  return undefined
}
