/** Error bodies of `@restwell/errors` in the other representations (XML, HAL, JSON:API, Siren). */
import type { ErrorBody, ErrorFormat, ErrorRenderer, NormalizedError } from '@restwell/errors'
import { reasonPhrase } from '@restwell/errors'
import { apiVersionsOf, appendVary, mediaTypeOf } from '@restwell/core'
import {
  bestMatch,
  type MediaOffer,
  type MediaRange,
  parseAccept,
  remembered,
  toOffer,
} from './accept.js'
import { DEFAULT_FORMATS, MEDIA_TYPES, type SupportedMediaType } from './options.js'
import { CONTENT_TYPES } from './serialize.js'
import { toXml } from './xml.js'

/** RFC 9457 Appendix B (RFC 7807 Appendix A): the XML problem namespace and type. */
export const PROBLEM_XML_NAMESPACE = 'urn:ietf:rfc:7807'
/** RFC 9457 §6.2 defines no parameter for problem+xml; the XML declaration names UTF-8. */
export const PROBLEM_XML_CONTENT_TYPE = 'application/problem+xml'

/** How an error's representation is chosen besides `Accept`. */
export interface ErrorMediaOptions {
  /** The errors plugin's form: `problem` sends JSON and XML as problem+json / problem+xml. */
  format?: ErrorFormat
  /** The query parameter naming a format (it wins over `Accept`), or false. [`format`] */
  formatParam?: string | false
  /** Its names → media types. [json, xml, hal, jsonapi, siren] */
  formats?: Readonly<Record<string, SupportedMediaType>>
}

/**
 * One form an error body can take: the representation, the media type it is sent as (`own`)
 * and the one that counts for it when `Accept` does not name `own` (`sibling`): JSON and
 * problem+json stand for each other, and so do XML and problem+xml.
 */
interface ErrorForm {
  type: SupportedMediaType
  own: MediaOffer
  sibling: MediaOffer | undefined
}

function formsOf(problem: boolean): readonly ErrorForm[] {
  const json = toOffer(MEDIA_TYPES.json)!
  const xml = toOffer(MEDIA_TYPES.xml)!
  const problemJson = toOffer('application/problem+json')!
  const problemXml = toOffer('application/problem+xml')!
  return [
    {
      type: MEDIA_TYPES.json,
      own: problem ? problemJson : json,
      sibling: problem ? json : problemJson,
    },
    { type: MEDIA_TYPES.xml, own: problem ? problemXml : xml, sibling: problem ? xml : problemXml },
    ...[MEDIA_TYPES.hal, MEDIA_TYPES.jsonApi, MEDIA_TYPES.siren].map((type) => ({
      type,
      own: toOffer(type)!,
      sibling: undefined,
    })),
  ]
}

/** The forms in the server's order (JSON, the errors plugin's own, first). */
const PROBLEM_FORMS = formsOf(true)
const PLAIN_FORMS = formsOf(false)

/**
 * The weight `Accept` gives a form: that of the most specific range naming the type it is sent
 * as; else of one naming its sibling; else of `application/*` or `*\/*`. `named`: the client
 * named the very type (RFC 9110 §12.5.1: a more specific range overrides a less specific one).
 */
function weigh(ranges: readonly MediaRange[], form: ErrorForm): { q: number; named: boolean } {
  const own = bestMatch(ranges, form.own)
  if (own.specificity >= 2 || form.sibling === undefined) {
    return { q: own.q, named: own.specificity >= 2 }
  }
  const sibling = bestMatch(ranges, form.sibling)
  return { q: sibling.specificity >= 2 ? sibling.q : own.q, named: false }
}

/**
 * What an `Accept` value says of error bodies: the forms of the highest positive weight, those
 * whose very type it names first (`named` of them), each group in the server's order; none when
 * nothing is acceptable. `NO_PREFERENCE`: an empty (or malformed) `Accept`.
 */
interface Verdict {
  best: readonly SupportedMediaType[]
  named: number
}

const NO_PREFERENCE: Verdict = { best: [], named: 0 }

function judge(
  header: string,
  forms: readonly ErrorForm[],
  versionedJson: boolean,
  versions: ReadonlySet<number> | undefined,
): Verdict {
  const ranges = parseAccept(header, { versionedJson, versions })
  if (ranges === undefined || ranges.length === 0) return NO_PREFERENCE
  let top = 0
  let named: SupportedMediaType[] = []
  let others: SupportedMediaType[] = []
  for (const form of forms) {
    const weight = weigh(ranges, form)
    if (weight.q === 0 || weight.q < top) continue
    if (weight.q > top) {
      top = weight.q
      named = []
      others = []
    }
    ;(weight.named ? named : others).push(form.type)
  }
  return { best: [...named, ...others], named: named.length }
}

