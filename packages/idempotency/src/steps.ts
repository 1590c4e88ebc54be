/**
 * The steps of idempotency on one route: the key looked up once the body is read (a replay, a
 * 409, a 422, or the key claimed), and the answer captured or the key freed as it is sent.
 */
import { randomUUID } from 'node:crypto'
import { Transform } from 'node:stream'
import type { RequestStep, RouteEntry, SendStep, StepOutcome } from '@restwell/core'
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { fingerprintOf, storeKeyOf } from './fingerprint.js'
import { KEY_HEADER, readIdempotencyKey } from './key.js'
import type { ResolvedIdempotencyOptions } from './options.js'
import type { Completed, IdempotencyStore, Running, StoredAnswer, StoredRecord } from './store.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/idempotency'

/** The response header that marks a replayed answer, and its value (Stripe's). */
export const REPLAYED_HEADER = 'idempotent-replayed'

/** What the steps of every route read: the options, the store, the log. */
export interface IdempotencySettings {
  readonly options: ResolvedIdempotencyOptions
  readonly store: IdempotencyStore
  readonly scope: (request: FastifyRequest) => string
  readonly log: FastifyBaseLogger
}

/** One route's settings, decided when the route is added. */
export interface RouteSettings {
  readonly settings: IdempotencySettings
  /** The route as keys are scoped by (its URL pattern). */
  readonly route: string
  readonly required: boolean
  /** The methods of the route that take a key, or undefined when all of them do. */
  readonly methods: ReadonlySet<string> | undefined
}

/** What a request that took a key keeps on its reply. */
interface KeyState {
  readonly settings: IdempotencySettings
  readonly key: string
  readonly marker: Running
  /** The stored answer this reply replays; undefined for a first request. */
  readonly replay: StoredAnswer | undefined
  /** The handler was called: from then on, the request's outcome is its answer. */
  ran: boolean
  /** The answer was captured or the key freed: a second pass (an error's answer) changes nothing. */
  settled: boolean
}

/** The reply's idempotency state (a reply decoration, `undefined` until a key is taken). */
export const STATE: unique symbol = Symbol('restwell.idempotency')
type WithState = { [STATE]?: KeyState }

function linkOf(settings: IdempotencySettings): Record<string, string> {
  const page = settings.options.documentation
  return page === undefined ? {} : { link: `<${page}>; rel="describedby"` }
}

const FIELD = `headers/${KEY_HEADER}`

function malformedKey(settings: IdempotencySettings, problem: string): HttpError {
  return httpErrors.badRequest(`Idempotency-Key ${problem}`, {
    code: ErrorCode.INVALID_IDEMPOTENCY_KEY,
    details: [{ field: FIELD, message: problem, code: ErrorCode.INVALID_IDEMPOTENCY_KEY }],
    headers: linkOf(settings),
  })
}

function missingKey(settings: IdempotencySettings): HttpError {
  const message = 'This operation requires an Idempotency-Key header'
  return httpErrors.badRequest(message, {
    code: ErrorCode.IDEMPOTENCY_KEY_REQUIRED,
    details: [{ field: FIELD, message: 'is required', code: ErrorCode.IDEMPOTENCY_KEY_REQUIRED }],
    headers: linkOf(settings),
  })
}

function inUse(settings: IdempotencySettings): HttpError {
  return httpErrors.conflict(
    'A request with this Idempotency-Key is still being processed: retry it later',
    {
      code: ErrorCode.IDEMPOTENCY_KEY_IN_USE,
      headers: { 'retry-after': String(settings.options.retryAfter), ...linkOf(settings) },
    },
  )
}

function reused(settings: IdempotencySettings): HttpError {
  return httpErrors.unprocessableEntity(
    'This Idempotency-Key was used with another request: send a new key for a new request',
    { code: ErrorCode.IDEMPOTENCY_KEY_REUSED, headers: linkOf(settings) },
  )
}

