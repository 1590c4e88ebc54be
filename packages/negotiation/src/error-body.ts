/** Error bodies of `@restwell/errors` in the other representations (XML, HAL, JSON:API, Siren). */
import type { ErrorBody, ErrorFormat, ErrorRenderer, NormalizedError } from '@restwell/errors'
import { apiVersionsOf, appendVary, mediaTypeOf, reasonPhrase } from '@restwell/errors'
import {
  type MediaOffer,
  negotiateMediaType,
  parseAccept,
  qualityOf,
  remembered,
  toOffer,
} from './accept.js'
import { MEDIA_TYPES, type SupportedMediaType } from './options.js'
import { CONTENT_TYPES } from './serialize.js'
import { toXml } from './xml.js'

/** RFC 9457 Appendix B (RFC 7807 Appendix A): the XML problem namespace and type. */
export const PROBLEM_XML_NAMESPACE = 'urn:ietf:rfc:7807'
export const PROBLEM_XML_CONTENT_TYPE = 'application/problem+xml; charset=utf-8'

const JSON_OFFERS: readonly MediaOffer[] = [
  toOffer(MEDIA_TYPES.json)!,
  toOffer('application/problem+json')!,
]
const OTHER_OFFERS: readonly MediaOffer[] = [
  MEDIA_TYPES.xml,
  MEDIA_TYPES.hal,
  MEDIA_TYPES.jsonApi,
  MEDIA_TYPES.siren,
].map((type) => toOffer(type)!)

/**
 * The representation an error goes out in: the negotiated one when it is not JSON; else, from
 * `Accept`, the best of XML, HAL, JSON:API and Siren when JSON is not acceptable; else
 * undefined (JSON, the errors plugin's default).
 */
export function errorMediaType(
  request: { headers: Record<string, unknown> },
  versionedJson: boolean,
): SupportedMediaType | undefined {
  const negotiated = mediaTypeOf(request) as SupportedMediaType | undefined
  if (negotiated !== undefined) return negotiated === MEDIA_TYPES.json ? undefined : negotiated
  const header = request.headers['accept']
  if (typeof header !== 'string') return undefined
  // Errors of no route (404, 405) never pass negotiation, so Accept is read here: clients send
  // a handful of distinct values, remembered within the same bound as a route's.
  // Which versioned JSON ranges are JSON depends on the versions the request may be answered
  // in (`API_VERSIONS`, set by `@restwell/versioning`): verdicts are remembered per such set.
  const versions = versionedJson ? apiVersionsOf(request) : undefined
  let memo = versionedJson ? judgedVersioned : judgedPlain
  if (versions !== undefined) {
    memo = judgedPerVersions.get(versions) ?? new Map()
    judgedPerVersions.set(versions, memo)
  }
  return (
    remembered(memo, header, (value) => fromAccept(value, versionedJson, versions) ?? null) ??
    undefined
  )
}

/** `Accept` values already judged for an error body (`null`: JSON, the default). */
const judgedPlain = new Map<string, SupportedMediaType | null>()
const judgedVersioned = new Map<string, SupportedMediaType | null>()
const judgedPerVersions = new WeakMap<ReadonlySet<number>, Map<string, SupportedMediaType | null>>()

function fromAccept(
  header: string,
  versionedJson: boolean,
  versions: ReadonlySet<number> | undefined,
): SupportedMediaType | undefined {
  const ranges = parseAccept(header, { versionedJson, versions })
  if (ranges === undefined || ranges.length === 0) return undefined
  if (JSON_OFFERS.some((offer) => qualityOf(ranges, offer) > 0)) return undefined
  return negotiateMediaType(ranges, OTHER_OFFERS)?.mediaType as SupportedMediaType | undefined
}

/** The error's own fields, without the structured form's `{ error: ... }` wrapper. */
function fieldsOf(body: ErrorBody): Record<string, unknown> {
  const inner = (body as { error?: unknown }).error
  return typeof inner === 'object' && inner !== null
    ? (inner as Record<string, unknown>)
    : (body as unknown as Record<string, unknown>)
}

