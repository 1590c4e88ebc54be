/**
 * Rate limits: 429 in restwell's form, a root step of the pipeline and a route step for a route's
 * own limit. The root limit in memory is a synchronous fixed-window counter of our own; with
 * Redis, and for routes with their own limit, the limiters are `@fastify/rate-limit`'s.
 */
import { createRequire } from 'node:module'
import { isIPv6 } from 'node:net'
import { type Static, Type } from '@sinclair/typebox'
import { format, parse } from '@lukeed/ms'
import { ErrorCode, type HttpError, httpErrors, OptionsError } from '@restwell/errors'
import {
  addRouteHook,
  twinSourceOf,
  parsingHook,
  type RequestStep,
  type RouteEntry,
  requestHook,
  useRootRequestStep,
  useRouteStep,
  routeName,
} from '@restwell/core'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onRouteHookHandler,
} from 'fastify'
import type { RateLimitPluginOptions } from '@fastify/rate-limit'
import type { Address6 as IPv6Address } from 'ip-address'
import { LruMap } from 'toad-cache'
import { routeConfigKey } from './route-config.js'

export const RateLimitSettingsSchema = Type.Object(
  {
    max: Type.Optional(Type.Integer({ minimum: 1 })),
    timeWindow: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1 }), Type.String({ minLength: 1 })]),
    ),
    redis: Type.Optional(Type.Unsafe<object>(Type.Object({}))),
    nameSpace: Type.Optional(Type.String({ minLength: 1 })),
    failOpen: Type.Optional(Type.Boolean()),
    storeTimeout: Type.Optional(Type.Integer({ minimum: 1 })),
    allowList: Type.Optional(Type.Array(Type.String())),
    keyGenerator: Type.Optional(Type.Unsafe<RateLimitPluginOptions['keyGenerator']>(Type.Any())),
  },
  { additionalProperties: false },
)

/**
 * @param max Requests per client per window. [1000]
 * @param timeWindow Window in ms or as text ('1 minute'). ['1 minute']
 * @param redis An ioredis client: counters shared by every instance. [in memory]
 * @param nameSpace Redis key prefix. ['restwell-rate-limit-']
 * @param failOpen When the store fails, let requests through (true) or answer 503 (false). [false]
 * @param storeTimeout Longest wait (ms) for the Redis store; then it counts as failed. [1000]
 * @param allowList Client keys (IPs by default) never limited. [[]]
 * @param keyGenerator `(request) => key`. [the client IP]
 */
export type RateLimitSettings = Static<typeof RateLimitSettingsSchema>

/** Seconds a client is told to wait when the rate-limit store is unavailable. */
const STORE_DOWN_RETRY_AFTER = 5

/** Default longest wait for the Redis store, in ms. */
export const DEFAULT_STORE_TIMEOUT = 1000

/**
 * `work`, or a rejection after `ms`. An ioredis client queues commands while it reconnects
 * (by default for 20 reconnection attempts, tens of seconds), so a lost Redis would otherwise
 * hold every request that long. A late answer after the timeout is dropped.
 */
function withTimeout(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`rate-limit store did not answer within ${ms} ms`)),
      ms,
    )
  })
  work.catch(() => {})
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** Requests per client per window, and the window, when not set. */
const DEFAULT_MAX = 1000
const DEFAULT_TIME_WINDOW = '1 minute'

/** What a `timeWindow` must be, for the options error. */
const WINDOW_RULE =
  "must be a whole number of milliseconds ≥ 1 or a duration @lukeed/ms reads ('1 minute', '30 seconds', '2h')"

/** A given value in an options error: text quoted, anything else as `String` writes it. */
const shown = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : String(value)

/**
 * A window in ms: an integer >= 1, or text `@lukeed/ms` reads to at least 1 ms. Undefined for
 * anything else: `parse` answers undefined for text it cannot read ('one minute'), which would
 * make every window NaN (never reset, `X-RateLimit-Reset: NaN`), and a negative or zero window
 * limits nothing.
 */
function windowMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 ? value : undefined
  if (typeof value !== 'string') return undefined
  const ms = parse(value)
  return ms !== undefined && Number.isFinite(ms) && ms >= 1 ? ms : undefined
}

/** The root window in ms; an unreadable `timeWindow` fails registration. */
function rootTimeWindow(settings: RateLimitSettings): number {
  const given = settings.timeWindow ?? DEFAULT_TIME_WINDOW
  const ms = windowMs(given)
  if (ms === undefined) {
    throw new OptionsError(
      'restwell',
      'rateLimit.timeWindow',
      `${WINDOW_RULE} (got ${shown(given)})`,
    )
  }
  return ms
}

/** Clients whose windows the memory store keeps (least recently seen forgotten first). */
export const MEMORY_CLIENTS = 5000

/** The 429, from both limiters. */
function rateLimited(max: number, retryIn: string): HttpError {
  return httpErrors.tooManyRequests(
    `Rate limit exceeded: ${max} requests per window; retry in ${retryIn}`,
    { code: ErrorCode.RATE_LIMITED },
  )
}

/** The client key the root hook computed (Redis with a `keyGenerator`), for the library to read. */
const ROOT_KEY = Symbol('restwell.rateLimitKey')

type KeyGenerator = NonNullable<RateLimitPluginOptions['keyGenerator']>

/**
 * With Redis, the key a step made first (`limiterStep`), for the library to read back; a
 * request no step made one for has it made here.
 */
function computedKeyFirst(keyGenerator: KeyGenerator): KeyGenerator {
  return (request) => {
    const key = (request as unknown as Record<symbol, string | number | null>)[ROOT_KEY]
    return key == null ? keyGenerator(request) : key
  }
}

function rateLimitPluginOptions(settings: RateLimitSettings): RateLimitPluginOptions {
  return {
    global: false,
    max: settings.max ?? DEFAULT_MAX,
    timeWindow: rootTimeWindow(settings),
    ...(settings.redis === undefined
      ? {}
      : { redis: settings.redis as RateLimitPluginOptions['redis'] }),
    nameSpace: settings.nameSpace ?? 'restwell-rate-limit-',
    skipOnError: false,
    allowList: settings.allowList ?? [],
    ...(settings.keyGenerator === undefined
      ? {}
      : {
          keyGenerator:
            settings.redis === undefined
              ? settings.keyGenerator
              : computedKeyFirst(settings.keyGenerator),
        }),
    errorResponseBuilder: (_request, context) => rateLimited(context.max, context.after),
  }
}

/**
 * The default client key, as `@fastify/rate-limit` makes it: the IP, an IPv4-mapped IPv6
 * address as IPv4, any other IPv6 address as its /64 network (one host holds a whole /64).
 * A string without `:` is never IPv6, so the common case skips the IPv6 test.
 */
export function clientKey(ip: string): string {
  if (!ip.includes(':') || !isIPv6(ip)) return ip.toLowerCase()
  const Address6 = address6()
  const address = new Address6(ip)
  if (address.isMapped4()) return address.to4().correctForm()
  return new Address6(`${ip}/64`).startAddress().correctForm()
}

let Address6Class: typeof IPv6Address | undefined

/** ip-address's `Address6`, loaded for the first IPv6 client: importing restwell does not load it. */
function address6(): typeof IPv6Address {
  Address6Class ??= (createRequire(import.meta.url)('ip-address') as typeof import('ip-address'))
    .Address6
  return Address6Class
}

/** One client's window: requests counted since `start` (ms). */
interface Window {
  count: number
  start: number
}

/**
 * The root limit with the counters in this process: a fixed window per client that starts at
 * its first request, the least recently seen of `MEMORY_CLIENTS` forgotten first, as
 * `@fastify/rate-limit`'s memory store keeps them. Counted synchronously: the library's handler
 * awaits three promises per request (key, store callback, its own async function) for a store
 * that answers at once.
 */
