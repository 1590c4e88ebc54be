/** The `@restwell/jobs` plugin: 202 + Location, a status resource, 303 to the result; memory or Redis. */
import { registerOnce } from '@restwell/core'
import { randomUUID } from 'node:crypto'
import {
  statusCode as defaultCode,
  ErrorCode,
  type HttpError,
  httpErrors,
  OptionsError,
} from '@restwell/errors'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import type { JobsApi } from './augment.js'
import { bullmqBackend } from './bullmq.js'
import { toDuration } from './duration.js'
import { memoryBackend } from './memory-store.js'
import { type JobsOptions, resolveJobsOptions, validateJobsOptions } from './options.js'
import type {
  Job,
  JobBackend,
  JobDefinitionOptions,
  JobError,
  JobFailure,
  JobHandler,
  JobRecord,
} from './types.js'

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

/**
 * Runs a store operation that rejects after `ms` unless it settles first (no store call may
 * hang a request), and aborts the signal it gets then: a backend that is still waiting for its
 * connection sends nothing after the request was answered 503.
 */
function withTimeout<T>(operation: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`job store did not answer within ${ms} ms`)
      controller.abort(error)
      reject(error)
    }, ms)
  })
  return Promise.race([operation(controller.signal), timeout]).finally(() => clearTimeout(timer))
}

const plugin: FastifyPluginAsync<JobsOptions> = async (fastify, rawOptions) => {
  // Its routes and decorators need no step of the pipeline: it may come after the umbrella.
  registerOnce(fastify, '@restwell/jobs', 'jobs', { steps: false })
  const options = resolveJobsOptions(validateJobsOptions(rawOptions))
  let defaultEstimate: string
  try {
    defaultEstimate = toDuration(options.estimatedTime)
  } catch (error) {
    throw new OptionsError(PLUGIN, 'estimatedTime', `is invalid: ${(error as Error).message}`)
  }
  const base = `${fastify.prefix}${options.basePath}`
  const handlers = new Map<string, JobHandler>()
  const estimates = new Map<string, string>()
  const estimateOf = (name: string): string => estimates.get(name) ?? defaultEstimate

  const backend: JobBackend =
    options.store === 'memory'
      ? memoryBackend(
          {
            instance: randomUUID(),
            worker: options.worker,
            concurrency: options.concurrency,
            pollMs: options.pollMs,
            ttlMs: options.ttlMs,
            closeTimeoutMs: options.closeTimeoutMs,
          },
          handlers,
          fastify.log,
        )
      : await bullmqBackend(
          {
            ...options.store,
            worker: options.worker,
            timeoutMs: options.timeoutMs,
            closeTimeoutMs: options.closeTimeoutMs,
            retryMs: options.pollMs,
          },
          handlers,
          estimateOf,
          fastify.log,
        )

  function unavailable(cause: unknown): HttpError {
    return httpErrors.serviceUnavailable('The job store is unavailable, retry later', {
      code: ErrorCode.SERVICE_UNAVAILABLE,
      headers: { 'retry-after': String(options.retryAfter) },
      cause,
    })
  }

  async function call<T>(operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await withTimeout(operation, options.timeoutMs)
    } catch (error) {
      throw unavailable(error)
    }
  }

  const api: JobsApi = {
    queue: backend.queue,
    define(
      name: string,
      given?: JobHandler | JobDefinitionOptions,
      more?: JobDefinitionOptions,
    ): void {
      if (!JOB_NAME.test(name)) {
        throw new TypeError(
          `${PLUGIN}: job name must match ${JOB_NAME}, got ${JSON.stringify(name)}`,
        )
      }
      const handler = typeof given === 'function' ? given : undefined
      if (handler === undefined && (typeof given !== 'object' || given === null)) {
        throw new TypeError(
          `${PLUGIN}: the handler of job "${name}" must be a function (or, for a job run elsewhere, give only its definition)`,
        )
      }
      const definition = (handler === undefined ? (given as JobDefinitionOptions) : more) ?? {}
      if (estimates.has(name)) throw new Error(`${PLUGIN}: job "${name}" is already defined`)
      const estimate =
        definition.estimatedTime === undefined
          ? defaultEstimate
          : toDuration(definition.estimatedTime)
      if (handler !== undefined) handlers.set(name, handler)
      estimates.set(name, estimate)
    },
    async enqueue(name, payload) {
      const estimatedTime = estimates.get(name)
      if (estimatedTime === undefined) throw new TypeError(`${PLUGIN}: no job "${name}" is defined`)
      const record = await call((signal) =>
        backend.add({ id: randomUUID(), name, payload, estimatedTime }, signal),
      )
      return toJob(record)
    },
    async get(id) {
      if (!JOB_ID.test(id)) return undefined
      const record = await call((signal) => backend.get(id, signal))
      return record === undefined ? undefined : toJob(record)
    },
    statusUrl(id) {
      return `${base}/${id}`
    },
  }

  fastify.decorate('jobs', api)
  fastify.decorateReply('accepted', accepted)

  async function load(id: string): Promise<JobRecord> {
    const record = JOB_ID.test(id) ? await call((signal) => backend.get(id, signal)) : undefined
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
      // Both backends write the result of a job that succeeded without a location.
      const text = record.result as string
      const value: unknown = JSON.parse(text)
      if (typeof value === 'string') return reply.type(JSON_TYPE).send(text)
      return reply.send(value)
    },
  )

  fastify.addHook('onReady', async () => backend.start())
  fastify.addHook('onClose', async () => backend.close())
}

/** The `@restwell/jobs` plugin. */
export const restwellJobs: FastifyPluginAsync<JobsOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/jobs',
})
