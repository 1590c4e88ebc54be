/** Options of `@restwell/jobs`. */
import { OptionsError, validateOptions } from '@restwell/errors'
import { Type } from '@sinclair/typebox'

const PLUGIN = '@restwell/jobs'

/*
 * bullmq and ioredis are optional peers: these declarations describe what the options take
 * without importing them, so an app without them type-checks (`skipLibCheck: false`). An ioredis
 * client and bullmq's option objects are of these types (test/types.test.ts).
 */

/**
 * An ioredis client (`new Redis(…)`), by the members restwell uses. Yours to close.
 */
export interface RedisClient {
  readonly options: { readonly keyPrefix?: string | undefined }
  readonly status: string
  duplicate(override?: { maxRetriesPerRequest?: number | null }): RedisClient
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void
  disconnect(reconnect?: boolean): void
}

/** How many finished jobs BullMQ keeps (its `KeepJobs`): the last `count`, or those younger than `age` seconds. */
export type BullmqKeepJobs = { count: number } | { age: number; count?: number; limit?: number }

/** BullMQ's `DefaultJobOptions`: a bullmq `DefaultJobOptions` is one. */
export interface BullmqJobOptions {
  timestamp?: number
  priority?: number
  delay?: number
  attempts?: number
  backoff?: number | { type: string; delay?: number; jitter?: number }
  lifo?: boolean
  removeOnComplete?: boolean | number | BullmqKeepJobs
  removeOnFail?: boolean | number | BullmqKeepJobs
  keepLogs?: number
  stackTraceLimit?: number
  sizeLimit?: number
}

/**
 * BullMQ's `WorkerOptions` that restwell passes through (it sets `connection`, `prefix` and
 * `autorun`; the processor is a function, so there are no sandbox options). `settings` and
 * `telemetry` go to BullMQ as given (its `AdvancedOptions` and `Telemetry`).
 */
export interface BullmqWorkerOptions {
  name?: string
  concurrency?: number
  limiter?: { max: number; duration: number }
  metrics?: { maxDataPoints?: number }
  maximumRateLimitDelay?: number
  maxStartedAttempts?: number
  maxStalledCount?: number
  stalledInterval?: number
  removeOnComplete?: BullmqKeepJobs
  removeOnFail?: BullmqKeepJobs
  skipStalledCheck?: boolean
  skipLockRenewal?: boolean
  drainDelay?: number
  lockDuration?: number
  lockRenewTime?: number
  runRetryDelay?: number
  blockingConnection?: boolean
  skipVersionCheck?: boolean
  skipWaitingForReady?: boolean
  settings?: object
  telemetry?: object
}

/** The Redis backend: a BullMQ queue. */
export interface RedisStoreConfig {
  /**
   * A `redis://` / `rediss://` URL (the plugin opens and closes its connections) or an ioredis
   * client (used for the queue as it is, duplicated for the worker; yours to close).
   */
  redis: string | RedisClient
  /** The BullMQ queue's name: another app's queue, to serve the status of its jobs. ['restwell-jobs'] */
  queue?: string
  /** BullMQ's key prefix (`<keyPrefix>:<queue>:<jobId>`; a trailing `:` is dropped). ['bull'] */
  keyPrefix?: string
  /** BullMQ's default job options: `attempts`, `backoff`, `removeOnComplete`, `removeOnFail`, `priority`, `delay`, ... */
  jobOptions?: BullmqJobOptions
  /** BullMQ's worker options: `concurrency`, `lockDuration`, `stalledInterval`, `maxStalledCount`, `limiter`, ... */
  workerOptions?: BullmqWorkerOptions
}

/**
 * @param basePath Path of the status resources: `<basePath>/:id` and `<basePath>/:id/result`. ['/jobs']
 * @param store `'memory'` (one process) or `{ redis, queue?, keyPrefix?, jobOptions?, workerOptions? }`: BullMQ. ['memory']
 * @param worker Run a worker in this instance (false: this instance only enqueues and answers status). [true]
 * @param concurrency Jobs run at once by this instance (BullMQ: `workerOptions.concurrency` wins). [1]
 * @param estimatedTime Default expected duration, seconds or ISO 8601 duration. [60 → 'PT1M']
 * @param pollMs Memory: how often an idle worker looks for work. BullMQ: how long a job this instance has no handler for is set aside. [500]
 * @param ttl Seconds a finished job stays readable (BullMQ: the default `removeOnComplete`/`removeOnFail` age). [86400]
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
  pollMs?: number
  ttl?: number
  timeoutMs?: number
  retryAfter?: number
  closeTimeoutMs?: number
  config?: Record<string, unknown>
}

const RedisInstance = Type.Unsafe<RedisClient>(
  Type.Object({ defineCommand: Type.Function([], Type.Unknown()) }, { additionalProperties: true }),
)

/**
 * How long BullMQ keeps a finished job. Never `true` or 0: the status resource must still find
 * a finished job to answer 303 (or `failed`) for it.
 */
const KeepJobs = Type.Union([
  Type.Literal(false),
  Type.Integer({ minimum: 1 }),
  Type.Object(
    {
      age: Type.Optional(Type.Integer({ minimum: 1 })),
      count: Type.Optional(Type.Integer({ minimum: 1 })),
      limit: Type.Optional(Type.Integer({ minimum: 1 })),
    },
    { additionalProperties: false },
  ),
])