function memoryRateLimitStep(settings: RateLimitSettings): RequestStep {
  const max = settings.max ?? DEFAULT_MAX
  const window = rootTimeWindow(settings)
  const allowed = new Set<string | number>(settings.allowList)
  const keyOf = settings.keyGenerator ?? ((request: FastifyRequest) => clientKey(request.ip))
  const windows = new LruMap<Window>(MEMORY_CLIENTS)
  const count = (key: string | number, reply: FastifyReply): HttpError | undefined => {
    if (allowed.has(key)) return undefined
    const now = Date.now()
    let seen = windows.get(key)
    if (seen === undefined || seen.start + window <= now) {
      seen = { count: 0, start: now }
      windows.set(key, seen)
    }
    seen.count++
    const reset = Math.ceil((seen.start + window - now) / 1000)
    reply.header('x-ratelimit-limit', max)
    reply.header('x-ratelimit-remaining', seen.count > max ? 0 : max - seen.count)
    reply.header('x-ratelimit-reset', reset)
    if (seen.count <= max) return undefined
    reply.header('retry-after', reset)
    return rateLimited(max, format(reset * 1000, true) as string)
  }
  return function memoryRateLimit(request, reply) {
    const key = keyOf(request)
    if (typeof key === 'object') return key.then((resolved) => count(resolved, reply))
    return count(key, reply)
  }
}

/** A limiter of `@fastify/rate-limit`: its request hook (`fastify.rateLimit()`). */
type Limiter = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>

/**
 * What a limiter backed by a store becomes in the pipeline: a step that answers its 429, and a
 * store that fails or does not answer within `storeTimeout` (Redis lost, ioredis queueing) as a
 * 503 with `Retry-After`, or lets the request through when `failOpen`. With a `keyOf`, the
 * client key is made first, so that its error (a throw, a rejection, an HttpError such as a
 * 401) is answered as such and not taken for a store failure; the library reads it back.
 */
function limiterStep(
  limiter: Limiter,
  settings: RateLimitSettings,
  failOpen: boolean,
  keyOf: KeyGenerator | undefined,
): RequestStep {
  const redis = settings.redis !== undefined
  const storeTimeout = settings.storeTimeout ?? DEFAULT_STORE_TIMEOUT
  const failed = (request: FastifyRequest, error: unknown): Error | undefined => {
    if ((error as { statusCode?: unknown }).statusCode === 429) return error as Error
    request.log.error({ err: error }, 'rate-limit store failed')
    if (failOpen) return undefined
    return httpErrors.serviceUnavailable('Rate limiting is unavailable', {
      code: ErrorCode.OVERLOADED,
      headers: { 'retry-after': STORE_DOWN_RETRY_AFTER },
    })
  }
  // In memory the store cannot fail: what the limiter rejects with (its 429) is the answer.
  const limited = redis
    ? (request: FastifyRequest, reply: FastifyReply): Promise<Error | undefined> =>
        withTimeout(limiter(request, reply), storeTimeout).then(
          () => undefined,
          (error: unknown) => failed(request, error),
        )
    : (request: FastifyRequest, reply: FastifyReply): Promise<Error | undefined> =>
        limiter(request, reply).then(
          () => undefined,
          (error: unknown) => error as Error,
        )
  if (keyOf === undefined) return limited
  return function keyFirst(request, reply) {
    const withKey = (resolved: string | number) => {
      ;(request as unknown as Record<symbol, string | number>)[ROOT_KEY] = resolved
      return limited(request, reply)
    }
    const key = keyOf(request)
    if (typeof key === 'object') return key.then(withKey)
    return withKey(key)
  }
}

