/**
 * /v1/exports: a bulk export of the catalogue that runs as an asynchronous job. POST answers
 * 202 with `{ jobId, status, estimatedTime }` and a Location to the job's status resource
 * (`/jobs/{jobId}`, from `@restwell/jobs`), which answers 303 to `/v1/exports/{id}` when done.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Database } from '../db.js'
import { EXPORT_ESTIMATE, EXPORT_JOB, exportBooks } from '../export-job.js'
import { findExport } from '../repository.js'
import { AcceptedJob, ExportDocument, ExportInput, IdParams } from '../schemas.js'
import { notFound, READ, WRITE } from './books.js'

/** The part of `@restwell/jobs`' decorators this module uses. */
interface JobsApi {
  define<P>(
    name: string,
    handler: (
      payload: P,
      ctx: { jobId: string; progress(percent: number): Promise<void> },
    ) => Promise<unknown>,
    options?: { estimatedTime?: number | string },
  ): void
  enqueue<P>(name: string, payload: P): Promise<unknown>
}
type AcceptingReply = FastifyReply & { accepted(job: unknown): FastifyReply }

export async function exportsRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts

  app.get<{ Params: IdParams }>(
    '/exports/:id',
    {
      schema: {
        summary: 'A finished export',
        tags: ['exports'],
        params: IdParams,
        response: { 200: ExportDocument },
      },
      config: { auth: READ },
    },
    async (request) => {
      const found = await findExport(db, request.params.id)
      if (found === undefined) throw notFound('export', request.params.id)
      return { id: found.id, createdAt: found.createdAt, ...found.body }
    },
  )

  // POST needs the jobs plugin (its decorators); without it there is no asynchronous export.
  // The job itself is defined once, by `defineExportJob` (the routes of a version are
  // registered twice: at /v1 and unprefixed).
  if (!app.hasDecorator('jobs')) return
  const jobs = (app as unknown as { jobs: JobsApi }).jobs

  app.post<{ Body: ExportInput }>(
    '/exports',
    {
      schema: {
        summary: 'Export the catalogue (asynchronous)',
        description:
          'Answers 202 with the job; its status resource answers 303 to the export when done.',
        tags: ['exports'],
        body: ExportInput,
        response: { 202: AcceptedJob },
      },
      config: { auth: WRITE, idempotency: true },
    },
    async (request, reply) => {
      const job = await jobs.enqueue(EXPORT_JOB, request.body ?? {})
      return (reply as AcceptingReply).accepted(job)
    },
  )
}

/**
 * Defines the export job on `app` (which has the jobs plugin): on every instance, the one whose
 * worker runs it (JOB_WORKER unset), or one that only enqueues while worker processes
 * (`pnpm worker`) run the same handler.
 */
export function defineExportJob(app: FastifyInstance, db: Database): void {
  const jobs = (app as unknown as { jobs: JobsApi }).jobs
  jobs.define<ExportInput>(EXPORT_JOB, exportBooks(db), { estimatedTime: EXPORT_ESTIMATE })
}
