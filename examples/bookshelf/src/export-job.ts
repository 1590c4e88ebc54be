/**
 * The export job, run by an API instance's own worker or by a worker process (`pnpm worker`,
 * `src/worker.ts`): nothing here loads Fastify. Idempotent: a job run twice (its worker died
 * after writing) writes one export.
 */
import type { DefaultJobOptions } from 'bullmq'
import type { Queryable } from './db.js'
import { insertExport } from './repository.js'
import type { ExportInput } from './schemas.js'

/** The job's name in the queue. */
export const EXPORT_JOB = 'book-export'

/** How long an export is expected to take, in seconds (`estimatedTime`: `PT5S`). */
export const EXPORT_ESTIMATE = 5

/** The BullMQ queue of the bookshelf's jobs, in Redis: `bookshelf:bookshelf-jobs:<jobId>`. */
export const JOB_QUEUE = { queue: 'bookshelf-jobs', keyPrefix: 'bookshelf' } as const

/** BullMQ's retries: a database blip fails a run, not the export. */
export const JOB_OPTIONS: DefaultJobOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
}

/** The export handler: writes the export (once per job) and sends clients to it (303). */
export function exportBooks(
  db: Queryable,
): (
  filter: ExportInput,
  ctx: { jobId: string; progress(percent: number): Promise<void> },
) => Promise<{ location: string }> {
  return async (filter, ctx) => {
    await ctx.progress(10)
    const id = await insertExport(db, filter ?? {}, ctx.jobId)
    return { location: `/v1/exports/${id}` }
  }
}
