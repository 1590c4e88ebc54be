/**
 * `app.jobs`: the jobs an app defines (their handlers and estimates), and the store calls that
 * enqueue and read them, each bounded in time (a 503 when the store does not answer).
 */
import { randomUUID } from 'node:crypto'
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import type { JobsApi } from './augment.js'
import { toDuration } from './duration.js'
import type { ResolvedJobsOptions } from './options.js'
import type { JobBackend, JobDefinitionOptions, JobHandler } from './types.js'
import { toJob } from './views.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/jobs'
/** Job ids are UUIDs; anything else cannot be a job and is not looked up. */
export const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const JOB_NAME = /^[A-Za-z0-9._:-]{1,100}$/

/** The jobs an app defined: the handlers this instance runs, and every job's estimate. */
export interface JobRegistry {
  readonly handlers: Map<string, JobHandler>
  readonly estimates: Map<string, string>
  /** The estimate of a job defined without one (option `estimatedTime`, formatted). */
  readonly defaultEstimate: string
}

/** A store call: resolves to its result, or rejects with the 503 of an unavailable store. */
export type StoreCall = <T>(operation: (signal: AbortSignal) => Promise<T>) => Promise<T>

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

/** How the plugin calls the store: within `timeoutMs`, else a 503 with `Retry-After`. */
export function storeCall(options: ResolvedJobsOptions): StoreCall {
  const unavailable = (cause: unknown): HttpError =>
    httpErrors.serviceUnavailable('The job store is unavailable, retry later', {
      code: ErrorCode.SERVICE_UNAVAILABLE,
      headers: { 'retry-after': String(options.retryAfter) },
      cause,
    })
  return async (operation) => {
    try {
      return await withTimeout(operation, options.timeoutMs)
    } catch (error) {
      throw unavailable(error)
    }
  }
}

/** Adds a job name to `registry`: its handler (none for a job run elsewhere) and estimate. */
function define(
  registry: JobRegistry,
  name: string,
  given?: JobHandler | JobDefinitionOptions,
  more?: JobDefinitionOptions,
): void {
  if (!JOB_NAME.test(name)) {
    throw new TypeError(`${PLUGIN}: job name must match ${JOB_NAME}, got ${JSON.stringify(name)}`)
  }
  const handler = typeof given === 'function' ? given : undefined
  if (handler === undefined && (typeof given !== 'object' || given === null)) {
    throw new TypeError(
      `${PLUGIN}: the handler of job "${name}" must be a function (or, for a job run elsewhere, give only its definition)`,
    )
  }
  const definition = (handler === undefined ? (given as JobDefinitionOptions) : more) ?? {}
  if (registry.estimates.has(name)) throw new Error(`${PLUGIN}: job "${name}" is already defined`)
  const estimate =
    definition.estimatedTime === undefined
      ? registry.defaultEstimate
      : toDuration(definition.estimatedTime)
  if (handler !== undefined) registry.handlers.set(name, handler)
  registry.estimates.set(name, estimate)
}

/** `app.jobs` over `backend`; `base` is the path of the status resources. */
export function jobsApi(
  registry: JobRegistry,
  backend: JobBackend,
  call: StoreCall,
  base: string,
): JobsApi {
  return {
    queue: backend.queue,
    define: (
      name: string,
      given?: JobHandler | JobDefinitionOptions,
      more?: JobDefinitionOptions,
    ) => define(registry, name, given, more),
    async enqueue(name, payload) {
      const estimatedTime = registry.estimates.get(name)
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
    statusUrl: (id) => `${base}/${id}`,
  }
}
