/** @restwell/pagination: `?page=&limit=&sort=` and filters, cursors, RFC 8288 `Link`, page envelopes. */
import './augment.js'
import { restwellPagination } from './plugin.js'

export { pagination } from './convention.js'

export { applyPagination, type PaginatedSlice } from './array.js'
export {
  cursorBinding,
  CURSOR_EXPIRY_STEPS,
  cursorExpiry,
  type CursorPayload,
  decodeCursor,
  encodeCursor,
  MAX_CURSOR_LENGTH,
} from './cursor.js'
export { coerceFilter, type FilterSpec, filterSpecOf, MAX_FILTER_VALUES } from './filters.js'
export { formatLinkHeader, LINK_RELATIONS, PageUrls } from './links.js'
export {
  DEFAULT_CURSOR_TIEBREAKER,
  DEFAULT_CURSOR_TTL,
  DEFAULT_LIMIT,
  DEFAULT_MAX_LIMIT,
  DEFAULT_PASSTHROUGH,
  type PaginationOptions,
  PaginationOptionsSchema,
  RouteConfigSchema,
  type RoutePaginationConfig,
} from './options.js'
export { augmentRouteSchema, PageSchema, PaginationQuery } from './schema.js'
export { formatSort, MAX_SORT_LENGTH, parseSort } from './sort.js'
export type { CursorPosition, CursorValue, PaginateOptions, Pagination, SortKey } from './types.js'
export { restwellPagination }
export default restwellPagination
// `safePath` lives in @restwell/errors (versioning uses it too); re-exported as before.
export type { PageInfo, PageLinks } from '@restwell/core'
export { PAGE, safePath } from '@restwell/core/internal'
