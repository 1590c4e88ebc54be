/**
 * `respond-async` (RFC 7240 §4.1) with `wait` (§4.3) on a route with an asynchronous form: its
 * work is a job of `@restwell/jobs`; the request waits for it at most `wait` seconds (never more
 * than `maxWait`), then answers 202 with the job resource, or the outcome when it is done.
 */
import type { RequestStep } from '@restwell/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type JobFailureView, jobFailure } from './steps.js'

/** A job as `@restwell/jobs` shows it (its `Job`), by the members read here. */
export interface JobView {
  jobId: string
  status: 'queued' | 'running' | 'succeeded' | 'failed'
  estimatedTime: string
  error?: JobFailureView
}

/** `app.jobs` of `@restwell/jobs`, by the members used here. */
export interface JobsView {
  enqueue(name: string, payload: unknown): Promise<JobView>
  get(id: string): Promise<JobView | undefined>
  statusUrl(id: string): string
}

/** A route's asynchronous form, resolved. */
export interface ResolvedAsync {
  readonly job: string
  readonly payload: ((request: FastifyRequest) => unknown) | undefined
  /** The longest the request waits, in seconds. */
  readonly maxWait: number
}

/** The longest pause between two looks at a job's status, in ms. */
const MAX_PAUSE_MS = 250

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const finished = (job: JobView): boolean => job.status === 'succeeded' || job.status === 'failed'

/** The job once it is finished, or as it is when `ms` have passed (looked at ever less often). */
export async function settle(jobs: JobsView, job: JobView, ms: number): Promise<JobView> {
  const end = Date.now() + ms
  let current = job
  let wait = 5
  while (!finished(current)) {
    const left = end - Date.now()
    if (left <= 0) break
    await pause(Math.min(wait, left))
    wait = Math.min(wait * 2, MAX_PAUSE_MS)
    current = (await jobs.get(current.jobId)) ?? current
  }
  return current
}

type Accepting = FastifyReply & { accepted(job: JobView): FastifyReply }

/**
 * Before the handler, on a request that prefers `respond-async`: the job is enqueued instead of
 * the handler's work. Still running after the wait: 202 with the job resource. Succeeded: 303 to
 * its result (RFC 9110 §15.4.4). Failed: its error, as the job's status resource shows it.
 */
export function respondAsync(form: ResolvedAsync): RequestStep {
  return async function respondAsync(request, reply) {
    const prefer = request.prefer
    if (prefer === null || !prefer.respondAsync) return undefined
    const jobs = (request.server as unknown as { jobs: JobsView }).jobs
    const payload = form.payload === undefined ? (request.body ?? null) : form.payload(request)
    const queued = await jobs.enqueue(form.job, payload)
    const job = await settle(jobs, queued, Math.min(prefer.wait ?? 0, form.maxWait) * 1000)
    if (job.status === 'failed') return jobFailure(job.error as JobFailureView)
    if (job.status === 'succeeded') {
      reply
        .code(303)
        .header('location', `${jobs.statusUrl(job.jobId)}/result`)
        .header('cache-control', 'no-store')
        .send(job)
      return true
    }
    prefer.apply('respond-async')
    ;(reply as Accepting).accepted(job)
    return true
  }
}
