/** Options of `@restwell/idempotency` and of its per-route `config.idempotency`. */
import { type Static, Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { DEFAULT_MAX_KEY_LENGTH } from './key.js'

/** A duration in seconds; fractions allowed (a test's in-flight lifetime of 0.2 s). */
const Seconds = Type.Number({ exclusiveMinimum: 0, maximum: 365 * 24 * 3600 })

/** An HTTP method name (RFC 9110 token), upper case as Fastify routes it. */
const Method = Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Z-]+$", maxLength: 32 })

/** A response field name (RFC 9110 token). */
const FieldName = Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", maxLength: 64 })

/**
 * An ioredis client (`new Redis(…)`), by the members restwell uses. Yours to close. ioredis is
 * an optional peer: this describes the client without importing it.
 */
export interface RedisClient {
  readonly status: string
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void
  on(event: string, listener: (...args: unknown[]) => void): unknown
  disconnect(reconnect?: boolean): void
}

/** Keys in Redis, shared by every instance that is given the same server and prefix. */
export interface RedisStoreConfig {
  /**
   * A `redis://` / `rediss://` URL (the plugin opens and closes its connection) or an ioredis
   * client (used as it is: give it `enableOfflineQueue: false`; yours to close).
   */
  redis: string | RedisClient
  /** What every key starts with. ['restwell:idempotency:'] */
  keyPrefix?: string
}

/** Keys in this process's memory: one instance. */
export interface MemoryStoreConfig {
  /** The most keys kept; past it, the oldest key is forgotten first. [100000] */
  maxKeys?: number
}

const RedisInstance = Type.Unsafe<RedisClient>(
  Type.Object({ defineCommand: Type.Function([], Type.Unknown()) }, { additionalProperties: true }),
)

const StoreSchema = Type.Union([
  Type.Literal('memory'),
  Type.Object(
    { maxKeys: Type.Optional(Type.Integer({ minimum: 1 })) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      redis: Type.Union([Type.String({ pattern: '^rediss?://' }), RedisInstance]),
      keyPrefix: Type.Optional(Type.String({ maxLength: 200 })),
    },
    { additionalProperties: false },
  ),
])

export const IdempotencyOptionsSchema = Type.Object(
  {
    methods: Type.Optional(Type.Array(Method, { minItems: 1, maxItems: 16, uniqueItems: true })),
    everyRoute: Type.Optional(Type.Boolean()),
    required: Type.Optional(Type.Boolean()),
    expiry: Type.Optional(Seconds),
    inFlight: Type.Optional(Seconds),
    retryAfter: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400 })),
    unavailableRetryAfter: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400 })),
    maxKeyLength: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
    storedHeaders: Type.Optional(Type.Array(FieldName, { maxItems: 32 })),
    documentation: Type.Optional(Type.String({ pattern: '^https?://[^\\s<>]+$', maxLength: 2000 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
    store: Type.Optional(StoreSchema),
    scope: Type.Optional(
      Type.Unsafe<(request: FastifyRequest) => string>(Type.Function([], Type.String())),
    ),
  },
  { additionalProperties: false },
)

/**
 * @param methods Methods a route takes a key on. [`['POST', 'PATCH']`]
 * @param everyRoute Every route of those methods takes a key, not only those that set `config.idempotency`. [false]
 * @param required A request without a key is refused (400) on every route that takes one. [false]
 * @param expiry Seconds a completed request's answer is kept for its retries. [86400]
 * @param inFlight Seconds a request holds its key while it runs; past it, a retry may run again (a process that died mid-request). [60]
 * @param retryAfter `Retry-After` seconds of a 409 (the first request still runs). [1]
 * @param unavailableRetryAfter `Retry-After` seconds of a 503 (the store is unreachable). [5]
 * @param maxKeyLength The longest key taken, in characters. [255]
 * @param storedHeaders Response headers stored and replayed beside the default ones. [[]]
 * @param documentation A page on the app's keys: every 400, 409 and 422 of this plugin links to it (`Link; rel="describedby"`). [none]
 * @param timeoutMs Longest a store command may take before the request is answered 503. [2000]
 * @param store `'memory'` or `{ maxKeys }` (one instance), or `{ redis, keyPrefix? }` (several). ['memory']
 * @param scope Who a key belongs to. [the principal's `id`/`sub`, else the credentials, else the client address]
 */
export interface IdempotencyOptions {
  methods?: string[]
  everyRoute?: boolean
  required?: boolean
  expiry?: number
  inFlight?: number
  retryAfter?: number
  unavailableRetryAfter?: number
  maxKeyLength?: number
  storedHeaders?: string[]
  documentation?: string
  timeoutMs?: number
  store?: 'memory' | MemoryStoreConfig | RedisStoreConfig
  scope?: (request: FastifyRequest) => string
}

/** The response headers that describe a result, stored and replayed with it. */
export const STORED_HEADERS: readonly string[] = [
  'content-type',
  'content-language',
  'content-location',
  'content-encoding',
  'location',
  'etag',
  'last-modified',
  'link',
]

export const DEFAULT_KEY_PREFIX = 'restwell:idempotency:'
export const DEFAULT_MAX_KEYS = 100_000

/** Options with their defaults applied. */
export interface ResolvedIdempotencyOptions {
  methods: ReadonlySet<string>
  everyRoute: boolean
  required: boolean
  expiryMs: number
  inFlightMs: number
  retryAfter: number
  unavailableRetryAfter: number
  maxKeyLength: number
  storedHeaders: readonly string[]
  documentation: string | undefined
  timeoutMs: number
  store: { maxKeys: number } | { redis: string | RedisClient; keyPrefix: string }
  scope: ((request: FastifyRequest) => string) | undefined
}

export function resolveIdempotencyOptions(
  options: IdempotencyOptions = {},
): ResolvedIdempotencyOptions {
  const store = options.store ?? 'memory'
  return {
    methods: new Set(options.methods ?? ['POST', 'PATCH']),
    everyRoute: options.everyRoute ?? false,
    required: options.required ?? false,
    expiryMs: (options.expiry ?? 86400) * 1000,
    inFlightMs: (options.inFlight ?? 60) * 1000,
    retryAfter: options.retryAfter ?? 1,
    unavailableRetryAfter: options.unavailableRetryAfter ?? 5,
    maxKeyLength: options.maxKeyLength ?? DEFAULT_MAX_KEY_LENGTH,
    storedHeaders: [
      ...new Set([...STORED_HEADERS, ...(options.storedHeaders ?? []).map((h) => h.toLowerCase())]),
    ],
    documentation: options.documentation,
    timeoutMs: options.timeoutMs ?? 2000,
    store:
      store === 'memory'
        ? { maxKeys: DEFAULT_MAX_KEYS }
        : 'redis' in store
          ? { redis: store.redis, keyPrefix: store.keyPrefix ?? DEFAULT_KEY_PREFIX }
          : { maxKeys: store.maxKeys ?? DEFAULT_MAX_KEYS },
    scope: options.scope,
  }
}

export const IdempotencyRouteConfigSchema = Type.Object(
  { required: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
)

/** A route's `config.idempotency` (`true` is `{}`), validated. */
export type IdempotencyRouteConfig = Static<typeof IdempotencyRouteConfigSchema>