/**
 * Sets up rate limits: `@fastify/rate-limit` (its store, keys, headers and per-route options)
 * and the root step of the pipeline's request phase. The root limit applies to every route,
 * including routes registered before restwell and the 404/405 path; in memory it is a counter
 * of our own (`memoryRateLimitStep`). Routes with `config.rateLimit` (an object: their own
 * limit; `false`: none) are left to `routeLimits`.
 */
export async function installRateLimits(
  fastify: FastifyInstance,
  settings: RateLimitSettings,
): Promise<RouteLimits> {
  const limits = routeLimits(settings)
  // Before the library's own onRoute hook, which makes each route's own limiter.
  fastify.addHook('onRoute', limits.onRoute)
  if (settings.redis !== undefined) fastify.decorateRequest(ROOT_KEY, null)
  // Imported here, not at the top: an app that turns rate limits off never loads it. Called
  // on this instance rather than registered: its decorators and onRoute hook land here as
  // they would, but not its name, so an app's own @fastify/rate-limit, registered before or
  // after restwell, is told apart by `hasPlugin` (overlaps.ts).
  const { fastifyRateLimit } = await import('@fastify/rate-limit')
  await (fastifyRateLimit as unknown as FastifyPluginAsync<RateLimitPluginOptions>)(
    fastify,
    rateLimitPluginOptions(settings),
  )
  const routeLimit = routeConfigKey(fastify, 'rateLimit')
  // A route with `config.rateLimit` (its own limit, or `false`) is not the root step's to count.
  const hasOwnLimit = (request: FastifyRequest) => routeLimit(request) != null
  const step =
    settings.redis === undefined
      ? memoryRateLimitStep(settings)
      : limiterStep(
          fastify.rateLimit() as Limiter,
          settings,
          settings.failOpen ?? false,
          settings.keyGenerator,
        )
  useRootRequestStep(fastify, 'rateLimit', function restwellRateLimit(request, reply) {
    if (hasOwnLimit(request)) return undefined
    return step(request, reply)
  })
  return limits
}

/**
 * The route option `@fastify/rate-limit` is told (its `hook` option) to put a route's own
 * limiter in: Fastify runs no hook from it, and the route's plan takes the limiter from there.
 */
const OWN_LIMITER = 'restwellOwnRateLimit'

/** Where a route's own limit runs, and, once made, its step (a GET's HEAD twin shares it). */
interface OwnLimit {
  /** `config.rateLimit.hook`: `onRequest` unless moved. */
  readonly phase: string
  /** Whether a failing store lets the route's requests through (its `skipOnError`, else `failOpen`). */
  readonly failOpen: boolean
  /** The key function made first with Redis (the route's, else the root's). */
  readonly keyOf: KeyGenerator | undefined
  step?: RequestStep
}

/** A GET route with its own limit, as its HEAD twin will need it. */
interface LimitedGet {
  /** The route's `config` and `handler` as given: Fastify gives its HEAD twin the same objects. */
  readonly config: unknown
  readonly handler: unknown
  readonly limit: OwnLimit
}

/**
 * A route's own `config.rateLimit`: its window is checked (unreadable text would make every
 * request a 500); `@fastify/rate-limit` makes its limiter; the pipeline runs it as a step of the
 * route, before auth's guard (or in `preHandler` with `hook: 'preHandler'`), its store failures
 * answered as the root limit's; the HEAD twin of a GET shares the GET's counter (RFC 9110 §9.3.2).
 */
