/** @restwell/negotiation: media types, languages, charsets and representations for Fastify. */
import './augment.js'
import { restwellNegotiation } from './plugin.js'

export { acceptsUtf8 } from './accept-charset.js'
export { acceptQueryValue } from './accept-query.js'
export {
  isLanguageRange,
  type LanguageRange,
  parseAcceptLanguage,
  pickLanguage,
} from './accept-language.js'
export { apiVersionsOf } from '@restwell/core'
export { API_VERSIONS } from '@restwell/core/internal'
export {
  isVersionedJson,
  type MediaOffer,
  type MediaRange,
  negotiateMediaType,
  type ParseAcceptOptions,
  parseAccept,
  qualityOf,
  toOffer,
  versionedJsonVersion,
} from './accept.js'
export type { MultipartFile, Negotiated } from './augment.js'
export { type ContentType, parseContentType } from './content-type.js'
export {
  createErrorRenderer,
  type ErrorMediaOptions,
  errorMediaType,
  jsonApiErrors,
  PROBLEM_XML_CONTENT_TYPE,
} from './error-body.js'
export {
  type ListElement,
  MAX_LIST_ELEMENTS,
  type ParsedList,
  parseList,
} from '@restwell/core/internal'
export {
  DEFAULT_FORMATS,
  MEDIA_TYPES,
  type NegotiationOptions,
  NegotiationOptionsSchema,
  type NegotiationRouteConfig,
  NegotiationRouteSchema,
  type ProducedMediaType,
  SUPPORTED_MEDIA_TYPES,
  type SupportedMediaType,
} from './options.js'
export { negotiation } from './convention.js'
export { resourceName } from './settings.js'
export { type RepresentationContext, toHal, toJsonApi, toSiren } from './representations.js'
export { CONTENT_TYPES, serializePayload } from './serialize.js'
export { appendVary, mergeVary } from '@restwell/core'
export { fromXml, MAX_XML_DEPTH, toXml, xmlName } from './xml.js'
export { restwellNegotiation }
export default restwellNegotiation
