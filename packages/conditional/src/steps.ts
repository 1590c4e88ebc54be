/** The steps of `@restwell/conditional`: validators, preconditions (304/412/428) and byte ranges (206/416). */
import type { Readable } from 'node:stream'
import type { ReadableStream } from 'node:stream/web'
import {
  type RequestStep,
  type RouteContext,
  type RouteEntry,
  type RouteSteps,
  routeName,
  type SendStep,
  type SetupContext,
} from '@restwell/core'
import {
  bodilessHead,
  compressesAnswers,
  notModifiedHeaders,
  queryContentKey,
  READ_METHODS,
  VALIDATED_METHODS,
} from '@restwell/core/internal'
import { ErrorCode, type HttpError, httpErrors, OptionsError } from '@restwell/errors'
import { appendVary, representationOf } from '@restwell/core'
import {
  declareState,
  FULL_REPRESENTATION,
  IDENTITY_DIGEST,
  identityDigest,
  ITEMS_DIGEST_PREFIX,
  markNotModified,
} from '@restwell/core/internal'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type {
  ConditionalRouteConfig,
  EtagOptions,
  GetValidator,
  ResourceValidators,
} from './augment.js'
import {
  type EntityTag,
  formatEntityTag,
  parseEntityTag,
  toEntityTag,
  type Version,
  withCoding,
  withRepresentation,
} from './etag.js'
import { type DateValue, formatHttpDate, parseHttpDate, toSeconds } from './http-date.js'
import type { ResolvedConditionalOptions } from './options.js'
import {
  type CurrentValidators,
  checksStoredState,
  creatingMethods,
  evaluateIfRange,
  evaluateParsed,
  isConditional,
  isSafeReadMethod,
  type PreconditionOutcome,
  readPreconditions,
} from './preconditions.js'
import { contentRange, multipartByteranges, parseRange, resolveRanges } from './range.js'

/** The plugin's name, as its messages begin. */
export const NAME = '@restwell/conditional'

const tagOf = (value: unknown): string => Object.prototype.toString.call(value)

/** Methods whose preconditions are checked against the stored state before the handler runs. */
const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** Per-reply state, kept on the reply under a symbol. */
interface ReplyState {
  etag: EntityTag | undefined
  lastModified: number | undefined
  /** Preconditions were evaluated (before serialization or in the preHandler). */
  evaluated: boolean
  /** Set when the answer is 304: the tag it carries (or null for none). */
  notModified: EntityTag | null | undefined
}

const STATE: unique symbol = Symbol('restwell.conditional.state')
type WithState = { [STATE]: ReplyState | null }

function stateOf(reply: FastifyReply): ReplyState {
  const holder = reply as unknown as WithState
  let state = holder[STATE]
  if (state === null) {
    state = { etag: undefined, lastModified: undefined, evaluated: false, notModified: undefined }
    holder[STATE] = state
  }
  return state
}

function peekState(reply: FastifyReply): ReplyState | null {
  return (reply as unknown as WithState)[STATE]
}

/** One route's settings, resolved once in onRoute. */
interface RouteSettings {
  etag: boolean
  weak: boolean
  ranges: boolean
  maxRanges: number
  requirePrecondition: boolean
  vary: boolean
  etagField: string | undefined
  idField: string
  /** Route path, mixed into a collection's derived ETag (two routes, two representations). */
  path: string
  lastModifiedField: string | undefined
  getValidator: GetValidator | undefined
  /** Write methods that may create a missing target (`creatingMethods`); for the others it is 404. */
  creating: ReadonlySet<string>
}

/** A version or an id used as it is: what `etagField`, `idField` and `lastModifiedField` may hold. */
const isKey = (value: unknown): value is string | number =>
  typeof value === 'string' || typeof value === 'number'

/**
 * The validator of a collection from what makes its bytes, without serializing them (see the
 * README's Decisions). `undefined` (the bytes are hashed instead) unless the payload is an array,
 * or an object with one array-valued field, whose items all carry both id and version.
 */
