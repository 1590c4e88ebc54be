/** Options of `@restwell/jobs`. */
import { Type } from '@sinclair/typebox'
import type { Redis } from 'ioredis'

export interface RedisStoreConfig {
  /** A `redis://` / `rediss://` URL (the plugin creates and closes the connection) or an ioredis instance (yours to close). */
  redis: string | Redis
  /** Prefix of every key. ['restwell:jobs:'] */
  keyPrefix?: string
}

/**
 * @param basePath Path of the status resources: `<basePath>/:id` and `<basePath>/:id/result`. ['/jobs']
 * @param store `'memory'` or `{ redis, keyPrefix? }` for several instances. ['memory']
 * @param worker Run a worker in this instance (false: this instance only enqueues and answers status). [true]
 * @param concurrency Jobs run at once by this instance. [1]
 * @param estimatedTime Default expected duration, seconds or ISO 8601 duration. [60 → 'PT1M']
 * @param leaseMs Lease of a running job (Redis); renewed every leaseMs/3; an expired lease re-queues the job. [30000]
 * @param maxAttempts Runs allowed before a job whose worker keeps vanishing is failed. [3]
 * @param pollMs How often an idle worker looks for work in the store. [500]
 * @param ttl Seconds a finished job stays readable. [86400]
 * @param timeoutMs Longest a store command may take before it fails (503). [2000]
 * @param retryAfter Seconds sent in `Retry-After` with a 503. [5]
 * @param closeTimeoutMs How long close waits for running jobs before giving them back to the queue. [10000]
 * @param config Route config of the status routes (e.g. `{ auth: { scopes: ['jobs:read'] } }`). [{}]
 */
export interface JobsOptions {
  basePath?: string
  store?: 'memory' | RedisStoreConfig
  worker?: boolean
  concurrency?: number
  estimatedTime?: number | string
  leaseMs?: number
  maxAttempts?: number
  pollMs?: number
  ttl?: number
  timeoutMs?: number
  retryAfter?: number
  closeTimeoutMs?: number
  config?: Record<string, unknown>
}

const RedisInstance = Type.Unsafe<Redis>(
  Type.Object({ defineCommand: Type.Function([], Type.Unknown()) }, { additionalProperties: true }),
)

export const JobsOptionsSchema = Type.Object(
  {
    basePath: Type.Optional(
      Type.String({ pattern: '^(?:/[a-z0-9]+(?:-[a-z0-9]+)*)+$', maxLength: 200 }),
    ),
    store: Type.Optional(
      Type.Union([
        Type.Literal('memory'),
        Type.Object(
          {
            redis: Type.Union([Type.String({ pattern: '^rediss?://' }), RedisInstance]),
            keyPrefix: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          },
          { additionalProperties: false },
        ),
      ]),
    ),
    worker: Type.Optional(Type.Boolean()),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    estimatedTime: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.String()])),
    leaseMs: Type.Optional(Type.Integer({ minimum: 50, maximum: 3_600_000 })),
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    pollMs: Type.Optional(Type.Integer({ minimum: 5, maximum: 60_000 })),
    ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000 })),
    retryAfter: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    closeTimeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    config: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
)

export interface ResolvedJobsOptions {
  basePath: string
  store: 'memory' | RedisStoreConfig
  worker: boolean
  concurrency: number
  estimatedTime: number | string
  leaseMs: number
  maxAttempts: number
  pollMs: number
  ttlMs: number
  timeoutMs: number
  retryAfter: number
  closeTimeoutMs: number
  config: Record<string, unknown>
}

export function resolveJobsOptions(options: JobsOptions): ResolvedJobsOptions {
  return {
    basePath: options.basePath ?? '/jobs',
    store: options.store ?? 'memory',
    worker: options.worker ?? true,
    concurrency: options.concurrency ?? 1,
    estimatedTime: options.estimatedTime ?? 60,
    leaseMs: options.leaseMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? 3,
    pollMs: options.pollMs ?? 500,
    ttlMs: (options.ttl ?? 86_400) * 1000,
    timeoutMs: options.timeoutMs ?? 2000,
    retryAfter: options.retryAfter ?? 5,
    closeTimeoutMs: options.closeTimeoutMs ?? 10_000,
    config: options.config ?? {},
  }
}
