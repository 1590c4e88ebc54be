/** The jobs convention: 202 + Location, a status resource, 303 to the result. */
import { defineConvention } from '@restwell/core'
import { PLUGIN } from './api.js'
import { describeJobs } from './describe.js'
import { type JobsOptions, resolveJobsOptions, validateJobsOptions } from './options.js'
import { setupJobs } from './setup.js'

/**
 * Asynchronous operations (spec 3): `reply.accepted(job)` answers 202 with the `Location` of a
 * status resource, which answers 303 to the result once the job succeeded; jobs in memory or on
 * BullMQ (Redis). Routes and decorators only, no step of a request: it may come after the
 * umbrella.
 */
export const jobs = defineConvention({
  name: 'jobs',
  plugin: PLUGIN,
  phases: [],
  options: (raw: JobsOptions) => resolveJobsOptions(validateJobsOptions(raw)),
  setup: setupJobs,
  // Read by scripts: the status resource of a 202 and the result of a 303, the wait of a 503.
  contributes: () => ({ responseHeaders: ['location', 'retry-after'] }),
  // Its status and result routes, where the app's jobs are: the status resources' path.
  describe: ({ route, instance }) => describeJobs(route.url, instance.jobs.statusUrl(':id')),
})
