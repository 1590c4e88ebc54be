/** What clients see of a job: the public view of its stored record. */
import { statusCode as defaultCode } from '@restwell/errors'
import type { Job, JobError, JobFailure, JobRecord } from './types.js'

/** What a failed job tells clients, from its stored failure (old or foreign records included). */
export function jobError(record: JobRecord): JobError {
  const failure = JSON.parse(record.error ?? '{}') as Partial<JobFailure>
  const status = failure.statusCode
  const statusCode =
    typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
      ? status
      : 500
  return {
    statusCode,
    code: typeof failure.code === 'string' ? failure.code : defaultCode(statusCode),
    message: typeof failure.message === 'string' ? failure.message : 'The job failed',
    details: Array.isArray(failure.details) ? failure.details : [],
  }
}

/** The public view of a record; a failed job's error included. */
export function toJob(record: JobRecord): Job {
  const job: Job = {
    jobId: record.id,
    status: record.status,
    estimatedTime: record.estimatedTime,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  }
  if (record.progress !== undefined) job.progress = record.progress
  if (record.status === 'failed') job.error = jobError(record)
  return job
}
