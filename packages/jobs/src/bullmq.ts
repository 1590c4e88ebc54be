/**
 * The Redis backend: jobs in a BullMQ queue, run by a BullMQ worker. bullmq and ioredis are
 * optional peer dependencies, imported only here, when a Redis store is configured.
 */
import { importPeer, OptionsError, type Peer } from '@restwell/errors'
import type { Job, WorkerOptions } from 'bullmq'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import type { ResolvedRedisStore } from './options.js'
import { failureOf, INVALID_LOCATION_FAILURE, locationOf, locationReference } from './outcome.js'
import { type JobProcessor, jobProcessor } from './processor.js'
import type { JobBackend, JobHandler, JobRecord, JobStatus } from './types.js'

/** BullMQ's job states → the spec's statuses. */
const STATUSES: Readonly<Record<string, JobStatus>> = {
  waiting: 'queued',
  delayed: 'queued',
  prioritized: 'queued',
  'waiting-children': 'queued',
  active: 'running',
  completed: 'succeeded',
  failed: 'failed',
}

/**
 * The record the status resource shows for a BullMQ job in `state`. `estimatedTime` is the
 * job name's, as this instance defines it. `updatedAt` is the last change BullMQ records
 * (created, started, finished); a progress report does not move it.
 */
export function recordOf(job: Job, state: string, estimatedTime: string): JobRecord {
  const record: JobRecord = {
    id: String(job.id),
    name: job.name,
    status: STATUSES[state] ?? 'queued',
    payload: '', // the job's data stays in BullMQ: the status resource never shows it
    estimatedTime,
    attempts: job.attemptsMade + job.stalledCounter,
    owner: '',
    createdAt: job.timestamp,
    updatedAt: Math.max(job.timestamp, job.processedOn ?? 0, job.finishedOn ?? 0),
  }
  // BullMQ starts every job at progress 0: a number above it is what a handler reported.
  const progress = job.progress
  if (typeof progress === 'number' && progress > 0 && progress <= 100) record.progress = progress
  if (record.status === 'failed') {
    // `String`: a job failed by a foreign writer may have none.
    const failure = failureOf(String(job.failedReason))
    if (failure !== undefined) record.error = failure
  } else if (record.status === 'succeeded') {
    const given = locationOf(job.returnvalue)
    if (given === undefined) record.result = JSON.stringify(job.returnvalue ?? null)
    else {
      // restwell's processor stored it encoded; a worker of another code base may not have.
      const location = locationReference(given)
      if (location !== undefined) record.location = location
      else {
        record.status = 'failed'
        record.error = JSON.stringify({ statusCode: 500, message: INVALID_LOCATION_FAILURE })
      }
    }
  }
  return record
}

export interface BullmqBackendOptions extends ResolvedRedisStore {
  /** Run a worker in this instance. */
  worker: boolean
  timeoutMs: number
  closeTimeoutMs: number
  /** How long a job this instance has no handler for is set aside. */
  retryMs: number
}

const noop = (): void => undefined

/** `promise`, or a rejection with the signal's reason once it aborts. */
function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  let onAbort = noop
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
  })
  return Promise.race([promise, aborted]).finally(() =>
    signal.removeEventListener('abort', onAbort),
  )
}

/** Reconnect soon after Redis comes back: at most a second between attempts. */
const retryStrategy = (times: number): number => Math.min(times * 100, 1000)

/** Logs the first error of an outage, and the recovery, not every failed reconnection. */
function watch(
  emitter: { on(event: string, listener: (error: Error) => void): unknown },
  what: string,
  log: FastifyBaseLogger,
): void {
  let down = false
  emitter.on('error', (error) => {
    if (down) return
    down = true
    log.warn({ err: error }, `@restwell/jobs: ${what}: redis error`)
  })
  emitter.on('ready', () => {
    if (!down) return
    down = false
    log.info(`@restwell/jobs: ${what}: redis connection back`)
  })
}

/** The Redis store's optional peers. */
export const REDIS_STORE: Peer = {
  plugin: '@restwell/jobs',
  option: 'store',
  needs:
    'is a Redis store, which needs the optional peer dependencies bullmq and ioredis: install them (npm install bullmq ioredis)',
}

/**
 * The queue's Redis client and how the worker gets its own: connections of restwell's for a
 * URL (listed in `owned`, closed with the backend), or the app's client and its duplicates.
 */
