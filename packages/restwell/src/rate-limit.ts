/**
 * Rate limits: 429 in restwell's form, one step of the pipeline's request phase. In memory, a synchronous fixed-window
 * counter of our own; with Redis, and for routes with their own limit, `@fastify/rate-limit`.
 */
import { createRequire } from 'node:module'
import { isIPv6 } from 'node:net'
import { type Static, Type } from '@sinclair/typebox'
import { format, parse } from '@lukeed/ms'
import { ErrorCode, type HttpError, httpErrors, OptionsError } from '@restwell/errors'
import { isAuthGuard, type RequestStep } from '@restwell/core'
import type { FastifyInstance, FastifyReply, FastifyRequest, onRouteHookHandler } from 'fastify'
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
 * With Redis, the root hook runs the user's `keyGenerator` itself, so that its error (a throw,
 * a rejection, an HttpError such as a 401) is answered as in memory mode and not taken for a
 * store failure (a 503, or no limit at all with `failOpen`). The library then reads the key the
 * hook computed; a route with its own limit, which the root hook leaves alone, still has it made.
 */
function computedKeyFirst(keyGenerator: KeyGenerator): KeyGenerator {
  return (request) => {
    const key = (request as unknown as Record<symbol, string | number | null>)[ROOT_KEY]
    return key == null ? keyGenerator(request) : key
  }
}

