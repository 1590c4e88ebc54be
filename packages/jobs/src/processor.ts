/** The BullMQ processor of restwell jobs: one handler per job name, results and failures stored as the status resource reads them. */
import type { FastifyBaseLogger } from 'fastify'
import { failureError, outcomeOf } from './outcome.js'
import type { JobContext, JobHandler } from './types.js'

/** A handler of any payload type (the job's data is handed to it as it is). */
export type AnyJobHandler = JobHandler<never, unknown>

/** The part of a BullMQ `Job` the processor uses (a bullmq `Job` is one). */
export interface ProcessorJob {
  id?: string | undefined
  name: string
  data: unknown
  /** Runs that ended (failed, or completed). */
  attemptsMade: number
  /** Times its worker vanished (BullMQ's stalled check took it back). */
  stalledCounter: number
  updateProgress(progress: number): Promise<void>
  moveToDelayed(timestamp: number, token?: string): Promise<void>
  moveToWait(token?: string): Promise<number>
}

/** The part of a BullMQ `Worker` the processor uses (a bullmq `Worker` is one). */
export interface ProcessorWorker {
  on(event: 'lockRenewalFailed', listener: (jobIds: string[]) => void): unknown
  close(): Promise<void>
  /** Drops its connections at once: when `close()` cannot finish (Redis gone). */
  disconnect(): Promise<void>
}

export interface JobProcessorOptions {
  /** Where handlers' `ctx.log` and the processor's messages go. [warnings and errors to the console] */
  log?: FastifyBaseLogger
  /** How long `close()` waits for running jobs before giving them back to the queue, in ms. [10000] */
  closeTimeoutMs?: number
  /** How long a job this worker has no handler for is set aside (delayed) before it is offered again, in ms. [1000] */
  retryMs?: number
}

/** A BullMQ processor function, with what a graceful shutdown needs. */
export interface JobProcessor {
  (job: ProcessorJob, token?: string, signal?: AbortSignal): Promise<unknown>
  /** Aborts a job's `ctx.signal` when BullMQ reports its lock lost (another worker may run it); returns the worker. */
  attach<W extends ProcessorWorker>(worker: W): W
  /**
   * Stops taking jobs, aborts running handlers (`ctx.signal`), waits up to `closeTimeoutMs`,
   * gives the unfinished back to the queue (not failed, their attempt not counted) and closes
   * the attached workers.
   */
  close(): Promise<void>
}

/** BullMQ moves no job of a processor that rejects with an error of this name: restwell moved it. */
type Moved = 'DelayedError' | 'WaitingError'

function moved(name: Moved, message: string): Error {
  const error = new Error(message)
  error.name = name
  return error
}

const noop = (): void => undefined

/** Warnings and errors to the console: a worker process without a logger of its own. */
export const consoleLog: FastifyBaseLogger = {
  level: 'warn',
  fatal: (...args: unknown[]) => console.error(...args),
  error: (...args: unknown[]) => console.error(...args),
  warn: (...args: unknown[]) => console.warn(...args),
  info: noop,
  debug: noop,
  trace: noop,
  silent: noop,
  child() {
    return consoleLog
  },
} as unknown as FastifyBaseLogger

/** Waits for `promise` to settle, or `ms`, whichever comes first (false); no timer outlives it. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const elapsed = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    elapsed,
  ])
  clearTimeout(timer)
  return settled
}

const GIVEN_BACK = Symbol('given back')

interface Run {
  /** The job's id: a job given back may run here again while an earlier run still ends. */
  id: string
  controller: AbortController
  /** Why restwell aborted it: the worker closes, or BullMQ lost its lock. */
  reason: 'closing' | 'lost' | undefined
  /** Ends the processor's wait without the handler: the job is given back to the queue. */
  release: () => void
  done: Promise<void>
}

/** What BullMQ keeps as the job's return value: `{ location }` as a URI-reference, or the value. */
function resultOf(value: unknown): unknown {
  const outcome = outcomeOf(value) // throws for a location that cannot be sent: the job fails
  return 'location' in outcome ? { location: outcome.location } : (value ?? null)
}

/** The handler of each job name, from a map or a plain object (never its prototype's). */
function handlerLookup(
  handlers: ReadonlyMap<string, AnyJobHandler> | Readonly<Record<string, AnyJobHandler>>,
): (name: string) => JobHandler | undefined {
  if (handlers instanceof Map) return (name) => handlers.get(name) as JobHandler | undefined
  const table = handlers as Readonly<Record<string, AnyJobHandler>>
  return (name) => (Object.hasOwn(table, name) ? (table[name] as JobHandler) : undefined)
}

/**
 * A run of job `id`, as `close()` and a lost lock reach it: its handler's signal follows
 * BullMQ's `signal` too. `released` settles when `close()` gives the job back without its
 * handler; `end()` ends the run.
 */
