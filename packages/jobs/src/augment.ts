/** Type augmentation of Fastify for `@restwell/jobs`. */
import type { BullmqQueue, Job, JobDefinitionOptions, JobHandler } from './types.js'

/** `app.jobs`: define handlers, enqueue jobs, read their state. */
export interface JobsApi {
  /** Registers the handler of one job name (before `ready`, on every instance that enqueues or works). */
  define<P = unknown, R = unknown>(
    name: string,
    handler: JobHandler<P, R>,
    options?: JobDefinitionOptions,
  ): void
  /**
   * Declares a job name whose handler runs elsewhere (BullMQ workers in other processes): this
   * instance enqueues it and serves its status, and its worker never takes it.
   */
  define(name: string, options: JobDefinitionOptions): void
  /** Creates a queued job; rejects with a 503 HttpError when the store is unavailable. */
  enqueue<P = unknown>(name: string, payload: P): Promise<Job>
  /** The public view of a job, or undefined; rejects with 503 when the store is unavailable. */
  get(id: string): Promise<Job | undefined>
  /** `<prefix><basePath>/<id>`: the status resource of a job. */
  statusUrl(id: string): string
  /**
   * The BullMQ queue with the Redis backend (for a dashboard, metrics), `undefined` in memory.
   * Typed by a few members (bullmq is an optional peer): `app.jobs.queue as Queue` for the rest.
   */
  readonly queue: BullmqQueue | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobsApi
  }
  interface FastifyReply {
    /** 202 Accepted with `{ jobId, status, estimatedTime }` and `Location` of the status resource. */
    accepted(job: Job): FastifyReply
  }
}
