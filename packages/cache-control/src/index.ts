/** @restwell/cache-control: an explicit Cache-Control and an exact Vary on every response (RFC 9111). */
import './augment.js'
import { restwellCacheControl } from './plugin.js'

export type { CacheRouteConfig } from './augment.js'
export {
  type CacheDirectives,
  formatCacheControl,
  isSharedCacheControl,
  isSharedPolicy,
  MAX_CACHE_CONTROL_LENGTH,
  MAX_DELTA_SECONDS,
  MAX_DIRECTIVES,
  type ParsedCacheControl,
  parseCacheControl,
} from './directives.js'
export {
  type CacheControlOptions,
  CacheControlOptionsSchema,
  CacheDirectivesSchema,
  CacheRouteConfigSchema,
  type ResolvedCacheControlOptions,
  resolveCacheControlOptions,
} from './options.js'
export { cacheControl } from './convention.js'
export { NO_STORE } from './policy.js'
export { appendVary, mergeVary } from '@restwell/core'
export { MAX_VARY_FIELDS } from '@restwell/core/internal'
export { restwellCacheControl }
export default restwellCacheControl
