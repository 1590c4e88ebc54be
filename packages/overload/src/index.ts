/** @restwell/overload: 503 + Retry-After for a Fastify API under pressure (@fastify/under-pressure). */
import { restwellOverload } from './plugin.js'

export type { FastifyUnderPressureOptions } from '@fastify/under-pressure'
export { overload } from './convention.js'
export {
  type OverloadOptions,
  OverloadOptionsSchema,
  type ResolvedOverloadOptions,
  resolveOverloadOptions,
} from './options.js'
export { restwellOverload }
export default restwellOverload
