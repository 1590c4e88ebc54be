/** Rate limits through `@fastify/rate-limit`: 429 in restwell's form, one root hook, Redis or memory. */
import { type Static, Type } from '@sinclair/typebox'
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import type {
  FastifyInstance,
  FastifyRequest,
  onRequestHookHandler,
  onRouteHookHandler,
} from 'fastify'
import type { RateLimitPluginOptions } from '@fastify/rate-limit'

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

export function rateLimitPluginOptions(settings: RateLimitSettings): RateLimitPluginOptions {
  return {
    global: false,
    max: settings.max ?? 1000,
    timeWindow: settings.timeWindow ?? '1 minute',
    ...(settings.redis === undefined
      ? {}
      : { redis: settings.redis as RateLimitPluginOptions['redis'] }),
    nameSpace: settings.nameSpace ?? 'restwell-rate-limit-',
    skipOnError: false,
    allowList: settings.allowList ?? [],
    ...(settings.keyGenerator === undefined ? {} : { keyGenerator: settings.keyGenerator }),
    errorResponseBuilder: (_request, context) =>
      httpErrors.tooManyRequests(
        `Rate limit exceeded: ${context.max} requests per ${context.after}`,
        {
          code: ErrorCode.RATE_LIMITED,
        },
      ),
  }
}

/**
 * One root `onRequest` hook applies the limit to every route, including routes registered
 * before restwell (which an `onRoute`-based limiter never sees) and the 404/405 path. Routes
 * with `config.rateLimit` (an object: their own limit; `false`: none) are left to
 * `@fastify/rate-limit`'s own per-route hook. A store failure is fail-open or a 503.
 */
export function rateLimitHook(
  fastify: FastifyInstance,
  settings: RateLimitSettings,
): onRequestHookHandler {
  const limit = fastify.rateLimit()
  const failOpen = settings.failOpen ?? false
  // The memory store answers at once; only a remote store gets a timer (no cost otherwise).
  const storeTimeout =
    settings.redis === undefined ? 0 : (settings.storeTimeout ?? DEFAULT_STORE_TIMEOUT)
  const failed = (request: FastifyRequest, error: unknown): HttpError | undefined => {
    if ((error as { statusCode?: unknown }).statusCode === 429) return error as HttpError
    request.log.error({ err: error }, 'rate-limit store failed')
    if (failOpen) return undefined
    return httpErrors.serviceUnavailable('Rate limiting is unavailable', {
      code: ErrorCode.OVERLOADED,
      headers: { 'retry-after': STORE_DOWN_RETRY_AFTER },
    })
  }
  // A callback hook, not an async one: `@fastify/rate-limit`'s handler is already a promise,
  // and awaiting it inside another would cost every request one more promise and tick.
  return function restwellRateLimit(request, reply, done) {
    const own = (request.routeOptions.config as { rateLimit?: unknown }).rateLimit
    if (own !== undefined && own !== null) return done()
    const work = limit.call(fastify, request, reply) as Promise<unknown>
    ;(storeTimeout === 0 ? work : withTimeout(work, storeTimeout)).then(
      () => done(),
      (error: unknown) => done(failed(request, error)),
    )
  }
}

/**
 * A route with its own `config.rateLimit` object is limited by `@fastify/rate-limit`'s per-route
 * hook, not by the umbrella's: `failOpen: true` becomes that route's `skipOnError` (unless the
 * route sets it), so a store failure lets its requests through as on every other route. With
 * `failOpen: false` the store's error goes to the error handler (a masked 500).
 */
export function routeFailOpen(settings: RateLimitSettings): onRouteHookHandler {
  const failOpen = settings.failOpen ?? false
  return (route) => {
    const own = (route.config as { rateLimit?: unknown } | undefined)?.rateLimit
    if (!failOpen || typeof own !== 'object' || own === null || 'skipOnError' in own) return
    route.config = {
      ...route.config,
      rateLimit: { skipOnError: true, ...own },
    } as typeof route.config
  }
}
