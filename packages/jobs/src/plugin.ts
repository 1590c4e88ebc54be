/** The `@restwell/jobs` plugin: 202 + Location, a status resource, 303 to the result; memory or Redis. */
import { randomUUID } from 'node:crypto'
import {
  statusCode as defaultCode,
  ErrorCode,
  type HttpError,
  httpErrors,
  validateOptions,
} from '@restwell/errors'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import { Redis } from 'ioredis'
import type { JobsApi } from './augment.js'
import { toDuration } from './duration.js'
import { MemoryJobStore } from './memory-store.js'
import { type JobsOptions, JobsOptionsSchema, resolveJobsOptions } from './options.js'
import { RedisJobStore } from './redis-store.js'
import type { Job, JobError, JobFailure, JobHandler, JobRecord, JobStore } from './types.js'
import { Worker } from './worker.js'

const PLUGIN = '@restwell/jobs'
/** Job ids are UUIDs; anything else cannot be a job and is not looked up. */
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const JOB_NAME = /^[A-Za-z0-9._:-]{1,100}$/
const JSON_TYPE = 'application/json; charset=utf-8'

/** What a failed job tells clients, from its stored failure (old or foreign records included). */
export function jobError(record: JobRecord): JobError {
  const failure = JSON.parse(record.error ?? '{}') as Partial<JobFailure>
  const status = failure.statusCode
  const statusCode =
    typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
      ? status
      : 500
  return {
    statusCode,
    code: typeof failure.code === 'string' ? failure.code : defaultCode(statusCode),
    message: typeof failure.message === 'string' ? failure.message : 'The job failed',
    details: Array.isArray(failure.details) ? failure.details : [],
  }
}

/** The public view of a record; a failed job's error included. */
export function toJob(record: JobRecord): Job {
  const job: Job = {
    jobId: record.id,
    status: record.status,
    estimatedTime: record.estimatedTime,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  }
  if (record.progress !== undefined) job.progress = record.progress
  if (record.status === 'failed') job.error = jobError(record)
  return job
}

function accepted(this: FastifyReply, job: Job): FastifyReply {
  const location = this.server.jobs.statusUrl(job.jobId)
  return this.code(202)
    .header('location', location)
    .header('cache-control', 'no-store')
    .send({ jobId: job.jobId, status: job.status, estimatedTime: job.estimatedTime })
}