function collectionDigest(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: object,
  settings: RouteSettings,
): string | undefined {
  let items: unknown[] | undefined
  let rest: Record<string, unknown> | undefined
  if (Array.isArray(payload)) {
    items = payload
  } else {
    rest = {}
    for (const [key, value] of Object.entries(payload)) {
      if (!Array.isArray(value)) rest[key] = value
      else if (items === undefined) items = value
      else return undefined
    }
    if (items === undefined) return undefined
  }
  const versionField = settings.etagField as string
  const keys: Array<string | number> = []
  for (const item of items) {
    if (item === null || typeof item !== 'object') return undefined
    const id = (item as Record<string, unknown>)[settings.idField]
    const version = (item as Record<string, unknown>)[versionField]
    if (!isKey(id) || !isKey(version)) return undefined
    keys.push(id, version)
  }
  const headers = request.headers
  let text: string
  try {
    text = JSON.stringify([
      settings.path,
      request.url,
      // What content negotiation reads: the language and charset are chosen from these and
      // set on the answer only after this hook, so the requests' own values are mixed in.
      headers.accept ?? null,
      headers['accept-language'] ?? null,
      headers['accept-charset'] ?? null,
      queryContentKey(request) ?? null,
      reply.getHeader('content-type') ?? null,
      reply.getHeader('content-language') ?? null,
      rest ?? null,
      keys,
    ])
  } catch {
    // Beside the items, something JSON.stringify refuses (a BigInt a schema serializer may
    // write): the bytes are hashed instead.
    return undefined
  }
  return identityDigest(text)
}

function contentCoding(reply: FastifyReply): string | undefined {
  const value = reply.getHeader('content-encoding')
  if (typeof value !== 'string') return undefined
  const coding = value.trim().toLowerCase()
  return coding === '' || coding === 'identity' ? undefined : coding
}

function preconditionFailed(
  field: string,
  message = 'does not match the current state of the resource',
): HttpError {
  return httpErrors.preconditionFailed(`The ${field} precondition failed`, {
    code: ErrorCode.PRECONDITION_FAILED,
    details: [{ field: `headers/${field}`, message, code: ErrorCode.PRECONDITION_FAILED }],
  })
}

/**
 * A write on a route without `getValidator`: the state of its target is unknown, so an
 * `If-Match` (no current representation is known to match it, RFC 9110 §13.1.1) or an
 * `If-None-Match` (its absence cannot be confirmed, §13.1.2) is 412, never ignored.
 */
const uncheckablePreconditions: RequestStep = (request) => {
  if (!UNSAFE_METHODS.has(request.method)) return undefined
  const { ifMatch, ifNoneMatch } = readPreconditions(request.method, request.headers)
  const field =
    ifMatch !== undefined ? 'if-match' : ifNoneMatch !== undefined ? 'if-none-match' : undefined
  if (field === undefined) return undefined
  return preconditionFailed(field, 'cannot be checked: the state of the target is not known here')
}

function preconditionRequired(): HttpError {
  return httpErrors.preconditionRequired('This request must be conditional', {
    code: ErrorCode.PRECONDITION_REQUIRED,
    details: [
      {
        field: 'headers/if-match',
        message: 'send If-Match with the ETag of the current representation',
        code: ErrorCode.PRECONDITION_REQUIRED,
      },
    ],
  })
}

/** Removes the validators from a reply that turns into an error. */
function dropValidators(reply: FastifyReply): void {
  reply.removeHeader('etag')
  reply.removeHeader('last-modified')
  reply.removeHeader('accept-ranges')
}

/**
 * Turns the reply into a 304 with the tag the client holds; the body is gone. What else a 304
 * keeps is decided once, at the end of the send phase (`notModifiedHeaders`).
 */
function notModified(reply: FastifyReply, tag: EntityTag | null, settings: RouteSettings): null {
  reply.code(304)
  if (tag !== null) {
    const etag = formatEntityTag(tag)
    // Most often the one the answer has already: not set again.
    if (reply.getHeader('etag') !== etag) reply.header('etag', etag)
  }
  if (settings.vary) appendVary(reply, 'Accept-Encoding')
  return null
}

function setEtag(reply: FastifyReply, tag: EntityTag): void {
  stateOf(reply).etag = tag
  reply.header('etag', formatEntityTag(tag))
}

function setLastModified(reply: FastifyReply, ms: number): void {
  const now = Math.floor(Date.now() / 1000) * 1000
  const clamped = Math.min(ms, now)
  stateOf(reply).lastModified = clamped
  reply.header('last-modified', formatHttpDate(clamped))
}

