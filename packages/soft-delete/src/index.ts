/** @restwell/soft-delete: `deleted` + `deletedAt`, soft (200) and hard (204) DELETE, 410, restore. */
import './augment.js'
import { restwellSoftDelete } from './plugin.js'

export type { SoftDeleteRequest } from './augment.js'
export { INCLUSION_VALUES, MAX_INCLUDE_TOKENS, readInclusion } from './inclusion.js'
export {
  DEFAULT_INCLUDE_PARAM,
  DEFAULT_PARAM,
  RouteConfigSchema,
  type RouteSoftDeleteConfig,
  type SoftDeleteOptions,
  SoftDeleteOptionsSchema,
} from './options.js'
export {
  type DeletedFields,
  filterDeleted,
  type Inclusion,
  isDeleted,
  isIncluded,
  isRestoreBody,
  markDeleted,
  represent,
  representAll,
  restore,
  sqlCondition,
  toIsoUtc,
} from './resource.js'
export { softDelete } from './convention.js'
export { restwellSoftDelete }
export default restwellSoftDelete
