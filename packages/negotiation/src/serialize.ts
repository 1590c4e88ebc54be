/**
 * Serializes a payload in a negotiated representation (JSON itself stays with Fastify): the
 * bodies, and the route's serialize step that makes them.
 */
import { pageOf, type SerializeStep } from '@restwell/core'
import { MEDIA_TYPE, pathOf, publicUrl } from '@restwell/core/internal'
import type { FastifyReply } from 'fastify'
import { itemQuery, shownPage } from './forms.js'
import { jsonValue } from './json-value.js'
import { MEDIA_TYPES, type SupportedMediaType } from './options.js'
import { type RepresentationContext, toHal, toJsonApi, toSiren } from './representations.js'
import type { RouteSettings } from './settings.js'
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

const passThrough = (payload: unknown): string => payload as string

type Serializer = (data: unknown) => string

/**
 * The route's JSON response serializer for a status (`200`, then `2xx`, then `default`), so
 * the fields a response schema leaves out are left out of every representation.
 */
function responseSerializer(reply: FastifyReply, status: number): Serializer | undefined {
  for (const key of [String(status), `${String(status)[0]}xx`, 'default']) {
    const found = reply.getSerializationFunction(key) as
      | Serializer
      | Record<string, Serializer>
      | undefined
    if (typeof found === 'function') return found
    if (found !== undefined) return found['application/json'] ?? found['*/*']
  }
  return undefined
}

/**
 * The route's serialize step: the value the handler returned as XML, HAL, JSON:API or Siren
 * when one was negotiated (JSON and a route's own types pass). `versionParam` is the query
 * parameter item links keep (`false`: none).
 */
export function serializeStep(
  settings: RouteSettings,
  versionParam: string | false,
): SerializeStep {
  return function negotiationSerialize(request, reply, payload) {
    const type = (request as { [MEDIA_TYPE]?: SupportedMediaType })[MEDIA_TYPE]
    if (type === undefined || type === MEDIA_TYPES.json) return undefined
    const location = reply.getHeader('location')
    const filter = responseSerializer(reply, reply.statusCode)
    // The payload as JSON sends it: through the response schema, else `toJSON` applied.
    const data = filter === undefined ? jsonValue(payload) : JSON.parse(filter(payload))
    // Links name the URL the client sent, not the one `rewriteUrl` made.
    const url = publicUrl(request)
    const body = serializePayload(type, data, reply.statusCode, {
      ...settings.context,
      self: reply.statusCode === 201 && typeof location === 'string' ? location : url,
      path: settings.itemPath ?? pathOf(url),
      itemQuery: versionParam === false ? undefined : itemQuery(request, url, versionParam),
      page: shownPage(pageOf(reply), data),
    })
    if (body === undefined) return undefined
    reply.serializer(passThrough).type(CONTENT_TYPES[type])
    return body
  }
}