/**
 * What tells the answer to `request` from the route's default one: the negotiated
 * representation (`REPRESENTATION`) and a QUERY's content (`queryContentKey`), `;`-joined.
 */
function variantOf(request: FastifyRequest): string | undefined {
  const representation = representationOf(request)
  const query = queryContentKey(request)
  if (query === undefined) return representation
  return representation === undefined ? query : `${representation};${query}`
}

/**
 * The ETag of the representation a request gets of a version: the version's tag, with what
 * tells the answer from the route's default one (`variantOf`).
 */
function representationTag(request: FastifyRequest, version: Version, weak: boolean): EntityTag {
  return withRepresentation(toEntityTag(version, weak), variantOf(request))
}

/** The validators of a read's representation from the stored state (`getValidator`). */
function applyValidators(
  request: FastifyRequest,
  reply: FastifyReply,
  validators: ResourceValidators,
): void {
  if (validators.etag !== undefined) {
    setEtag(reply, representationTag(request, validators.etag, validators.weak ?? false))
  }
  if (validators.lastModified !== undefined) {
    const ms = toSeconds(validators.lastModified)
    if (ms !== undefined) setLastModified(reply, ms)
  }
}

/**
 * Evaluates the request's preconditions against the validators known so far and marks them
 * evaluated; undefined (nothing evaluated) when the request carries none that applies.
 */
function evaluate(request: FastifyRequest, state: ReplyState): PreconditionOutcome | undefined {
  const preconditions = readPreconditions(request.method, request.headers)
  if (!isConditional(preconditions)) return undefined
  state.evaluated = true
  return evaluateParsed(request.method, preconditions, {
    etag: state.etag,
    lastModified: state.lastModified,
    exists: true,
  })
}

/**
 * Releases a body that a 304 or 412 replaces, as Fastify's own HEAD hook does: a Node stream
 * is destroyed, a web stream (a Response's too) cancelled, so a file or a socket it holds is
 * closed now rather than never. An error it raises while torn down is logged, not thrown.
 */
function discard(reply: FastifyReply, payload: unknown): void {
  const body = tagOf(payload) === '[object Response]' ? (payload as Response).body : payload
  if (body === null || typeof body !== 'object') return
  const ignore = (error: unknown): void => {
    reply.log.warn({ err: error }, `${NAME}: error from a discarded response stream`)
  }
  if (typeof (body as Readable).pipe === 'function') {
    ;(body as Readable).on('error', ignore).destroy()
  } else if (typeof (body as ReadableStream).getReader === 'function') {
    ;(body as ReadableStream).cancel().catch(ignore)
  }
}

/** A read's stored validators applied: its early 304 or 412, or undefined to run the handler. */
function readOutcome(
  settings: RouteSettings,
  request: FastifyRequest,
  reply: FastifyReply,
  validators: ResourceValidators | null | undefined,
): true | HttpError | undefined {
  if (validators === null || validators === undefined) return undefined
  applyValidators(request, reply, validators)
  // Without a stored ETag the one hashed from the body decides If-Match and If-None-Match
  // and goes on a 304 (RFC 9110 §15.4.5): the handler must run first.
  if (validators.etag === undefined && settings.etag) return undefined
  const outcome = evaluate(request, stateOf(reply))
  if (outcome === undefined) return undefined
  if (outcome.result === 'failed') {
    dropValidators(reply)
    return preconditionFailed(outcome.field)
  }
  if (outcome.result === 'not-modified') {
    stateOf(reply).notModified = outcome.etag ?? null
    markNotModified(reply)
    reply.send()
    return true
  }
  return undefined
}

/**
 * Reads the stored validators before the handler: early 304 for reads, 412/428 for writes. A
 * read's preconditions are read once, when its validators are known (`evaluate`).
 */
