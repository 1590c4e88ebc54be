/** @restwell/patch: JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7396) for Fastify. */
import './augment.js'
import { restwellPatch } from './plugin.js'

export type { ParsedPatch, RestwellPatchApi } from './augment.js'
export {
  acceptPatchValue,
  PATCH_FORMATS,
  PATCH_MEDIA_TYPES,
  type PatchFormat,
  patchFormatOf,
} from './content-type.js'
export { patch } from './convention.js'
export { applyJsonPatch, type JsonPatchOp, type JsonPatchOperation } from './json-patch.js'
export { applyMergePatch } from './merge-patch.js'
export {
  DEFAULT_MAX_OPERATIONS,
  type PatchOptions,
  PatchOptionsSchema,
  type PatchRouteConfig,
  PatchRouteConfigSchema,
} from './options.js'
export { restwellPatch }
export default restwellPatch