export function rateLimitPluginOptions(settings: RateLimitSettings): RateLimitPluginOptions {
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
function memoryRateLimitStep(
  settings: RateLimitSettings,
  hasOwnLimit: (request: FastifyRequest) => boolean,
): RequestStep {
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
  return function restwellRateLimit(request, reply) {
    if (hasOwnLimit(request)) return undefined
    const key = keyOf(request)
    if (typeof key === 'object') return key.then((resolved) => count(resolved, reply))
    return count(key, reply)
  }
}

/**
 * The root limit, a step of the pipeline's request phase: it applies to every route, including
 * routes registered before restwell (which an `onRoute`-based limiter never sees) and the
 * 404/405 path. Routes with `config.rateLimit` (an object: their own limit; `false`: none) are
 * left to `@fastify/rate-limit`'s own per-route hook. A Redis failure is fail-open or a 503.
 */
export function rateLimitStep(fastify: FastifyInstance, settings: RateLimitSettings): RequestStep {
  const routeLimit = routeConfigKey(fastify, 'rateLimit')
  // A route with `config.rateLimit` (its own limit, or `false`) is not the root step's to count.
  const hasOwnLimit = (request: FastifyRequest) => routeLimit(request) != null
  if (settings.redis === undefined) return memoryRateLimitStep(settings, hasOwnLimit)
  const limit = fastify.rateLimit()
  const failOpen = settings.failOpen ?? false
  const storeTimeout = settings.storeTimeout ?? DEFAULT_STORE_TIMEOUT
  // The 429 @fastify/rate-limit rejects with, or what a store failure answers: returned to the
  // pipeline, not thrown again.
  const failed = (request: FastifyRequest, error: unknown): Error | undefined => {
    if ((error as { statusCode?: unknown }).statusCode === 429) return error as Error
    request.log.error({ err: error }, 'rate-limit store failed')
    if (failOpen) return undefined
    return httpErrors.serviceUnavailable('Rate limiting is unavailable', {
      code: ErrorCode.OVERLOADED,
      headers: { 'retry-after': STORE_DOWN_RETRY_AFTER },
    })
  }
  // Only what the store (or its timeout) does goes through `failed`.
  const limited = (request: FastifyRequest, reply: FastifyReply): Promise<Error | undefined> =>
    withTimeout(limit.call(fastify, request, reply) as Promise<unknown>, storeTimeout).then(
      () => undefined,
      (error: unknown) => failed(request, error),
    )
  const keyOf = settings.keyGenerator
  if (keyOf === undefined) {
    return function restwellRateLimit(request, reply) {
      if (hasOwnLimit(request)) return undefined
      return limited(request, reply)
    }
  }
  // The user's key is made here, its errors answered as in memory mode; the library reads it
  // back (`computedKeyFirst`).
  fastify.decorateRequest(ROOT_KEY, null)
  return function restwellRateLimit(request, reply) {
    if (hasOwnLimit(request)) return undefined
    const withKey = (resolved: string | number) => {
      ;(request as unknown as Record<symbol, string | number>)[ROOT_KEY] = resolved
      return limited(request, reply)
    }
    const key = keyOf(request)
    if (typeof key === 'object') return key.then(withKey)
    return withKey(key)
  }
}

/** A route's hooks of one kind as a list (Fastify takes a function, a list or nothing). */
function hooksOf(value: unknown): unknown[] {
  if (value === undefined) return []
  return Array.isArray(value) ? value : [value]
}

/** A GET route with its own limit, as its HEAD twin will need it. */
interface LimitedGet {
  /** The route's `config` and `handler` as given: Fastify gives its HEAD twin the same objects. */
  config: unknown
  handler: unknown
  /** The hook `@fastify/rate-limit` adds the route's limiter to, the list it pushes it onto, and where. */
  hook: string
  hooks: unknown[]
  at: number
}

/**
 * Puts a route's limiter just before `@restwell/auth`'s guard among the route's `onRequest`
 * hooks, so a client failing authentication is counted; one moved to `preHandler` stays there.
 */
function limiterFirst(entry: Record<string, unknown>, name: string, limiter: unknown): void {
  if (name !== 'onRequest') return
  const hooks = hooksOf(entry[name])
  const guard = hooks.findIndex(isAuthGuard)
  const at = hooks.indexOf(limiter)
  if (guard === -1 || at < guard) return
  hooks.splice(at, 1)
  hooks.splice(guard, 0, limiter)
  entry[name] = hooks
}

/**
 * Sets up each route with its own `config.rateLimit` before `@fastify/rate-limit`'s `onRoute`
 * hook gives it a limiter: the `timeWindow` is checked (unreadable text would make every request
 * a 500), the HEAD twin of a GET shares the GET's counter (RFC 9110 §9.3.2), the limiter goes
 * before auth's guard (`limiterFirst`), and `failOpen: true` becomes the route's `skipOnError`.
 */
export function routeLimits(settings: RateLimitSettings): RouteLimits {
  const failOpen = settings.failOpen ?? false
  let lastGet: LimitedGet | undefined
  /** Where each route's limiter is to go, once `@fastify/rate-limit` has given it one. */
  const pending = new WeakMap<object, () => void>()
  const onRoute: onRouteHookHandler = (route) => {
    const config = route.config as { rateLimit?: unknown } | undefined
    const own = config?.rateLimit
    if (typeof own !== 'object' || own === null) return
    const { timeWindow, hook } = own as { timeWindow?: unknown; hook?: unknown }
    if (
      timeWindow !== undefined &&
      typeof timeWindow !== 'function' &&
      windowMs(timeWindow) === undefined
    ) {
      throw new OptionsError(
        'restwell',
        'config.rateLimit.timeWindow',
        `of route ${String(route.method)} ${route.url} ${WINDOW_RULE} (got ${shown(timeWindow)})`,
      )
    }
    const entry = route as unknown as Record<string, unknown>
    const get = route.method === 'HEAD' ? lastGet : undefined
    if (get !== undefined && get.config === config && get.handler === route.handler) {
      const limiter = get.hooks[get.at]
      // @fastify/rate-limit 11 pushes its limiter onto the list it finds; were a later version
      // to set a new list instead, the twin would keep a counter of its own rather than fail.
      if (typeof limiter === 'function') {
        entry[get.hook] = [...hooksOf(entry[get.hook]), limiter]
        pending.set(route, () => limiterFirst(entry, get.hook, limiter))
        // The twin is limited by the GET's limiter: `@fastify/rate-limit` must not give it a
        // second one with a counter of its own, which every HEAD would also pay for.
        route.config = { ...route.config, rateLimit: false } as typeof route.config
        return
      }
    } else {
      const name = typeof hook === 'string' ? hook : 'onRequest'
      const hooks = [...hooksOf(entry[name])]
      entry[name] = hooks
      const at = hooks.length
      if ([route.method].flat().includes('GET')) {
        lastGet = { config, handler: route.handler, hook: name, hooks, at }
      }
      pending.set(route, () => limiterFirst(entry, name, hooks[at]))
    }
    if (!failOpen || 'skipOnError' in own) return
    route.config = {
      ...route.config,
      rateLimit: { skipOnError: true, ...own },
    } as typeof route.config
  }
  return {
    onRoute,
    place(route) {
      pending.get(route)?.()
      pending.delete(route)
    },
  }
}

/** A route's own limits: set up before `@fastify/rate-limit`, placed once every plugin's are. */
export interface RouteLimits {
  /** The onRoute hook to add before `@fastify/rate-limit` is registered. */
  onRoute: onRouteHookHandler
  /** Puts the route's limiter before auth's guard; called when the route's plan is made. */
  place(route: object): void
}