function storedStateCheck(
  settings: RouteSettings,
): (request: FastifyRequest, reply: FastifyReply) => Promise<true | HttpError | undefined> {
  const getValidator = settings.getValidator as GetValidator
  return async function checkStoredState(request, reply) {
    if (isSafeReadMethod(request.method)) {
      return readOutcome(settings, request, reply, await getValidator(request))
    }
    if (!UNSAFE_METHODS.has(request.method)) return undefined
    const preconditions = readPreconditions(request.method, request.headers)
    // A write that may create its target needs no lookup without a precondition (the handler
    // decides), or needs one whether it exists or not; for the others, a missing target is
    // 404, with or without a precondition: look it up first.
    if (!isConditional(preconditions) && settings.creating.has(request.method)) {
      return settings.requirePrecondition ? preconditionRequired() : undefined
    }
    const validators = await getValidator(request)
    const absent = validators === null || validators === undefined
    // A write that cannot create its missing target would be the handler's 404 without its
    // preconditions, so they are ignored (RFC 9110 §13.2.1) and the 404 is answered here,
    // before the handler runs: nothing is written, even if the target appears meanwhile.
    if (absent && !settings.creating.has(request.method)) {
      return httpErrors.notFound('The target resource does not exist')
    }
    const current: CurrentValidators = absent
      ? { exists: false }
      : {
          exists: true,
          etag:
            validators.etag === undefined
              ? undefined
              : toEntityTag(validators.etag, validators.weak ?? false),
          lastModified:
            validators.lastModified === undefined ? undefined : toSeconds(validators.lastModified),
        }
    // A precondition the evaluation then ignores (If-Unmodified-Since with no date known)
    // checks nothing: the write is as unconditional as one without it.
    if (settings.requirePrecondition && !checksStoredState(preconditions, current)) {
      return preconditionRequired()
    }
    const outcome = evaluateParsed(request.method, preconditions, current)
    if (outcome.result === 'failed') return preconditionFailed(outcome.field)
    return undefined
  }
}

/** Checks handler-given validators before the body is serialized, so a 304 costs no serialization. */
function serializationCheck(settings: RouteSettings): SendStep {
  return function beforeSerialization(request, reply, payload) {
    if (reply.statusCode !== 200 || !isSafeReadMethod(request.method)) return undefined
    const known = peekState(reply)
    if (known?.evaluated === true) return undefined
    if (payload !== null && typeof payload === 'object') {
      const record = payload as Record<string, unknown>
      if (settings.etagField !== undefined && known?.etag === undefined) {
        const value = record[settings.etagField]
        if (isKey(value)) {
          setEtag(reply, representationTag(request, value, false))
        } else {
          const derived = collectionDigest(request, reply, payload, settings)
          if (derived !== undefined) {
            // It names the bytes as well as a hash of them would (the version contract), so
            // the compressed-body cache keys on it too: a 200 hashes nothing either.
            ;(reply as { [IDENTITY_DIGEST]?: string })[IDENTITY_DIGEST] =
              `${ITEMS_DIGEST_PREFIX}${derived}`
            setEtag(reply, { weak: settings.weak, opaque: `"${derived}"` })
          }
        }
      }
      if (settings.lastModifiedField !== undefined && known?.lastModified === undefined) {
        const value = record[settings.lastModifiedField]
        const ms = value instanceof Date || isKey(value) ? toSeconds(value) : undefined
        if (ms !== undefined) setLastModified(reply, ms)
      }
    }
    const state = peekState(reply)
    // a state that exists here holds a handler-given validator (it is made by setting one)
    if (state === null) return undefined
    // An ETag still to come (hashed from the bytes, or set by hand as a header) decides
    // If-Match and If-None-Match and goes on a 304 (RFC 9110 §15.4.5): decide in onSend then.
    if (state.etag === undefined && (settings.etag || reply.hasHeader('etag'))) return undefined
    const outcome = evaluate(request, state)
    if (outcome === undefined) return undefined
    if (outcome.result === 'failed') {
      dropValidators(reply)
      return preconditionFailed(outcome.field)
    }
    if (outcome.result === 'not-modified') {
      state.notModified = outcome.etag ?? null
      markNotModified(reply)
      // Nothing to serialize for the 304. Fastify passes even a string body through a
      // reply's serializer, so an error a later hook raises instead keeps its body.
      reply.serializer((value: unknown) =>
        reply.statusCode === 200 ? '' : typeof value === 'string' ? value : JSON.stringify(value),
      )
    }
    return undefined
  }
}

