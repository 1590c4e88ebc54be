/** Jobs, their records, their stores and their handlers. */
import type { FastifyBaseLogger } from 'fastify'

/**
 * `queued` → `running` → `succeeded` | `failed`; `running` → `queued` again when its
 * worker's lease expires (instance died) and attempts remain, else → `failed`.
 */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

/** The public view of a job: the body of the status resource. */
export interface Job {
  jobId: string
  status: JobStatus
  /** ISO 8601 duration: how long the job is expected to take, e.g. `PT30S`. */
  estimatedTime: string
  /** ISO 8601 UTC. */
  createdAt: string
  /** ISO 8601 UTC. */
  updatedAt: string
  /** Percent done, 0-100, when the handler reports it. */
  progress?: number
  /** Why the job failed, when its status is `failed`. */
  error?: JobError
}

/**
 * A failed job's error as the status resource shows it, in the body of a 200: the status and
 * code the failure maps to, and its public message and details (a 5xx or an unexposed error is
 * masked when the job fails, never shown).
 */
export interface JobError {
  statusCode: number
  code: string
  message: string
  details: { field: string; message: string; code?: string }[]
}

/** A failure as clients may see it: never a stack, never a 5xx's internal message. */
export interface JobFailure {
  statusCode: number
  /** Machine-readable code; absent in records written before it was kept (the status's default). */
  code?: string
  message: string
  details?: { field: string; message: string; code?: string }[]
}

/** A job as a store keeps it. Times are epoch milliseconds. */
export interface JobRecord {
  id: string
  name: string
  status: JobStatus
  /** JSON text (in memory; '' in a record read from BullMQ, whose job keeps its data). */
  payload: string
  estimatedTime: string
  attempts: number
  /** The claim token of the worker running it (`<instance>:<attempt>`), '' when none. */
  owner: string
  createdAt: number
  updatedAt: number
  progress?: number
  /** JSON text of the result, when it succeeded without a location. */
  result?: string
  /** Where the result lives, when the handler named it. */
  location?: string
  /** JSON text of a `JobFailure`. */
  error?: string
}

/** How a run ended. */
export type JobOutcome =
  | { status: 'succeeded'; result: string }
  | { status: 'succeeded'; location: string }
  | { status: 'failed'; error: JobFailure }

/** Where jobs live and how workers take them. Every method may reject when the store is down. */
export interface JobStore {
  /** Saves a new queued job and puts it on the queue. */
  create(job: {
    id: string
    name: string
    payload: string
    estimatedTime: string
  }): Promise<JobRecord>
  get(id: string): Promise<JobRecord | undefined>
  /**
   * Atomically takes the oldest queued job whose name is one of `names` (the job names the
   * instance has handlers for) for `instance`, and marks it running with a lease. A job of any
   * other name is never taken: it stays queued, in its place, for an instance that defines it.
   */
  claim(instance: string, names: readonly string[]): Promise<JobRecord | undefined>
  /** Extends the lease; false when the job is no longer ours (re-queued or finished). */
  heartbeat(id: string, owner: string): Promise<boolean>
  /** Records progress (0-100); false when the job is no longer ours. */
  progress(id: string, owner: string, value: number): Promise<boolean>
  /** Ends a run; false (and nothing changes) when the job is no longer ours. */
  finish(id: string, owner: string, outcome: JobOutcome): Promise<boolean>
  /** Gives a job back to the queue, not counting the attempt (graceful shutdown). */
  release(id: string, owner: string): Promise<boolean>
  /** Re-queues (or fails, when attempts are spent) running jobs whose lease expired. */
  reap(): Promise<number>
  close(): Promise<void>
}

/** What a handler gets besides the payload. */
export interface JobContext {
  jobId: string
  /** 1 for the first run; more when a lost lease made the job run again. */
  attempt: number
  /** Aborted when the instance closes or the lease was lost: stop early if you can. */
  signal: AbortSignal
  /** Reports percent done (0-100), shown as `progress` on the status resource. */
  progress(value: number): Promise<void>
  log: FastifyBaseLogger
}

/**
 * Runs one job. Return `{ location: '/v1/exports/7' }` (an object with only a string
 * `location`) to send clients there (303), or any JSON value to have it served at
 * `<basePath>/<id>/result`. Throw an `HttpError` to fail with a public message.
 */
export type JobHandler<P = unknown, R = unknown> = (payload: P, context: JobContext) => Promise<R>

export interface JobDefinitionOptions {
  /** Expected duration: seconds or an ISO 8601 duration. [the plugin's `estimatedTime`] */
  estimatedTime?: number | string
}

/** A new job, as the plugin hands it to a backend. */
export interface NewJob {
  id: string
  name: string
  /** A JSON value. */
  payload: unknown
  estimatedTime: string
}

/**
 * A BullMQ `Queue`, by a few of its members, so that these declarations need no bullmq: a bullmq
 * `Queue` is one. For the rest, cast it: `app.jobs.queue as Queue` (bullmq's).
 */
export interface BullmqQueue {
  readonly name: string
  readonly qualifiedName: string
  getJobCounts(...types: string[]): Promise<Record<string, number>>
  isPaused(): Promise<boolean>
  pause(): Promise<void>
  resume(): Promise<void>
  close(): Promise<void>
}

/** Where the plugin keeps and runs jobs: in memory (a store and a worker) or on BullMQ. */
export interface JobBackend {
  /** The BullMQ queue (Redis backend), e.g. for a dashboard; `undefined` in memory. */
  readonly queue: BullmqQueue | undefined
  /** Saves a queued job; sends nothing once `signal` aborted (the request was answered 503). */
  add(job: NewJob, signal: AbortSignal): Promise<JobRecord>
  get(id: string, signal: AbortSignal): Promise<JobRecord | undefined>
  /** Starts this instance's worker, if it runs one (at `onReady`, once every handler is defined). */
  start(): void
  /** Stops the worker (running jobs given back after `closeTimeoutMs`) and closes what it opened. */
  close(): Promise<void>
}