async function connectionsOf(
  options: BullmqBackendOptions,
): Promise<{ client: Redis; workerClient: () => Redis; owned: Redis[] }> {
  if (typeof options.redis !== 'string') {
    // The app's ioredis client, typed by the few members the options declare.
    const client = options.redis as Redis
    if (client.options.keyPrefix) {
      throw new OptionsError(
        '@restwell/jobs',
        'store.redis',
        `is an ioredis client with a keyPrefix (${JSON.stringify(client.options.keyPrefix)}), which BullMQ refuses: give a client without one, and the prefix as "store.keyPrefix"`,
      )
    }
    return {
      client,
      workerClient: () => client.duplicate({ maxRetriesPerRequest: null }),
      owned: [],
    }
  }
  const url = options.redis
  const { Redis } = await importPeer(REDIS_STORE, 'ioredis', () => import('ioredis'))
  // The queue's commands fail at once while Redis is away (503), and are never sent again
  // after a reconnection: a request answered 503 must not enqueue its job later.
  const client = new Redis(url, {
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 1,
    connectTimeout: options.timeoutMs,
    retryStrategy,
  })
  // The worker's commands wait for Redis instead (BullMQ requires it of a worker): a
  // finished job's outcome is written once Redis is back.
  return {
    client,
    workerClient: () => new Redis(url, { maxRetriesPerRequest: null, retryStrategy }),
    owned: [client],
  }
}

/**
 * A BullMQ queue (enqueue, status reads) and, when the instance runs one and has handlers, a
 * BullMQ worker running them through `jobProcessor`.
 */
export async function bullmqBackend(
  options: BullmqBackendOptions,
  handlers: ReadonlyMap<string, JobHandler>,
  estimateOf: (name: string) => string,
  log: FastifyBaseLogger,
): Promise<JobBackend> {
  const bullmq = await importPeer(REDIS_STORE, 'bullmq', () => import('bullmq'))
  const { client, workerClient, owned } = await connectionsOf(options)
  watch(client, 'queue', log)
  const queue = new bullmq.Queue(options.queue, {
    connection: client,
    prefix: options.prefix,
    defaultJobOptions: options.jobOptions,
  })
  // The connection's own listener logs its errors; without a listener BullMQ prints them.
  queue.on('error', noop)

  // BullMQ's first connection (its scripts loaded, the Redis version checked).
  let initialized = false
  const init = queue.waitUntilReady().then(() => {
    initialized = true
  })
  init.catch(noop)

  /**
   * Resolves once the queue can take a command: waits for BullMQ's first connection until the
   * request's signal aborts, fails at once when a connection that was up is down (503 now,
   * rather than after timeoutMs), and never lets a command go once the signal aborted.
   */
  async function ready(signal: AbortSignal): Promise<void> {
    if (!initialized) await abortable(init, signal)
    else if (client.status !== 'ready')
      throw new Error(`the Redis connection of the job queue is ${client.status}`)
    signal.throwIfAborted()
  }

  let processor: JobProcessor | undefined

  return {
    queue,
    async add(job, signal) {
      await ready(signal)
      const added = await queue.add(job.name, job.payload ?? null, { jobId: job.id })
      return recordOf(added, 'waiting', job.estimatedTime)
    },
    async get(id, signal) {
      await ready(signal)
      const state = await queue.getJobState(id)
      if (state === 'unknown') return undefined
      const job = await queue.getJob(id)
      return job === undefined ? undefined : recordOf(job, state, estimateOf(job.name))
    },
    start() {
      // An instance with no handler (its jobs run in worker processes) takes no job.
      if (!options.worker || handlers.size === 0) return
      const connection = workerClient()
      owned.push(connection)
      watch(connection, 'worker', log)
      processor = jobProcessor(handlers, {
        log,
        closeTimeoutMs: options.closeTimeoutMs,
        retryMs: options.retryMs,
      })
      // `settings` and `telemetry` are declared as objects: BullMQ checks them.
      const worker = new bullmq.Worker(options.queue, processor, {
        ...(options.workerOptions as Omit<WorkerOptions, 'connection'>),
        connection,
        prefix: options.prefix,
      })
      worker.on('error', (error) => {
        if (bullmq.isNotConnectionError(error))
          log.warn({ err: error }, '@restwell/jobs: worker error')
      })
      processor.attach(worker)
    },
    async close() {
      await processor?.close()
      await queue.close()
      for (const connection of owned) connection.disconnect()
    },
  }
}
