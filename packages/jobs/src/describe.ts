/** What the jobs convention says of its own routes in the OpenAPI document. */
import type { RouteDescription } from '@restwell/core'

const str = { type: 'string' }

/** The job status resource (its `Job`). */
const JOB = {
  type: 'object',
  required: ['jobId', 'status', 'estimatedTime', 'createdAt', 'updatedAt'],
  properties: {
    jobId: str,
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
    estimatedTime: { type: 'string', description: 'ISO 8601 duration' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    progress: { type: 'number', minimum: 0, maximum: 100 },
    error: { type: 'object', description: 'Why a failed job failed' },
  },
}

const LOCATION = [['Location', 'The result']] as const

/**
 * The answers of the route at `url`, where it is one of the job's: the status resource
 * (`status`, `<basePath>/:id`) answers the job, 303 to the result once it succeeded (RFC 9110
 * §15.4.4); the result resource 303 to where the result is, 409 until there is one.
 */
export function describeJobs(url: string, status: string): RouteDescription | undefined {
  if (url === status) {
    return {
      responses: [
        [200, 'The job, not finished (or failed: `error`)', { content: JOB }],
        [303, 'See Other: the job succeeded', { headers: LOCATION, content: JOB }],
      ],
    }
  }
  if (url !== `${status}/result`) return undefined
  return {
    responses: [
      [303, 'See Other: the result is a resource of its own', { headers: LOCATION }],
      [409, 'Conflict: the job failed or is not finished (`Location`: its status)'],
    ],
  }
}
