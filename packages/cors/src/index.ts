/** @restwell/cors: CORS for a Fastify API, preflights answered before auth (Fetch standard). */
import './augment.js'
import { restwellCors } from './plugin.js'

export { cors } from './convention.js'
export {
  type CorsOptions,
  CorsOptionsSchema,
  DEFAULT_ALLOWED_HEADERS,
  DEFAULT_EXPOSED_HEADERS,
  type MethodOverrideReach,
  type ResolvedCorsOptions,
  resolveCorsOptions,
} from './options.js'
export { restwellCors }
export default restwellCors