/** Rejects after `ms` unless the promise settles first: no store call may hang a request. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`job store did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

const plugin: FastifyPluginAsync<JobsOptions> = async (fastify, rawOptions) => {
  const options = resolveJobsOptions(
    validateOptions(PLUGIN, JobsOptionsSchema, rawOptions) as JobsOptions,
  )
  let defaultEstimate: string
  try {
    defaultEstimate = toDuration(options.estimatedTime)
  } catch (error) {
    throw new TypeError(`${PLUGIN}: option "estimatedTime" is invalid: ${(error as Error).message}`)
  }
  const instance = randomUUID()
  const base = `${fastify.prefix}${options.basePath}`

  let store: JobStore
  let detach = (): unknown => undefined
  const storeOption = options.store
  if (storeOption === 'memory') {
    store = new MemoryJobStore({ ttlMs: options.ttlMs })
  } else {
    const owned = typeof storeOption.redis === 'string'
    const redis =
      typeof storeOption.redis === 'string'
        ? new Redis(storeOption.redis, {
            commandTimeout: options.timeoutMs,
            connectTimeout: options.timeoutMs,
            maxRetriesPerRequest: 1,
            retryStrategy: (times) => Math.min(times * 100, 2000),
          })
        : storeOption.redis
    // An unhandled 'error' event would crash the process; failures surface as 503 instead.
    const onError = (error: Error): void => {
      fastify.log.warn({ err: error }, `${PLUGIN}: redis error`)
    }
    redis.on('error', onError)
    detach = () => redis.off('error', onError)
    store = new RedisJobStore(redis, owned, {
      keyPrefix: storeOption.keyPrefix ?? 'restwell:jobs:',
      leaseMs: options.leaseMs,
      maxAttempts: options.maxAttempts,
      ttlMs: options.ttlMs,
    })
  }

  const handlers = new Map<string, JobHandler>()
  const estimates = new Map<string, string>()
  const worker = new Worker(
    store,
    handlers,
    {
      instance,
      concurrency: options.concurrency,
      leaseMs: options.leaseMs,
      pollMs: options.pollMs,
      closeTimeoutMs: options.closeTimeoutMs,
    },
    fastify.log,
  )

  function unavailable(cause: unknown): HttpError {
    return httpErrors.serviceUnavailable('The job store is unavailable, retry later', {
      code: ErrorCode.SERVICE_UNAVAILABLE,
      headers: { 'retry-after': String(options.retryAfter) },
      cause,
    })
  }

  async function call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(operation(), options.timeoutMs)
    } catch (error) {
      throw unavailable(error)
    }
  }

  const api: JobsApi = {
    define(name, handler, definition = {}) {
      if (!JOB_NAME.test(name)) {
        throw new TypeError(
          `${PLUGIN}: job name must match ${JOB_NAME}, got ${JSON.stringify(name)}`,
        )
      }
      if (typeof handler !== 'function') {
        throw new TypeError(`${PLUGIN}: the handler of job "${name}" must be a function`)
      }
      if (handlers.has(name)) throw new Error(`${PLUGIN}: job "${name}" is already defined`)
      const estimate =
        definition.estimatedTime === undefined
          ? defaultEstimate
          : toDuration(definition.estimatedTime)
      handlers.set(name, handler as JobHandler)
      estimates.set(name, estimate)
    },
    async enqueue(name, payload) {
      const estimatedTime = estimates.get(name)
      if (estimatedTime === undefined) throw new TypeError(`${PLUGIN}: no job "${name}" is defined`)
      const json = JSON.stringify(payload) ?? 'null'
      const record = await call(() =>
        store.create({ id: randomUUID(), name, payload: json, estimatedTime }),
      )
      if (options.worker) worker.notify()
      return toJob(record)
    },
    async get(id) {
      if (!JOB_ID.test(id)) return undefined
      const record = await call(() => store.get(id))
      return record === undefined ? undefined : toJob(record)
    },
    statusUrl(id) {
      return `${base}/${id}`
    },
  }

  fastify.decorate('jobs', api)
  fastify.decorateReply('accepted', accepted)

  async function load(id: string): Promise<JobRecord> {
    const record = JOB_ID.test(id) ? await call(() => store.get(id)) : undefined
    if (record === undefined) {
      throw httpErrors.notFound(`No job ${id.length > 64 ? `${id.slice(0, 64)}...` : id}`, {
        code: ErrorCode.JOB_NOT_FOUND,
      })
    }
    return record
  }

  function resultUrl(record: JobRecord): string {
    return record.location ?? `${base}/${record.id}/result`
  }

  // The status resource keeps the route config as given: its path (`basePath`) is the user's
  // choice and is checked by @restwell/naming like any other route. `<basePath>/:id/result` is
  // the job's one result, a singleton sub-resource and not a collection, so its fixed `result`
  // segment opts out of the naming rules (spec 2 names collections).
  const statusRoute = { config: options.config }
  const resultRoute = { config: { ...options.config, naming: false as const } }

  fastify.get<{ Params: { id: string } }>(
    `${options.basePath}/:id`,
    statusRoute,
    async (request, reply) => {
      const record = await load(request.params.id)
      reply.header('cache-control', 'no-store')
      const job = toJob(record)
      if (record.status === 'succeeded')
        return reply.code(303).header('location', resultUrl(record)).send(job)
      // queued, running, and failed: the GET of the status resource itself succeeded; a failed
      // job's error is in the body, never in the status of this response.
      return job
    },
  )

  fastify.get<{ Params: { id: string } }>(
    `${options.basePath}/:id/result`,
    resultRoute,
    async (request, reply) => {
      const record = await load(request.params.id)
      if (record.status === 'failed') {
        const error = jobError(record)
        throw httpErrors.conflict(`Job ${record.id} failed: ${error.message}`, {
          code: ErrorCode.JOB_FAILED,
          details: error.details,
          headers: { location: api.statusUrl(record.id) },
        })
      }
      if (record.status !== 'succeeded') {
        throw httpErrors.conflict(`Job ${record.id} is ${record.status}: its result is not ready`, {
          code: ErrorCode.JOB_NOT_FINISHED,
          headers: { location: api.statusUrl(record.id) },
        })
      }
      if (record.location !== undefined)
        return reply.code(303).header('location', record.location).send()
      // The value, not its stored JSON text: a payload goes through the reply's serializers, so
      // the representation negotiated by @restwell/negotiation applies (XML, HAL, ...) as on any
      // route, and JSON without it. A JSON string stays JSON text: Fastify sends a string as it
      // is, past every serializer (it would go out as text/plain); see the README's Decisions.
      const value: unknown = JSON.parse(record.result ?? 'null')
      if (typeof value === 'string') return reply.type(JSON_TYPE).send(record.result)
      return reply.send(value)
    },
  )

  if (options.worker) fastify.addHook('onReady', async () => worker.start())
  fastify.addHook('onClose', async () => {
    await worker.close()
    await store.close()
    detach()
  })
}

/** The `@restwell/jobs` plugin. */
export const restwellJobs: FastifyPluginAsync<JobsOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/jobs',
})