/** `Accept` values already judged for an error body, per form and per versioned JSON reading. */
interface Memos {
  plain: Map<string, Verdict>
  versioned: Map<string, Verdict>
  perVersions: WeakMap<ReadonlySet<number>, Map<string, Verdict>>
}
const newMemos = (): Memos => ({
  plain: new Map(),
  versioned: new Map(),
  perVersions: new WeakMap(),
})
const PROBLEM_MEMOS = newMemos()
const PLAIN_MEMOS = newMemos()

const FORM_TYPES: ReadonlySet<string> = new Set(PLAIN_FORMS.map((form) => form.type))

/** The negotiated type if an error can take its form (not a route's own, such as `text/csv`). */
function formOf(type: string | undefined): SupportedMediaType | undefined {
  return type !== undefined && FORM_TYPES.has(type) ? (type as SupportedMediaType) : undefined
}

/** The format a valid `?format=` names; undefined when absent, repeated or unknown. */
function formatOf(
  request: { query?: unknown },
  options: ErrorMediaOptions,
): SupportedMediaType | undefined {
  const param = options.formatParam ?? 'format'
  const query = request.query
  if (param === false || typeof query !== 'object' || query === null) return undefined
  const value = (query as Record<string, unknown>)[param]
  // A repeated or odd value was (or would be) its own 400: the error goes by Accept instead.
  if (typeof value !== 'string') return undefined
  const formats = options.formats ?? DEFAULT_FORMATS
  const name = value.toLowerCase()
  return Object.hasOwn(formats, name) ? formats[name] : undefined
}

/**
 * The representation an error goes out in; undefined: JSON. A valid `?format=` wins, else
 * `Accept` weighs every form an error can take (RFC 9110 §12.5.1); ties go to the type `Accept`
 * names exactly, then the route's negotiated type. A route's own types are never an error's.
 */
export function errorMediaType(
  request: { headers: Record<string, unknown>; query?: unknown },
  versionedJson: boolean,
  options: ErrorMediaOptions = {},
): SupportedMediaType | undefined {
  const chosen = formatOf(request, options) ?? fromAccept(request, versionedJson, options)
  return chosen === MEDIA_TYPES.json ? undefined : chosen
}

function fromAccept(
  request: { headers: Record<string, unknown> },
  versionedJson: boolean,
  options: ErrorMediaOptions,
): SupportedMediaType | undefined {
  const negotiated = formOf(mediaTypeOf(request))
  const header = request.headers['accept']
  if (typeof header !== 'string') return negotiated
  // Errors of no route (404, 405) never pass negotiation, so Accept is read here: clients send
  // a handful of distinct values, remembered within the same bound as a route's.
  // Which versioned JSON ranges are JSON depends on the versions the request may be answered
  // in (`API_VERSIONS`, set by `@restwell/versioning`): verdicts are remembered per such set.
  const problem = options.format === 'problem'
  const memos = problem ? PROBLEM_MEMOS : PLAIN_MEMOS
  const versions = versionedJson ? apiVersionsOf(request) : undefined
  let memo = versionedJson ? memos.versioned : memos.plain
  if (versions !== undefined) {
    memo = memos.perVersions.get(versions) ?? new Map()
    memos.perVersions.set(versions, memo)
  }
  const forms = problem ? PROBLEM_FORMS : PLAIN_FORMS
  const verdict = remembered(memo, header, (value) => judge(value, forms, versionedJson, versions))
  if (verdict === NO_PREFERENCE) return negotiated
  const { best, named } = verdict
  // Nothing acceptable (not even the negotiated type's error form): JSON, the default.
  if (best.length === 0) return undefined
  const at = negotiated === undefined ? -1 : best.indexOf(negotiated)
  return at !== -1 && (named === 0 || at < named) ? negotiated : best[0]
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
 * `body/title` → `pointer: "/title"` (no `/data`: bodies are plain JSON), `querystring/limit` →
 * `parameter`, `headers/if-match` → `header`. Undefined for what `source` cannot name.
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

/**
 * Builds the renderer `@restwell/errors` consults before its JSON body. `selection`: the
 * negotiation plugin's `formatParam` and `formats`, so `?format=` wins for errors too.
 */
export function createErrorRenderer(
  format: ErrorFormat,
  versionedJson: boolean,
  selection: Omit<ErrorMediaOptions, 'format'> = {},
): ErrorRenderer {
  const options: ErrorMediaOptions = { ...selection, format }
  return (body, error, request, reply) => {
    const type = errorMediaType(request, versionedJson, options)
    appendVary(reply, 'Accept')
    switch (type) {
      case undefined:
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