/** ETag from the bytes (when none is known), 304/412, Accept-Ranges, 206/416. */
function validation(settings: RouteSettings): SendStep {
  const vary = settings.vary
  return function validate(request, reply, payload) {
    const known = peekState(reply)
    const status = reply.statusCode
    if (known !== null && known.notModified !== undefined) {
      if (status === 200) {
        discard(reply, payload)
        return notModified(reply, known.notModified, settings)
      }
      // A step after the precondition check turned the answer into another (a 410 from soft
      // delete, a 500): the preconditions no longer apply (RFC 9110 §13.2.1).
      known.notModified = undefined
    }
    if (status !== 200 || !isSafeReadMethod(request.method)) {
      // Validators set for a 200 that became an error describe no representation of it.
      if (known !== null && status >= 400) dropValidators(reply)
      // A 304 or 206 the handler made itself (a static file server's) varies as its 200 does
      // (RFC 9110 §15.4.5).
      if (vary && (status === 304 || status === 206) && isSafeReadMethod(request.method)) {
        appendVary(reply, 'Accept-Encoding')
      }
      return undefined
    }
    const encoded = contentCoding(reply) !== undefined
    const bytes = typeof payload === 'string' || Buffer.isBuffer(payload)
    const state = known ?? stateOf(reply)
    if (state.etag === undefined) {
      const header = reply.getHeader('etag')
      if (typeof header === 'string') {
        state.etag = parseEntityTag(header)
      } else if (settings.etag && bytes && !encoded) {
        const digested = identityDigest(payload as string | Buffer)
        ;(reply as { [IDENTITY_DIGEST]?: string })[IDENTITY_DIGEST] = digested
        // A QUERY's tag names its content too: two queries never share one (RFC 10008 §2).
        const tag = { weak: settings.weak, opaque: `"${digested}"` }
        setEtag(reply, withRepresentation(tag, queryContentKey(request)))
      }
    }
    if (state.lastModified === undefined) {
      const header = reply.getHeader('last-modified')
      if (typeof header === 'string') state.lastModified = parseHttpDate(header)
    }
    const outcome = state.evaluated ? undefined : evaluate(request, state)
    if (outcome !== undefined && outcome.result !== 'proceed') {
      // The body is not sent: a stream is released here, or its file stays open.
      discard(reply, payload)
      if (outcome.result === 'failed') {
        dropValidators(reply)
        return preconditionFailed(outcome.field)
      }
      return notModified(reply, outcome.etag ?? null, settings)
    }
    if (vary) appendVary(reply, 'Accept-Encoding')
    // Range is defined for GET only (RFC 9110 §14.2): a QUERY answer is sent whole.
    if (!settings.ranges || !bytes || encoded || !READ_METHODS.has(request.method)) return undefined
    if (request.method === 'GET' && request.headers.range !== undefined) {
      const ranged = applyRange(
        request,
        reply,
        payload as string | Buffer,
        state,
        settings.maxRanges,
      )
      if (ranged !== undefined) return ranged
    }
    reply.header('accept-ranges', 'bytes')
    return undefined
  }
}

/**
 * A body the handler encoded: its ETag gets `-<coding>` (RFC 9110 §8.8.3: each content coding is
 * a representation of its own), and no `Accept-Ranges` (ranges are of identity bytes). A body
 * compressed later is tagged by what compresses it (`@restwell/compress`).
 */
const codingTag: SendStep = (_request, reply) => {
  const status = reply.statusCode
  if (status !== 200 && status !== 206) return undefined
  const coding = contentCoding(reply)
  if (coding === undefined) return undefined
  reply.removeHeader('accept-ranges')
  const etag = reply.getHeader('etag')
  if (typeof etag === 'string' && etag.endsWith('"')) {
    reply.header('etag', withCoding(etag, coding.replace(/[^a-z0-9-]+/g, '.')))
  }
  return undefined
}