/** The BullMQ job options restwell relies on; the others go to BullMQ unchecked. */
const JobOptionsSchema = Type.Object(
  {
    attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    backoff: Type.Optional(
      Type.Union([
        Type.Integer({ minimum: 0 }),
        Type.Object(
          {
            type: Type.String({ minLength: 1 }),
            delay: Type.Optional(Type.Integer({ minimum: 0 })),
          },
          { additionalProperties: true },
        ),
      ]),
    ),
    delay: Type.Optional(Type.Integer({ minimum: 0 })),
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_097_151 })),
    removeOnComplete: Type.Optional(KeepJobs),
    removeOnFail: Type.Optional(KeepJobs),
  },
  { additionalProperties: true },
)

/** The BullMQ worker options restwell relies on; the others go to BullMQ unchecked. */
const WorkerOptionsSchema = Type.Object(
  {
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    lockDuration: Type.Optional(Type.Integer({ minimum: 10 })),
    stalledInterval: Type.Optional(Type.Integer({ minimum: 10 })),
    maxStalledCount: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: true },
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
            queue: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]+$', maxLength: 100 })),
            keyPrefix: Type.Optional(
              Type.String({ pattern: '^[A-Za-z0-9._:{}-]*[A-Za-z0-9._{}-][:]*$', maxLength: 100 }),
            ),
            jobOptions: Type.Optional(JobOptionsSchema),
            workerOptions: Type.Optional(WorkerOptionsSchema),
          },
          { additionalProperties: false },
        ),
      ]),
    ),
    worker: Type.Optional(Type.Boolean()),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    estimatedTime: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.String()])),
    pollMs: Type.Optional(Type.Integer({ minimum: 5, maximum: 60_000 })),
    ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000 })),
    retryAfter: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    closeTimeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    config: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
)

/** Options of earlier versions, with where their meaning went. */
const REMOVED: Readonly<Record<string, string>> = {
  leaseMs:
    'was removed: jobs in Redis run on BullMQ, whose lock is `store.workerOptions.lockDuration`',
  maxAttempts:
    'was removed: jobs in Redis run on BullMQ; a job whose worker vanished runs again up to `store.workerOptions.maxStalledCount` times, a failed one up to `store.jobOptions.attempts` times',
}

/** BullMQ options that restwell sets itself. */
const OWNED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  jobOptions: {
    jobId: 'is set by @restwell/jobs: each job gets a random UUID, the id of its status resource',
    repeat: 'is not supported: a job enqueued for a request runs once (use a BullMQ job scheduler)',
    parent: 'is not supported: restwell jobs are not part of a flow',
  },
  workerOptions: {
    connection: 'is set by @restwell/jobs from `store.redis`',
    prefix: 'is set by @restwell/jobs: use `store.keyPrefix`',
    autorun: 'is set by @restwell/jobs: its worker starts when the app is ready',
  },
}

/** Checks the options: the schema, then what a schema cannot say clearly. Throws an `OptionsError` naming the option. */
export function validateJobsOptions(options: unknown): JobsOptions {
  if (typeof options === 'object' && options !== null) {
    for (const [key, problem] of Object.entries(REMOVED)) {
      if (key in options) throw new OptionsError(PLUGIN, key, problem)
    }
  }
  const valid = validateOptions(PLUGIN, JobsOptionsSchema, options) as JobsOptions
  if (valid.store !== undefined && valid.store !== 'memory') {
    for (const [group, keys] of Object.entries(OWNED)) {
      const given = valid.store[group as keyof RedisStoreConfig] as object | undefined
      for (const [key, problem] of Object.entries(keys)) {
        if (given !== undefined && key in given)
          throw new OptionsError(PLUGIN, `store.${group}.${key}`, problem)
      }
    }
  }
  return valid
}

/** The Redis backend's settings, defaults applied. */
export interface ResolvedRedisStore {
  redis: string | RedisClient
  queue: string
  prefix: string
  jobOptions: BullmqJobOptions
  workerOptions: BullmqWorkerOptions
}

export interface ResolvedJobsOptions {
  basePath: string
  store: 'memory' | ResolvedRedisStore
  worker: boolean
  concurrency: number
  estimatedTime: number | string
  pollMs: number
  ttlMs: number
  timeoutMs: number
  retryAfter: number
  closeTimeoutMs: number
  config: Record<string, unknown>
}

export function resolveJobsOptions(options: JobsOptions): ResolvedJobsOptions {
  const ttl = options.ttl ?? 86_400
  const store = options.store ?? 'memory'
  return {
    basePath: options.basePath ?? '/jobs',
    store:
      store === 'memory'
        ? store
        : {
            redis: store.redis,
            queue: store.queue ?? 'restwell-jobs',
            prefix: (store.keyPrefix ?? 'bull').replace(/:+$/, ''),
            jobOptions: {
              removeOnComplete: { age: ttl },
              removeOnFail: { age: ttl },
              ...store.jobOptions,
            },
            // runRetryDelay: a worker takes jobs again a second after Redis comes back, where
            // BullMQ's default waits 15 s.
            workerOptions: {
              concurrency: options.concurrency ?? 1,
              runRetryDelay: 1000,
              ...store.workerOptions,
            },
          },
    worker: options.worker ?? true,
    concurrency: options.concurrency ?? 1,
    estimatedTime: options.estimatedTime ?? 60,
    pollMs: options.pollMs ?? 500,
    ttlMs: ttl * 1000,
    timeoutMs: options.timeoutMs ?? 2000,
    retryAfter: options.retryAfter ?? 5,
    closeTimeoutMs: options.closeTimeoutMs ?? 10_000,
    config: options.config ?? {},
  }
}
