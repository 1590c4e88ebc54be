/**
 * The job's resources: its status (`<basePath>/:id`, 303 to the result once it succeeded) and
 * its result (`<basePath>/:id/result`, 409 until there is one), and `reply.accepted(job)`.
 */
import { ErrorCode, httpErrors } from '@restwell/errors'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { JOB_ID, type StoreCall } from './api.js'
import type { ResolvedJobsOptions } from './options.js'
import type { Job, JobBackend, JobRecord } from './types.js'
import { jobError, toJob } from './views.js'

const JSON_TYPE = 'application/json; charset=utf-8'

/** 202 Accepted with `{ jobId, status, estimatedTime }` and the `Location` of its status. */
export function accepted(this: FastifyReply, job: Job): FastifyReply {
  const location = this.server.jobs.statusUrl(job.jobId)
  return this.code(202)
    .header('location', location)
    .header('cache-control', 'no-store')
    .send({ jobId: job.jobId, status: job.status, estimatedTime: job.estimatedTime })
}

/** What the routes read: the store, how to call it, and where the status resources are. */
interface Resources {
  readonly backend: JobBackend
  readonly call: StoreCall
  readonly base: string
}

/** The stored record of job `id`, or the 404 of an unknown job. */
async function load(resources: Resources, id: string): Promise<JobRecord> {
  const record = JOB_ID.test(id)
    ? await resources.call((signal) => resources.backend.get(id, signal))
    : undefined
  if (record === undefined) {
    throw httpErrors.notFound(`No job ${id.length > 64 ? `${id.slice(0, 64)}...` : id}`, {
      code: ErrorCode.JOB_NOT_FOUND,
    })
  }
  return record
}

/** The result of a job that succeeded: its own location, or the result resource. */
function resultUrl(resources: Resources, record: JobRecord): string {
  return record.location ?? `${resources.base}/${record.id}/result`
}

/** The result of `record`: the value it stored, a 303 to its location, or a 409 until then. */
function sendResult(resources: Resources, record: JobRecord, reply: FastifyReply): FastifyReply {
  const statusUrl = `${resources.base}/${record.id}`
  if (record.status === 'failed') {
    const error = jobError(record)
    throw httpErrors.conflict(`Job ${record.id} failed: ${error.message}`, {
      code: ErrorCode.JOB_FAILED,
      details: error.details,
      headers: { location: statusUrl },
    })
  }
  if (record.status !== 'succeeded') {
    throw httpErrors.conflict(`Job ${record.id} is ${record.status}: its result is not ready`, {
      code: ErrorCode.JOB_NOT_FINISHED,
      headers: { location: statusUrl },
    })
  }
  if (record.location !== undefined)
    return reply.code(303).header('location', record.location).send()
  // The value, not its stored JSON text: it goes through the reply's serializers, so the
  // negotiated representation applies (XML, HAL, ...); a JSON string stays JSON text (Fastify
  // would send a string as text/plain). Both backends write a result when there is no location.
  const text = record.result as string
  const value: unknown = JSON.parse(text)
  if (typeof value === 'string') return reply.type(JSON_TYPE).send(text)
  return reply.send(value)
}

/** Adds the status and result routes of the jobs. */
export function addJobRoutes(
  fastify: FastifyInstance,
  options: ResolvedJobsOptions,
  resources: Resources,
): void {
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
      const record = await load(resources, request.params.id)
      reply.header('cache-control', 'no-store')
      const job = toJob(record)
      if (record.status === 'succeeded')
        return reply.code(303).header('location', resultUrl(resources, record)).send(job)
      // queued, running, and failed: the GET of the status resource itself succeeded; a failed
      // job's error is in the body, never in the status of this response.
      return job
    },
  )
  fastify.get<{ Params: { id: string } }>(
    `${options.basePath}/:id/result`,
    resultRoute,
    async (request, reply) =>
      sendResult(resources, await load(resources, request.params.id), reply),
  )
}
