/** The in-memory worker: takes jobs from the store, runs their handlers with bounded concurrency, keeps leases alive. */
import type { FastifyBaseLogger } from 'fastify'
import { outcomeOf, publicFailure } from './outcome.js'
import type { JobContext, JobHandler, JobOutcome, JobRecord, JobStore } from './types.js'

export interface WorkerOptions {
  instance: string
  concurrency: number
  leaseMs: number
  pollMs: number
  closeTimeoutMs: number
}

interface Running {
  record: JobRecord
  controller: AbortController
  done: Promise<void>
  finished: boolean
  /** The lease heartbeat; stopped when the run ends or `close()` gives the job back. */
  beat: NodeJS.Timeout | undefined
  /** `close()` gave the job back: this run no longer owns it, whatever its handler does next. */
  released: boolean
}

/** One per instance; `start()` after the store is up, `close()` on shutdown. */
export class Worker {
  readonly #store: JobStore
  readonly #handlers: ReadonlyMap<string, JobHandler>
  readonly #options: WorkerOptions
  readonly #log: FastifyBaseLogger
  readonly #running = new Set<Running>()
  #stopped = false
  #wake: (() => void) | undefined
  #loop: Promise<void> | undefined
  #lastReap = 0

  constructor(
    store: JobStore,
    handlers: ReadonlyMap<string, JobHandler>,
    options: WorkerOptions,
    log: FastifyBaseLogger,
  ) {
    this.#store = store
    this.#handlers = handlers
    this.#options = options
    this.#log = log
  }

  start(): void {
    this.#loop ??= this.#run()
  }

  /** Looks for work now (a job was enqueued here, or a slot freed). */
  notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined
        resolve()
      }, ms)
      this.#wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  async #run(): Promise<void> {
    const { concurrency, pollMs, leaseMs, instance } = this.#options
    while (!this.#stopped) {
      if (this.#running.size >= concurrency) {
        await this.#sleep(pollMs)
        continue
      }
      let record: JobRecord | undefined
      try {
        const now = Date.now()
        if (now - this.#lastReap >= leaseMs / 2) {
          this.#lastReap = now
          const reaped = await this.#store.reap()
          if (reaped > 0)
            this.#log.warn({ reaped }, '@restwell/jobs: re-queued jobs whose lease expired')
        }
        // Only jobs this instance can run: in a rolling deploy an instance without a newer job
        // name's handler leaves those jobs queued for the instances that have it.
        record = await this.#store.claim(instance, [...this.#handlers.keys()])
      } catch (error) {
        this.#log.warn({ err: error }, '@restwell/jobs: the job store is unavailable')
        await this.#sleep(pollMs)
        continue
      }
      if (record === undefined) {
        await this.#sleep(pollMs)
        continue
      }
      if (this.#stopped) {
        await this.#store.release(record.id, record.owner).catch(() => undefined)
        break
      }
      const handler = this.#handlers.get(record.name)
      if (handler === undefined) {
        // A custom store that ignored `names`: give the job back (its attempt not counted) for
        // an instance that has the handler, rather than fail it for good.
        this.#log.warn(
          { jobId: record.id, job: record.name },
          '@restwell/jobs: the store gave this instance a job it has no handler for; given back',
        )
        await this.#store.release(record.id, record.owner).catch(() => undefined)
        await this.#sleep(pollMs)
        continue
      }
      this.#execute(record, handler)
    }
  }

  #execute(record: JobRecord, handler: JobHandler): void {
    const controller = new AbortController()
    const running: Running = {
      record,
      controller,
      done: Promise.resolve(),
      finished: false,
      beat: undefined,
      released: false,
    }
    running.done = this.#perform(running, handler).finally(() => {
      this.#running.delete(running)
      this.notify()
    })
    this.#running.add(running)
  }

  async #perform(running: Running, handler: JobHandler): Promise<void> {
    const { record, controller } = running
    const store = this.#store
    const log = this.#log.child({ jobId: record.id, job: record.name })
    running.beat = setInterval(
      () => {
        store.heartbeat(record.id, record.owner).then(
          (ours) => {
            if (!ours) controller.abort(new Error('The job lease was lost'))
          },
          (error: unknown) => log.warn({ err: error }, '@restwell/jobs: heartbeat failed'),
        )
      },
      Math.max(10, Math.floor(this.#options.leaseMs / 3)),
    )
    // A heartbeat alone never keeps the process alive (close() stops it; this is the guard).
    running.beat.unref()
    const context: JobContext = {
      jobId: record.id,
      attempt: record.attempts,
      signal: controller.signal,
      log,
      progress: async (value) => {
        if (!Number.isFinite(value) || value < 0 || value > 100) {
          throw new RangeError(`progress must be a number from 0 to 100, got ${value}`)
        }
        await store.progress(record.id, record.owner, value)
      },
    }
    let outcome: JobOutcome
    try {
      outcome = outcomeOf(await handler(JSON.parse(record.payload), context))
    } catch (error) {
      if (controller.signal.aborted) {
        // Stopped from outside, not failed: the instance is closing (`close()` gives the job
        // back, its attempt not counted) or the lease was lost (another worker has the job).
        // A handler that honours `ctx.signal` rejects here; no outcome is recorded.
        log.info({ err: error }, '@restwell/jobs: job stopped before it finished')
        return
      }
      log.error({ err: error }, '@restwell/jobs: job failed')
      outcome = { status: 'failed', error: publicFailure(error) }
    } finally {
      clearInterval(running.beat)
    }
    if (running.released) {
      // A handler that ignored `ctx.signal` and ended after close() gave its job back: the job
      // is no longer this run's (another instance may run it), and the store may be closed.
      log.warn('@restwell/jobs: the job ended after it was given back on close; outcome dropped')
      return
    }
    running.finished = true
    try {
      const ours = await store.finish(record.id, record.owner, outcome)
      if (!ours)
        log.warn('@restwell/jobs: the job was taken over by another worker; outcome dropped')
    } catch (error) {
      // The lease will expire and the job run again: at-least-once delivery.
      log.error({ err: error }, '@restwell/jobs: could not record the outcome')
    }
  }

  /** Stops taking jobs, aborts running ones, waits up to closeTimeoutMs, gives the rest back. */
  async close(): Promise<void> {
    this.#stopped = true
    this.notify()
    await this.#loop
    const running = [...this.#running]
    for (const job of running) job.controller.abort(new Error('The instance is closing'))
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#options.closeTimeoutMs)
    })
    await Promise.race([Promise.all(running.map((job) => job.done)), timeout])
    clearTimeout(timer)
    const unfinished = running.filter((job) => !job.finished)
    for (const job of unfinished) {
      // Its handler ignores the signal and may never end: stop its heartbeat here, or it would
      // keep the lease of a job given back (and run against a closed store) forever.
      clearInterval(job.beat)
      job.released = true
    }
    await Promise.all(
      unfinished.map((job) =>
        this.#store.release(job.record.id, job.record.owner).catch(() => false),
      ),
    )
  }
}
