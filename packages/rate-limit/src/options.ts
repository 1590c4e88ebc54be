/** Options of `@restwell/rate-limit`, their defaults, and what a time window may be. */
import type { RateLimitPluginOptions } from '@fastify/rate-limit'
import { parse } from '@lukeed/ms'
import { type Static, Type } from '@sinclair/typebox'
import { DEFAULT_POLICY, type HeaderFields, POLICY_NAME } from './fields.js'

export const RateLimitOptionsSchema = Type.Object(
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
    headers: Type.Optional(
      Type.Union([Type.Literal('x-ratelimit'), Type.Literal('ietf'), Type.Literal('both')]),
    ),
    policy: Type.Optional(Type.String({ pattern: POLICY_NAME.source })),
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
 * @param headers The fields a limit sends: `X-RateLimit-*`, the IETF `RateLimit-Policy` and
 *   `RateLimit`, or both. ['x-ratelimit']
 * @param policy The root limit's policy name in the IETF fields. ['default']
 */
export type RateLimitOptions = Static<typeof RateLimitOptionsSchema>

/** How `@fastify/rate-limit` makes a client's key. */
export type KeyGenerator = NonNullable<RateLimitPluginOptions['keyGenerator']>

/** The options with their defaults applied (the window as given: see `windowMs`). */
export interface ResolvedRateLimitOptions {
  readonly max: number
  readonly timeWindow: number | string
  readonly redis: object | undefined
  readonly nameSpace: string
  readonly failOpen: boolean
  readonly storeTimeout: number
  readonly allowList: readonly string[]
  readonly keyGenerator: KeyGenerator | undefined
  readonly headers: HeaderFields
  readonly policy: string
}

/** Requests per client per window when not set. */
export const DEFAULT_MAX = 1000

/** The window when not set. */
export const DEFAULT_TIME_WINDOW = '1 minute'

/** Default longest wait for the Redis store, in ms. */
export const DEFAULT_STORE_TIMEOUT = 1000

/** Default Redis key prefix. */
export const DEFAULT_NAMESPACE = 'restwell-rate-limit-'

export function resolveRateLimitOptions(options: RateLimitOptions): ResolvedRateLimitOptions {
  return {
    max: options.max ?? DEFAULT_MAX,
    timeWindow: options.timeWindow ?? DEFAULT_TIME_WINDOW,
    redis: options.redis,
    nameSpace: options.nameSpace ?? DEFAULT_NAMESPACE,
    failOpen: options.failOpen ?? false,
    storeTimeout: options.storeTimeout ?? DEFAULT_STORE_TIMEOUT,
    allowList: options.allowList ?? [],
    keyGenerator: options.keyGenerator,
    headers: options.headers ?? 'x-ratelimit',
    policy: options.policy ?? DEFAULT_POLICY,
  }
}

/** What a `timeWindow` must be, for the options error. */
export const WINDOW_RULE =
  "must be a whole number of milliseconds ≥ 1 or a duration @lukeed/ms reads ('1 minute', '30 seconds', '2h')"

/** A given value in an options error: text quoted, anything else as `String` writes it. */
export const shown = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : String(value)

/**
 * A window in ms: an integer >= 1, or text `@lukeed/ms` reads to at least 1 ms. Undefined for
 * anything else: `parse` answers undefined for text it cannot read ('one minute'), which would
 * make every window NaN (never reset, `X-RateLimit-Reset: NaN`), and a negative or zero window
 * limits nothing.
 */
export function windowMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 ? value : undefined
  if (typeof value !== 'string') return undefined
  const ms = parse(value)
  return ms !== undefined && Number.isFinite(ms) && ms >= 1 ? ms : undefined
}