/** 206 (one part or multipart/byteranges) or the 416 to answer; undefined for the whole body. */
function applyRange(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: string | Buffer,
  state: ReplyState,
  maxRanges: number,
): Buffer | HttpError | undefined {
  const specs = parseRange(request.headers.range, maxRanges)
  if (specs === undefined) return undefined
  if (!evaluateIfRange(request.headers['if-range'], state)) return undefined
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload
  const total = bytes.length
  if (total === 0) return undefined
  const ranges = resolveRanges(specs, total)
  const [first] = ranges
  if (first === undefined) {
    dropValidators(reply)
    return httpErrors.rangeNotSatisfiable(`No requested range lies within the ${total} bytes`, {
      code: ErrorCode.RANGE_NOT_SATISFIABLE,
      headers: { 'content-range': `bytes */${total}` },
    })
  }
  reply.code(206)
  // What the part was cut from, for a later step that describes the whole (`Repr-Digest`).
  ;(reply as { [FULL_REPRESENTATION]?: Buffer })[FULL_REPRESENTATION] = bytes
  reply.removeHeader('content-length')
  reply.header('accept-ranges', 'bytes')
  if (ranges.length === 1) {
    reply.header('content-range', contentRange(first, total))
    return bytes.subarray(first.start, first.end + 1)
  }
  const partType = reply.getHeader('content-type')
  const multipart = multipartByteranges(
    bytes,
    ranges,
    typeof partType === 'string' ? partType : undefined,
  )
  reply.header('content-type', multipart.contentType)
  return multipart.body
}

function resolveRoute(
  instance: FastifyInstance,
  options: ResolvedConditionalOptions,
  route: RouteOptions,
  config: ConditionalRouteConfig,
): RouteSettings {
  const compress = (route as { compress?: unknown }).compress
  return {
    etag: config.etag ?? options.etag,
    weak: config.weak ?? options.weak,
    ranges: config.ranges ?? options.ranges,
    maxRanges: options.maxRanges,
    requirePrecondition: config.requirePrecondition ?? options.requirePrecondition,
    vary:
      config.varyAcceptEncoding ??
      options.varyAcceptEncoding ??
      (compressesAnswers(instance) && compress !== false),
    etagField: config.etagField,
    idField: config.idField ?? 'id',
    path: route.url,
    lastModifiedField: config.lastModifiedField,
    getValidator: config.getValidator,
    creating: creatingMethods(config.creates),
  }
}

/** What the steps read: the app's options, and the routes to check beside `@fastify/compress`. */
export interface ConditionalSettings {
  readonly options: ResolvedConditionalOptions
  /** Whether it runs under a pipeline, whose end applies the 304 and HEAD rules. */
  readonly pipeline: boolean
  /** Routes hashing strong ETags that `@fastify/compress` may compress (checked at ready). */
  readonly strongTags: RouteEntry[]
}

/**
 * Declares the reply state and `reply.etag` / `reply.lastModified`; alone, refuses to come after
 * `@fastify/compress`, and at ready refuses strong hashed ETags it would compress.
 */
export function setupConditional(
  fastify: FastifyInstance,
  options: ResolvedConditionalOptions,
  context: SetupContext,
): ConditionalSettings {
  if (fastify.hasReplyDecorator('compress') && !context.pipeline) {
    throw new Error(
      `${NAME} must be registered before @fastify/compress, so that ETags are computed on the identity bytes and a 304 or 206 is decided before compression`,
    )
  }
  fastify.decorateReply(STATE as unknown as string, null)
  declareState(fastify, 'reply', IDENTITY_DIGEST)
  fastify.decorateReply(
    'etag',
    function etag(this: FastifyReply, value: Version, opts?: EtagOptions) {
      setEtag(this, representationTag(this.request, value, opts?.weak ?? false))
      return this
    },
  )
  fastify.decorateReply('lastModified', function lastModified(this: FastifyReply, date: DateValue) {
    const ms = toSeconds(date)
    if (ms === undefined) throw new TypeError(`${NAME}: reply.lastModified() needs a valid date`)
    setLastModified(this, ms)
    return this
  })
  const settings: ConditionalSettings = { options, pipeline: context.pipeline, strongTags: [] }
  fastify.addHook('onReady', async function conditionalBesideCompress() {
    refuseStrongTagsCompressed(fastify, settings)
  })
  return settings
}

/**
 * Beside `@fastify/compress`, whose hook runs after this plugin's (and after the umbrella's
 * pipeline), gzip and identity bytes would share one strong ETag (RFC 9110 §8.8.3 forbids it):
 * weak tags may, `@restwell/compress` tags each coding.
 */
