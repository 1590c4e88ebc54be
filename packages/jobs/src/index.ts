/** @restwell/jobs: asynchronous operations: 202 + Location, a status resource, 303 to the result. */
import './augment.js'
import { restwellJobs } from './plugin.js'

export type { JobsApi } from './augment.js'
export { formatDuration, isDuration, toDuration } from './duration.js'
export { MemoryJobStore, type MemoryStoreOptions } from './memory-store.js'
export {
  type BullmqJobOptions,
  type BullmqKeepJobs,
  type BullmqWorkerOptions,
  type JobsOptions,
  JobsOptionsSchema,
  type RedisClient,
  type RedisStoreConfig,
} from './options.js'
export { PUBLIC_FAILURE_PREFIX } from './outcome.js'
export {
  type AnyJobHandler,
  type JobProcessor,
  type JobProcessorOptions,
  jobProcessor,
  type ProcessorJob,
  type ProcessorWorker,
} from './processor.js'
export type {
  BullmqQueue,
  Job,
  JobContext,
  JobDefinitionOptions,
  JobError,
  JobFailure,
  JobHandler,
  JobOutcome,
  JobRecord,
  JobStatus,
  JobStore,
} from './types.js'
export { jobs } from './convention.js'
export { restwellJobs }
export default restwellJobs
