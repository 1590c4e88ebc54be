/** Serializes a payload in a negotiated representation (JSON itself stays with Fastify). */
import { MEDIA_TYPES, type SupportedMediaType } from './options.js'
import { type RepresentationContext, toHal, toJsonApi, toSiren } from './representations.js'
import { toXml } from './xml.js'

/**
 * The `Content-Type` sent for each representation. JSON:API forbids parameters other than
 * `ext` and `profile` (JSON:API 1.1 §5.1), so it carries no charset; the others say UTF-8.
 */
export const CONTENT_TYPES: Readonly<Record<SupportedMediaType, string>> = {
  [MEDIA_TYPES.json]: 'application/json; charset=utf-8',
  [MEDIA_TYPES.xml]: 'application/xml; charset=utf-8',
  [MEDIA_TYPES.hal]: 'application/hal+json; charset=utf-8',
  [MEDIA_TYPES.jsonApi]: 'application/vnd.api+json',
  [MEDIA_TYPES.siren]: 'application/vnd.siren+json; charset=utf-8',
}

/** Everything a serializer needs: the hypermedia context and the XML root name. */
export interface SerializeContext extends RepresentationContext {
  xmlRoot: string
}

/**
 * The body of a payload in a representation other than JSON. XML serializes any payload;
 * HAL, JSON:API and Siren build their documents only for 2xx responses (a non-2xx payload a
 * handler sends itself is left as JSON, returning undefined).
 */
export function serializePayload(
  type: SupportedMediaType,
  payload: unknown,
  statusCode: number,
  context: SerializeContext,
): string | undefined {
  if (type === MEDIA_TYPES.xml) {
    // XML has no collection envelope of its own: a page goes out as the envelope that was sent.
    return toXml(payload, context.xmlRoot)
  }
  if (type === MEDIA_TYPES.json || statusCode < 200 || statusCode > 299) return undefined
  if (type === MEDIA_TYPES.hal) return JSON.stringify(toHal(payload, context))
  if (type === MEDIA_TYPES.jsonApi) return JSON.stringify(toJsonApi(payload, context))
  return JSON.stringify(toSiren(payload, context))
}