function refuseStrongTagsCompressed(fastify: FastifyInstance, settings: ConditionalSettings): void {
  const { strongTags } = settings
  if (strongTags.length === 0 || !fastify.hasReplyDecorator('compress')) return
  const named = strongTags.map(routeName)
  const instead = settings.pipeline
    ? "Remove @fastify/compress and turn restwell's `compress` option on, which tags each coding"
    : 'Register the restwell umbrella, whose compression tags each coding'
  throw new Error(
    `${NAME}: ${named.slice(0, 5).join(', ')}${named.length > 5 ? ` and ${named.length - 5} more` : ''} hash strong ETags, and @fastify/compress compresses after this plugin, so gzip and identity bytes would share one strong ETag (RFC 9110 §8.8.3). ${instead}, or set \`weak: true\` (this plugin's option, or config.conditional.weak of those routes), or \`compress: false\` on those routes.`,
  )
}

/** Runs `steps` as one send step: each gets the payload the one before returned; an error ends it. */
function chain(steps: readonly SendStep[]): SendStep {
  return (request, reply, payload) => {
    let out = payload
    for (const step of steps) {
      const next = step(request, reply, out)
      if (next instanceof Error) return next
      if (next !== undefined) out = next
    }
    return out
  }
}

/**
 * A route's steps, decided once: the stored state checked before the handler (reads and writes),
 * handler-given validators checked before serialization, the ETag of the bytes, 304/412 and
 * ranges on send. Alone, the send step ends with the 304 and HEAD rules, as the pipeline does.
 */
export function conditionalRoute(
  { route, instance, methods, config = {} }: RouteContext<ConditionalRouteConfig>,
  settings: ConditionalSettings,
): RouteSteps<'beforeHandler' | 'serialize' | 'send'> | undefined {
  const read = methods.some((m) => VALIDATED_METHODS.has(m))
  const write = methods.some((m) => UNSAFE_METHODS.has(m))
  if (!read && !write) return undefined
  const where = `${NAME} (route ${methods.join(',')} ${route.url})`
  if (config.requirePrecondition === true && config.getValidator === undefined && write) {
    throw new OptionsError(
      where,
      'config.conditional.requirePrecondition',
      'is set without getValidator: the preconditions it requires could not be checked against the stored state. Give config.conditional.getValidator (the stored version or date, read before the handler), or drop requirePrecondition',
    )
  }
  if (!read && write && config.getValidator === undefined) {
    refuseInertFields(where, methods, config)
  }
  const own = resolveRoute(instance, settings.options, route, config)
  const beforeHandler =
    own.getValidator !== undefined
      ? storedStateCheck(own)
      : write
        ? uncheckablePreconditions
        : undefined
  const checks = beforeHandler === undefined ? {} : { beforeHandler }
  if (!read) return checks
  if (own.etag && !own.weak && route.compress !== false) settings.strongTags.push(route)
  const validate = chain([validation(own), codingTag])
  return {
    ...checks,
    serialize: serializationCheck(own),
    send: settings.pipeline ? validate : chain([validate, notModifiedHeaders, bodilessHead]),
  }
}

/**
 * A write route (PUT, PATCH, DELETE) of no read method whose config gives a version or date
 * field but no `getValidator`: the fields serve GET answers only, so the route would ignore
 * `If-Match` and a client's stale write would overwrite newer data (RFC 9110 §13.1.1). Usually
 * one config object shared with the GET route.
 */
function refuseInertFields(
  where: string,
  methods: readonly string[],
  config: ConditionalRouteConfig,
): void {
  const field = config.etagField !== undefined ? 'etagField' : 'lastModifiedField'
  if (config[field] === undefined) return
  if (!methods.some((method) => UPDATE_METHODS.has(method))) return
  throw new OptionsError(
    where,
    `config.conditional.${field}`,
    `has no effect on a write: without getValidator the route checks no If-Match or If-Unmodified-Since, so a stale write would overwrite newer data. Give config.conditional.getValidator (the stored ${field === 'etagField' ? 'version' : 'date'}, read before the handler), or leave ${field} to the GET route's config`,
  )
}

/** Writes that replace or remove what a client read: the ones a stale precondition must stop. */
const UPDATE_METHODS: ReadonlySet<string> = new Set(['PUT', 'PATCH', 'DELETE'])