function routeLimits(settings: RateLimitSettings): RouteLimits {
  const failOpen = settings.failOpen ?? false
  const redis = settings.redis !== undefined
  let lastGet: LimitedGet | undefined
  const limits = new WeakMap<object, OwnLimit>()
  /** Each route's own limit, for its method-override twins (added once it is planned). */
  const families = new WeakMap<object, OwnLimit>()
  const onRoute: onRouteHookHandler = (route) => {
    const config = route.config as { rateLimit?: unknown } | undefined
    const own = config?.rateLimit
    if (typeof own !== 'object' || own === null) return
    const { timeWindow, hook, skipOnError, keyGenerator } = own as {
      timeWindow?: unknown
      hook?: unknown
      skipOnError?: unknown
      keyGenerator?: KeyGenerator
    }
    if (
      timeWindow !== undefined &&
      typeof timeWindow !== 'function' &&
      windowMs(timeWindow) === undefined
    ) {
      throw new OptionsError(
        'restwell',
        'config.rateLimit.timeWindow',
        `of route ${routeName(route)} ${WINDOW_RULE} (got ${shown(timeWindow)})`,
      )
    }
    const get = route.method === 'HEAD' ? lastGet : undefined
    // A twin (method override's, a version's) is limited as its route, by its counter.
    const twinOf = twinSourceOf(route)
    const shared =
      twinOf !== undefined
        ? families.get(twinOf)
        : get !== undefined && get.config === config && get.handler === route.handler
          ? get.limit
          : undefined
    if (shared !== undefined) {
      limits.set(route, shared)
      // The twin is limited by its route's step: `@fastify/rate-limit` must not give it a
      // second limiter with a counter of its own.
      route.config = { ...route.config, rateLimit: false } as typeof route.config
      return
    }
    const keyOf = redis ? (keyGenerator ?? settings.keyGenerator) : undefined
    const limit: OwnLimit = {
      phase: typeof hook === 'string' ? hook : 'onRequest',
      failOpen: typeof skipOnError === 'boolean' ? skipOnError : failOpen,
      keyOf,
    }
    limits.set(route, limit)
    families.set(route, limit)
    if ([route.method].flat().includes('GET')) lastGet = { config, handler: route.handler, limit }
    // Store errors come to the step (storeTimeout, failOpen, 503), not to the library.
    route.config = {
      ...route.config,
      rateLimit: {
        ...own,
        hook: OWN_LIMITER,
        skipOnError: false,
        ...(keyOf === undefined ? {} : { keyGenerator: computedKeyFirst(keyOf) }),
      },
      // `hook` names no lifecycle hook here: the slot is ours (OWN_LIMITER).
    } as unknown as typeof route.config
  }
  return {
    onRoute,
    plan(fastify, route) {
      const limit = limits.get(route)
      if (limit === undefined) return
      limits.delete(route)
      const entry = route as unknown as Record<string, unknown>
      if (limit.step === undefined) {
        // @fastify/rate-limit 11 puts the limiter in a list where its `hook` option says.
        const limiter = (entry[OWN_LIMITER] as unknown[] | undefined)?.[0]
        /* c8 ignore next 5: what a version that stopped doing so would meet */
        if (typeof limiter !== 'function') {
          throw new Error(
            `restwell: @fastify/rate-limit made no limiter for route ${routeName(route)}; this version of @fastify/rate-limit is not supported`,
          )
        }
        limit.step = limiterStep(limiter as Limiter, settings, limit.failOpen, limit.keyOf)
      }
      delete entry[OWN_LIMITER]
      const step = limit.step
      if (limit.phase === 'onRequest') useRouteStep(fastify, route, 'guard', 'rateLimit', step)
      else if (limit.phase === 'preHandler') {
        useRouteStep(fastify, route, 'preHandler', 'rateLimit', step)
      } else {
        // preParsing or preValidation: a hook of the route's own, last, as the library adds it.
        const hook =
          limit.phase === 'preParsing'
            ? parsingHook('restwellRateLimit', [step])
            : requestHook('restwellRateLimit', [step])
        addRouteHook(route, limit.phase as 'preParsing' | 'preValidation', hook)
      }
    },
  }
}

/** A route's own limits: set up before `@fastify/rate-limit`, planned once every plugin's are. */
export interface RouteLimits {
  /** The onRoute hook to add before `@fastify/rate-limit` is registered. */
  onRoute: onRouteHookHandler
  /** Hands the route's limiter to its plan (`fastify` is the umbrella's instance). */
  plan(fastify: FastifyInstance, route: RouteEntry): void
}
