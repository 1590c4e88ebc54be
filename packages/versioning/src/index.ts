/** @restwell/versioning: /v<N>/ prefix, Accept vnd.api.v<N>+json, ?version=; moved paths; Deprecation and Sunset. */
import './augment.js'
import { restwellVersioning } from './plugin.js'

export {
  type AcceptedVersion,
  type AcceptVersions,
  bestVersion,
  MAX_ACCEPT_RANGES,
  parseAcceptVersions,
  parseQuality,
  versionMediaType,
} from './accept.js'
export { deprecationValue, linkValue, sunsetValue, toDate } from './lifecycle.js'
export { compileMoved, type MovedPath, movedLocation } from './moved.js'
export { RetiredVersionSchema, type VersioningOptions, VersioningOptionsSchema } from './options.js'
export { MAX_VERSION_DIGITS, parseVersionNumber, prefixVersion } from './version.js'
export { API_VERSIONS } from '@restwell/core/internal'
export { VERSION_CONSTRAINT, versioned } from './pair.js'
export { versioning } from './convention.js'
export { restwellVersioning }
export default restwellVersioning
