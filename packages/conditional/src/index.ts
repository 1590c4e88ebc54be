/** @restwell/conditional: ETag, Last-Modified, If-* preconditions (304/412/428) and byte ranges (206/416). */
import './augment.js'
import { restwellConditional } from './plugin.js'

export { acceptsCoding } from './accept-encoding.js'
export { defineValidator } from './define-validator.js'
export type {
  ConditionalRouteConfig,
  EtagOptions,
  GetValidator,
  ResourceValidators,
} from './augment.js'
export {
  CODING_SUFFIXES,
  codingOf,
  combineVersions,
  type EntityTag,
  type EntityTagList,
  findMatch,
  findState,
  formatEntityTag,
  hashEntityTag,
  MAX_ENTITY_TAGS,
  namesState,
  parseEntityTag,
  parseEntityTagList,
  tagMatches,
  toEntityTag,
  type Version,
  withCoding,
  withoutCoding,
  withRepresentation,
} from './etag.js'
export {
  type DateValue,
  formatHttpDate,
  MAX_HTTP_DATE_LENGTH,
  parseHttpDate,
  toSeconds,
} from './http-date.js'
export {
  type ConditionalOptions,
  ConditionalOptionsSchema,
  type ResolvedConditionalOptions,
  resolveConditionalOptions,
} from './options.js'
export {
  type ConditionalHeaders,
  type CurrentValidators,
  evaluateIfRange,
  evaluatePreconditions,
  hasPrecondition,
  isSafeReadMethod,
  type PreconditionOutcome,
} from './preconditions.js'
export {
  type ByteRange,
  contentRange,
  DEFAULT_MAX_RANGES,
  MAX_RANGE_HEADER_LENGTH,
  type MultipartBody,
  multipartByteranges,
  parseRange,
  type RangeSpec,
  resolveRanges,
} from './range.js'
export { conditional } from './convention.js'
export { restwellConditional }
export default restwellConditional
