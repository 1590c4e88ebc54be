/** The in-memory job store and backend: one process, jobs gone on restart. The default. */
import type { FastifyBaseLogger } from 'fastify'
import type { JobBackend, JobHandler, JobOutcome, JobRecord, JobStore } from './types.js'
import { Worker } from './worker.js'

export interface MemoryStoreOptions {
  /** How long a finished job stays readable, in ms. */
  ttlMs: number
}

/** Keeps jobs in a Map and the queue in an array (FIFO). */
export class MemoryJobStore implements JobStore {
  readonly #jobs = new Map<string, JobRecord>()
  readonly #queue: string[] = []
  readonly #expiries = new Set<NodeJS.Timeout>()
  readonly #ttlMs: number

  constructor(options: MemoryStoreOptions) {
    this.#ttlMs = options.ttlMs
  }

  async create(job: {
    id: string
    name: string
    payload: string
    estimatedTime: string
  }): Promise<JobRecord> {
    const now = Date.now()
    const record: JobRecord = {
      ...job,
      status: 'queued',
      attempts: 0,
      owner: '',
      createdAt: now,
      updatedAt: now,
    }
    this.#jobs.set(job.id, record)
    this.#queue.push(job.id)
    return { ...record }
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const record = this.#jobs.get(id)
    return record === undefined ? undefined : { ...record }
  }

  async claim(instance: string, names: readonly string[]): Promise<JobRecord | undefined> {
    // The oldest job of a name the instance runs; the others keep their place in the queue.
    const index = this.#queue.findIndex((id) =>
      names.includes((this.#jobs.get(id) as JobRecord).name),
    )
    if (index === -1) return undefined
    const [id] = this.#queue.splice(index, 1)
    const record = this.#jobs.get(id as string) as JobRecord
    record.attempts += 1
    record.status = 'running'
    record.owner = `${instance}:${record.attempts}`
    record.updatedAt = Date.now()
    return { ...record }
  }

  #owned(id: string, owner: string): JobRecord | undefined {
    const record = this.#jobs.get(id)
    return record?.status === 'running' && record.owner === owner ? record : undefined
  }

  async heartbeat(id: string, owner: string): Promise<boolean> {
    return this.#owned(id, owner) !== undefined
  }

  async progress(id: string, owner: string, value: number): Promise<boolean> {
    const record = this.#owned(id, owner)
    if (record === undefined) return false
    record.progress = value
    record.updatedAt = Date.now()
    return true
  }

  async finish(id: string, owner: string, outcome: JobOutcome): Promise<boolean> {
    const record = this.#owned(id, owner)
    if (record === undefined) return false
    record.status = outcome.status
    record.owner = ''
    record.updatedAt = Date.now()
    if ('result' in outcome) record.result = outcome.result
    else if ('location' in outcome) record.location = outcome.location
    else record.error = JSON.stringify(outcome.error)
    const timer = setTimeout(() => {
      this.#expiries.delete(timer)
      this.#jobs.delete(id)
    }, this.#ttlMs)
    timer.unref()
    this.#expiries.add(timer)
    return true
  }

  async release(id: string, owner: string): Promise<boolean> {
    const record = this.#owned(id, owner)
    if (record === undefined) return false
    record.status = 'queued'
    record.owner = ''
    record.attempts -= 1
    record.updatedAt = Date.now()
    this.#queue.unshift(id)
    return true
  }

  /** One process: a lease cannot outlive its worker here, so there is nothing to reap. */
  async reap(): Promise<number> {
    return 0
  }

  async close(): Promise<void> {
    for (const timer of this.#expiries) clearTimeout(timer)
    this.#expiries.clear()
  }
}

export interface MemoryBackendOptions {
  /** This instance's id (the owner tokens of its claims). */
  instance: string
  /** Run a worker in this instance. */
  worker: boolean
  concurrency: number
  pollMs: number
  ttlMs: number
  closeTimeoutMs: number
}

/** A lease a job in memory never loses (its worker is this process): heartbeats every 10 s. */
const MEMORY_LEASE_MS = 30_000

/** Jobs in a `MemoryJobStore`, run by this process's `Worker`. */
export function memoryBackend(
  options: MemoryBackendOptions,
  handlers: ReadonlyMap<string, JobHandler>,
  log: FastifyBaseLogger,
): JobBackend {
  const store = new MemoryJobStore({ ttlMs: options.ttlMs })
  const worker = new Worker(
    store,
    handlers,
    {
      instance: options.instance,
      concurrency: options.concurrency,
      leaseMs: MEMORY_LEASE_MS,
      pollMs: options.pollMs,
      closeTimeoutMs: options.closeTimeoutMs,
    },
    log,
  )
  return {
    queue: undefined,
    async add(job) {
      const record = await store.create({
        id: job.id,
        name: job.name,
        payload: JSON.stringify(job.payload) ?? 'null',
        estimatedTime: job.estimatedTime,
      })
      if (options.worker) worker.notify()
      return record
    },
    get: (id) => store.get(id),
    start() {
      if (options.worker) worker.start()
    },
    async close() {
      await worker.close()
      await store.close()
    },
  }
}