function unavailable(settings: IdempotencySettings, cause: unknown): HttpError {
  return httpErrors.serviceUnavailable('The idempotency store is unavailable, retry later', {
    code: ErrorCode.SERVICE_UNAVAILABLE,
    headers: { 'retry-after': String(settings.options.unavailableRetryAfter) },
    cause,
  })
}

/**
 * A marker's token, unique across processes and instances: one random prefix per process and a
 * counter, rather than a `randomUUID` on every request that claims a key.
 */
const PROCESS_TOKEN = randomUUID()
let markers = 0

function nextToken(): string {
  markers += 1
  return `${PROCESS_TOKEN}.${markers.toString(36)}`
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
}

/** Answers a request from what its key holds, or keeps the claim on the reply. */
function answer(
  reply: FastifyReply,
  settings: IdempotencySettings,
  key: string,
  marker: Running,
  found: StoredRecord | undefined,
): StepOutcome {
  if (found === undefined) {
    ;(reply as WithState)[STATE] = {
      settings,
      key,
      marker,
      replay: undefined,
      ran: false,
      settled: false,
    }
    return undefined
  }
  // A different request under the key is refused, running or done (draft §2.7).
  if (found.fingerprint !== marker.fingerprint) return reused(settings)
  if (found.state === 'running') return inUse(settings)
  const replay = found.answer
  ;(reply as WithState)[STATE] = { settings, key, marker, replay, ran: false, settled: true }
  // Sent as stored by the send step (`replayed`), whatever the steps before it do.
  reply.code(replay.status).send(replay.body)
  return true
}

/**
 * Looks the request's key up once the body is read (the fingerprint covers it): a malformed key
 * is 400, a missing required one 400, a running one 409, a different request 422, a completed
 * one replayed; otherwise the key is claimed and the handler runs. Store failures are 503.
 */
export function lookUpKey(route: RouteSettings): RequestStep {
  const { settings } = route
  const { options, store } = settings
  return function idempotency(request, reply) {
    if (route.methods !== undefined && !route.methods.has(request.method)) return undefined
    const value = request.headers[KEY_HEADER]
    if (value === undefined) return route.required ? missingKey(settings) : undefined
    const reading = readIdempotencyKey(value, options.maxKeyLength)
    if ('problem' in reading) return malformedKey(settings, reading.problem)
    const key = storeKeyOf(settings.scope(request), request.method, route.route, reading.key)
    const marker: Running = {
      state: 'running',
      fingerprint: fingerprintOf(request),
      token: nextToken(),
    }
    // The memory store answers at once; the Redis store's promise rejects when it is away.
    const found = store.claim(key, marker, options.inFlightMs)
    if (!isThenable(found)) return answer(reply, settings, key, marker, found)
    return found.then(
      (record) => answer(reply, settings, key, marker, record),
      (error: unknown) => unavailable(settings, error),
    )
  }
}

/** Runs `operation` on the store, logging (never throwing) what fails: the answer is on its way. */
function settle(state: KeyState, what: string, operation: () => unknown): void {
  const warn = (error: unknown): void =>
    state.settings.log.warn({ err: error }, `${PLUGIN}: could not ${what} a key`)
  const out = operation()
  if (isThenable(out)) out.then(undefined, warn)
}

function release(state: KeyState): void {
  settle(state, 'free', () => state.settings.store.release(state.key, state.marker))
}

function store(state: KeyState, answer: StoredAnswer): void {
  const record: Completed = { state: 'done', fingerprint: state.marker.fingerprint, answer }
  const { store, options, log } = state.settings
  settle(state, 'store the answer of', () => {
    const stored = store.complete(state.key, state.marker, record, options.expiryMs)
    const lost = (done: boolean): void => {
      if (!done)
        log.warn(
          `${PLUGIN}: a request ran past its in-flight time (option inFlight): its answer is not stored`,
        )
    }
    if (isThenable(stored)) return stored.then(lost)
    lost(stored)
    return undefined
  })
}