function startRun(
  id: string,
  signal: AbortSignal | undefined,
): { entry: Run; released: Promise<typeof GIVEN_BACK>; end: () => void } {
  const controller = new AbortController()
  const onAbort = (): void => controller.abort(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  let release = noop
  const released = new Promise<typeof GIVEN_BACK>((resolve) => {
    release = () => resolve(GIVEN_BACK)
  })
  let finish = noop
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  const entry: Run = { id, controller, reason: undefined, release, done }
  const end = (): void => {
    signal?.removeEventListener('abort', onAbort)
    finish()
  }
  return { entry, released, end }
}

/** What a handler gets beside the job's data. */
function jobContext(job: ProcessorJob, run: Run, log: FastifyBaseLogger): JobContext {
  return {
    jobId: run.id,
    attempt: job.attemptsMade + job.stalledCounter + 1,
    signal: run.controller.signal,
    log,
    progress: async (value) => {
      if (!Number.isFinite(value) || value < 0 || value > 100) {
        throw new RangeError(`progress must be a number from 0 to 100, got ${value}`)
      }
      await job.updateProgress(value)
    },
  }
}

/**
 * Runs `handler` on `job` until it settles or `close()` gives the job back: its result, or the
 * error BullMQ records (a failure), or one of the `Moved` errors that tell BullMQ restwell moved
 * the job (given back, or stopped from outside: nothing is recorded).
 */
async function settle(
  job: ProcessorJob,
  token: string | undefined,
  handler: JobHandler,
  run: Run,
  released: Promise<typeof GIVEN_BACK>,
  log: FastifyBaseLogger,
): Promise<unknown> {
  const work = Promise.resolve()
    .then(() => handler(job.data, jobContext(job, run, log)))
    .then(resultOf)
  const settled = await Promise.race([
    work.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    released,
  ])
  if (settled === GIVEN_BACK) {
    // Its handler ignores ctx.signal and outlived closeTimeoutMs: the job goes back to the
    // queue now, and what the handler does later is dropped.
    work.then(
      () =>
        log.warn('@restwell/jobs: the job ended after it was given back on close; outcome dropped'),
      noop,
    )
    await job.moveToWait(token)
    throw moved('WaitingError', 'The worker closed before the job finished: given back')
  }
  if ('value' in settled) return settled.value
  if (run.reason !== undefined) {
    // Stopped from outside, not failed: the worker is closing (the job is given back, its
    // attempt not counted) or its lock was lost (BullMQ's stalled check gives it to another
    // worker). Nothing is recorded.
    log.info({ err: settled.error }, '@restwell/jobs: job stopped before it finished')
    if (run.reason === 'closing') await job.moveToWait(token)
    throw moved('WaitingError', 'The job was stopped before it finished')
  }
  log.error({ err: settled.error }, '@restwell/jobs: job failed')
  throw failureError(settled.error)
}

/**
 * The processor of a BullMQ `Worker` that runs restwell job handlers, with or without Fastify.
 * @param handlers One handler per job name; a job of another name is set aside for a worker that has its handler.
 * @param options `log`, `closeTimeoutMs` [10000], `retryMs` [1000].
 * @example
 * const processor = jobProcessor({ export: async (payload, ctx) => ({ location: '/v1/exports/7' }) })
 * const worker = processor.attach(new Worker('restwell-jobs', processor, { connection, concurrency: 4 }))
 * process.once('SIGTERM', () => processor.close())
 */
export function jobProcessor(
  handlers: ReadonlyMap<string, AnyJobHandler> | Readonly<Record<string, AnyJobHandler>>,
  options: JobProcessorOptions = {},
): JobProcessor {
  const log = options.log ?? consoleLog
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000
  const retryMs = options.retryMs ?? 1000
  const handlerOf = handlerLookup(handlers)
  const runs = new Set<Run>()
  const unknownNames = new Set<string>()
  const workers: ProcessorWorker[] = []
  let closing = false

  async function run(
    job: ProcessorJob,
    token: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    if (closing) {
      await job.moveToWait(token)
      throw moved('WaitingError', 'The worker is closing: the job is given back')
    }
    const handler = handlerOf(job.name)
    if (handler === undefined) {
      // A rolling deploy: this release has no handler for a newer job name. Set the job aside
      // for a worker that has one, rather than fail it for good.
      if (!unknownNames.has(job.name)) {
        unknownNames.add(job.name)
        log.warn(
          { job: job.name },
          '@restwell/jobs: this worker has no handler for this job name; such jobs are left for a worker that has one',
        )
      }
      await job.moveToDelayed(Date.now() + retryMs, token)
      throw moved('DelayedError', `No handler for job "${job.name}" here`)
    }
    const id = String(job.id)
    const { entry, released, end } = startRun(id, signal)
    runs.add(entry)
    try {
      return await settle(
        job,
        token,
        handler,
        entry,
        released,
        log.child({ jobId: id, job: job.name }),
      )
    } finally {
      runs.delete(entry)
      end()
    }
  }

  // Three declared parameters: BullMQ passes its cancellation signal only to such a function.
  const processor = ((job: ProcessorJob, token?: string, signal?: AbortSignal) =>
    run(job, token, signal)) as JobProcessor

  processor.attach = (worker) => {
    workers.push(worker)
    worker.on('lockRenewalFailed', (jobIds) => {
      for (const entry of runs) {
        if (!jobIds.includes(entry.id) || entry.reason !== undefined) continue
        entry.reason = 'lost'
        entry.controller.abort(new Error('The job lock was lost'))
      }
    })
    return worker
  }

  processor.close = async () => {
    closing = true
    // BullMQ stops fetching at once and waits for the jobs it runs, which end below.
    const closed = Promise.all(workers.map((worker) => worker.close()))
    const active = [...runs.values()]
    for (const entry of active) {
      entry.reason ??= 'closing'
      entry.controller.abort(new Error('The instance is closing'))
    }
    await within(Promise.all(active.map((entry) => entry.done)), closeTimeoutMs)
    for (const entry of active) entry.release()
    // Giving a job back needs Redis: with Redis gone, close does not wait for it past a second
    // closeTimeoutMs (the job's lock expires, and BullMQ's stalled check re-queues it), and
    // drops the worker's connections, whose reconnection attempts would keep the process alive.
    if (!(await within(closed, closeTimeoutMs))) {
      await Promise.all(workers.map((worker) => worker.disconnect().catch(noop)))
    }
  }

  return processor
}
