/** @restwell/batch: one POST, many operations served by the app itself, 207 Multi-Status with a status per operation. */
import { restwellBatch } from './plugin.js'

export { batch } from './convention.js'
export { BATCH_MARKER_HEADER } from './execute.js'
export {
  type BatchOptions,
  BatchOptionsSchema,
  type BatchTransaction,
  FORBIDDEN_HEADERS,
  FORBIDDEN_QUERY,
} from './options.js'
export { type Batch, type Operation, type ParseLimits, parseBatch } from './parse.js'
export { BATCH_RESPONSE_SCHEMA, batchRequestSchema } from './schema.js'
export type { Outcome } from './schedule.js'
export { restwellBatch }
export default restwellBatch
