/** restwell: every HTTP resource convention for a Fastify v5 API, in one line. */
import { restwell } from './plugin.js'

// The libraries' option types, re-exported by name: their Fastify augmentations
// (`config.rateLimit`) then reach users of the ESM and the CommonJS declarations alike (an
// import for its side effect alone is dropped from the latter).
export type { FastifyUnderPressureOptions } from '@restwell/overload'
export type { RouteRateLimitOptions as RateLimitOptions } from '@restwell/rate-limit'

export * from '@restwell/errors'
export type {
  CompressSettings,
  RouteCompressSettings,
  RouteDecompressSettings,
} from '@restwell/compress'
export { combineVersions } from '@restwell/conditional'
export { restwellMethods } from '@restwell/methods'
export { PageSchema, PaginationQuery } from '@restwell/pagination'
export { versioned } from '@restwell/versioning'
export {
  PLUGIN_KEYS,
  type PluginKey,
  type RestwellOptions,
  RestwellOptionsSchema,
} from './options.js'
export {
  describeRoute,
  ERROR_SCHEMA_ID,
  errorBodySchema,
  type OpenapiPlan,
  restwellOpenapi,
  routeResponses,
} from './openapi.js'
export { restwell }
export default restwell