/** The answer as stored: its status, the headers that describe it, `body`. */
function answerOf(reply: FastifyReply, state: KeyState, body: Buffer): StoredAnswer {
  const headers: [string, string | string[]][] = []
  for (const name of state.settings.options.storedHeaders) {
    const value = reply.getHeader(name)
    if (value === undefined) continue
    headers.push([name, typeof value === 'number' ? String(value) : value])
  }
  return { status: reply.statusCode, headers, body }
}

/** A stream body passed on as it is, stored once it ended (freed if it failed). */
function teeStream(reply: FastifyReply, state: KeyState, stream: NodeJS.ReadableStream): Transform {
  const chunks: Buffer[] = []
  const tee = new Transform({
    transform(chunk: Buffer | string, _encoding, callback) {
      chunks.push(Buffer.from(chunk))
      callback(null, chunk)
    },
    flush(callback) {
      store(state, answerOf(reply, state, Buffer.concat(chunks)))
      callback()
    },
  })
  stream.once('error', (error) => {
    release(state)
    tee.destroy(error)
  })
  return stream.pipe(tee)
}

/** Whether the stored answer has a header `name` (lower case, as stored). */
function stores(replay: StoredAnswer, name: string): boolean {
  for (const header of replay.headers) if (header[0] === name) return true
  return false
}

/**
 * The replay sent as stored: status, describing headers (others of this request kept), bytes.
 * A describing header the steps before set is dropped only where the stored answer has none
 * (one it has is overwritten); only a present one is removed, as removing costs two lookups.
 */
function replayed(reply: FastifyReply, state: KeyState, replay: StoredAnswer): Buffer {
  reply.code(replay.status)
  for (const name of state.settings.options.storedHeaders) {
    if (!stores(replay, name) && reply.hasHeader(name)) reply.removeHeader(name)
  }
  if (reply.hasHeader('content-length')) reply.removeHeader('content-length')
  for (const [name, value] of replay.headers) reply.header(name, value)
  reply.header(REPLAYED_HEADER, 'true')
  return replay.body
}

/**
 * As the answer is sent: a replay gets its stored status, headers and bytes back, whatever the
 * steps before changed; a first request's answer is stored when the handler ran and it is not a
 * 5xx, else its key is freed for a retry.
 */
export const captureAnswer: SendStep = function idempotency(_request, reply, payload) {
  const state = (reply as WithState)[STATE]
  if (state === undefined) return undefined
  if (state.replay !== undefined) return replayed(reply, state, state.replay)
  if (state.settled) return undefined
  state.settled = true
  if (!state.ran || reply.statusCode >= 500) {
    release(state)
    return undefined
  }
  if (payload === undefined || payload === null) {
    store(state, answerOf(reply, state, Buffer.alloc(0)))
  } else if (typeof payload === 'string' || payload instanceof Uint8Array) {
    store(state, answerOf(reply, state, Buffer.from(payload)))
  } else if (typeof (payload as NodeJS.ReadableStream).pipe === 'function') {
    return teeStream(reply, state, payload as NodeJS.ReadableStream)
  } else {
    // A web stream or Response: its bytes cannot be kept as they go, so a retry may run again.
    state.settings.log.warn(`${PLUGIN}: an answer of this kind is not stored; its key is freed`)
    release(state)
  }
  return undefined
}

/**
 * The route's handler, marking the request's key as used before it runs: from then on the
 * answer, a 4xx included, is the request's outcome (a refusal before it frees the key).
 */
export function markingHandler(route: RouteEntry): void {
  const handler = route.handler as RouteHandlerMethod
  route.handler = function idempotentHandler(this: unknown, request, reply) {
    const state = (reply as WithState)[STATE]
    if (state !== undefined) state.ran = true
    return handler.call(this as never, request, reply)
  } as RouteHandlerMethod
}
