/** restwell: every HTTP resource convention for a Fastify v5 API, in one line. */
import { restwell } from './plugin.js'

export * from '@restwell/errors'
export { restwellMethods } from '@restwell/methods'
export { PageSchema, PaginationQuery } from '@restwell/pagination'
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