/** The first reference token of a JSON Pointer (`/filter/0` → `filter`), unescaped (RFC 6901 §4). */
function firstToken(pointer: string): string {
  const end = pointer.indexOf('/', 1)
  const token = end === -1 ? pointer.slice(1) : pointer.slice(1, end)
  return token.replace(/~1/g, '/').replace(/~0/g, '~')
}

/**
 * Where a `details[].field` (`<part>/<JSON pointer>`) points, as a JSON:API 1.1 error `source`:
 * `body/title` → `pointer: "/title"`, a JSON Pointer into the request document as sent (a
 * plain JSON body: restwell reads no JSON:API request documents, so there is no `/data`);
 * `body` → `pointer: ""` (the whole document); `querystring/limit` → `parameter: "limit"`;
 * `headers/if-match` → `header: "if-match"`. Undefined for what `source` cannot name (path
 * parameters `params/id`, the `path/version` prefix, a part without a name).
 */
function sourceOf(field: string): Record<string, string> | undefined {
  const slash = field.indexOf('/')
  const part = slash === -1 ? field : field.slice(0, slash)
  const pointer = slash === -1 ? '' : field.slice(slash)
  if (part === 'body') return { pointer }
  if (pointer === '') return undefined
  if (part === 'querystring') return { parameter: firstToken(pointer) }
  if (part === 'headers') return { header: firstToken(pointer) }
  return undefined
}

/**
 * JSON:API error document (§7): one error object per detail, or one for the whole error. A
 * detail `source` cannot name keeps its `field` in the error's `meta`.
 */
export function jsonApiErrors(body: ErrorBody, error: NormalizedError): Record<string, unknown> {
  const fields = fieldsOf(body)
  const meta: Record<string, unknown> = {}
  for (const key of ['requestId', 'timestamp']) {
    if (fields[key] !== undefined) meta[key] = fields[key]
  }
  const base = {
    status: String(error.statusCode),
    code: error.code,
    title: reasonPhrase(error.statusCode),
  }
  const errors =
    error.details.length === 0
      ? [{ ...base, detail: error.message, meta }]
      : error.details.map((d) => {
          const source = sourceOf(d.field)
          const item = { ...base, code: d.code ?? error.code, detail: d.message }
          return source === undefined
            ? { ...item, meta: { field: d.field, ...meta } }
            : { ...item, source, meta }
        })
  return { errors }
}

/** Builds the renderer `@restwell/errors` consults before its JSON body. */
export function createErrorRenderer(format: ErrorFormat, versionedJson: boolean): ErrorRenderer {
  return (body, error, request, reply) => {
    const type = errorMediaType(request, versionedJson)
    appendVary(reply, 'Accept')
    switch (type) {
      case undefined:
      case MEDIA_TYPES.json:
        return false
      case MEDIA_TYPES.xml:
        if (format === 'problem') {
          reply
            .type(PROBLEM_XML_CONTENT_TYPE)
            .send(toXml(body, 'problem', { xmlns: PROBLEM_XML_NAMESPACE }))
        } else {
          reply.type(CONTENT_TYPES[type]).send(toXml(fieldsOf(body), 'error'))
        }
        return true
      case MEDIA_TYPES.jsonApi:
        // A serializer of its own keeps Fastify from adding `charset`, which JSON:API forbids.
        reply
          .serializer(String)
          .type(CONTENT_TYPES[type])
          .send(JSON.stringify(jsonApiErrors(body, error)))
        return true
      case MEDIA_TYPES.siren:
        reply
          .type(CONTENT_TYPES[type])
          .send(JSON.stringify({ class: ['error'], properties: fieldsOf(body) }))
        return true
      default:
        reply.type(CONTENT_TYPES[type]).send(JSON.stringify(body))
        return true
    }
  }
}
