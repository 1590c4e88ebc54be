/**
 * Response compression (gzip, br, deflate) as a send step after the ETag of the identity bytes
 * is known. Compressed bodies are cached by route, Content-Type, `Accept-Encoding` and the digest
 * of the identity bytes (least recently used go first); a digest known before serialization
 * (item versions) skips serializing the page.
 */
import { createRequire } from 'node:module'
import { pipeline, Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import zlib, { constants } from 'node:zlib'
import { withCoding } from '@restwell/conditional'
import { appendVary, type SendStep, type SerializeStep } from '@restwell/core'
import {
  BODY_DIGESTS,
  type BodyDigests,
  declareCompression,
  declareState,
  IDENTITY_DIGEST,
  identityDigest,
  ITEMS_DIGEST_PREFIX,
  isNotModified,
  queryContentKey,
  remembered,
} from '@restwell/core/internal'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type MimeDb from 'mime-db'
import { preferredCoding } from './accept-encoding.js'
import type { Coding, CompressionSettings } from './options.js'

/** Longest `Accept-Encoding` value used in a key; a longer one is compressed, not cached. */
export const MAX_CACHED_ACCEPT_ENCODING = 256

/** Media types worth compressing (`@fastify/compress`'s test), before mime-db is asked. */
const COMPRESSIBLE =
  /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)text(?:;|$)|(?:\+|\/)xml(?:;|$)|octet-stream(?:;|$)/u

const compressibleVerdicts = new Map<string, boolean>()

let mimeDb: typeof MimeDb | undefined

/** mime-db, read when the pattern first leaves a type undecided: JSON APIs never load it. */
function mimeTypes(): typeof MimeDb {
  mimeDb ??= createRequire(import.meta.url)('mime-db') as typeof MimeDb
  return mimeDb
}

/** Whether a Content-Type is compressible: the pattern, else mime-db's `compressible`. */
export function isCompressible(type: string): boolean {
  const known = compressibleVerdicts.get(type)
  if (known !== undefined) return known
  const verdict =
    COMPRESSIBLE.test(type) ||
    mimeTypes()[type.split(';', 1)[0]!.trim().toLowerCase()]?.compressible === true
  if (compressibleVerdicts.size < 256) compressibleVerdicts.set(type, verdict)
  return verdict
}

/** The Content-Type a reply's body is judged by: JSON when none is set yet. */
function typeOf(reply: FastifyReply): string {
  const type = reply.getHeader('content-type')
  return typeof type === 'string' ? type : 'application/json'
}

interface Entry {
  coding: Coding
  body: Buffer
  /** The Content-Type it was stored with. */
  type: unknown
  /** The digests of `body` by algorithm, filled by whoever hashes it (`BODY_DIGESTS`). */
  digests: BodyDigests
}

/** The compressed bodies kept for identical answers, shared by every route of one registration. */
export interface BodyCache {
  readonly maxBytes: number
  readonly entries: Map<string, Entry>
  bytes: number
  /** Routes given an id so far (the id keys a route's entries). */
  routes: number
}

/** An empty cache of at most `maxBytes` of compressed bodies (0: nothing is kept). */
export function bodyCache(maxBytes: number): BodyCache {
  return { maxBytes, entries: new Map(), bytes: 0, routes: 0 }
}

/** Entries and bytes held (for tests and diagnostics). */
export function cacheSize(cache: BodyCache): { entries: number; bytes: number } {
  return { entries: cache.entries.size, bytes: cache.bytes }
}

function keep(cache: BodyCache, key: string, entry: Entry): void {
  if (cache.maxBytes === 0 || entry.body.length > cache.maxBytes) return
  cache.entries.set(key, entry)
  cache.bytes += entry.body.length
  // The entry just kept fits the budget alone, so the oldest others go until it is met.
  while (cache.bytes > cache.maxBytes) {
    const oldest = cache.entries.keys().next().value as string
    cache.bytes -= (cache.entries.get(oldest) as Entry).body.length
    cache.entries.delete(oldest)
  }
}

/** The entry found before serialization (and its key), for the send step to send. */
const EARLY = Symbol('restwell.compression.early')

type Pending = FastifyReply & {
  [EARLY]?: { key: string; hit: Entry }
  [IDENTITY_DIGEST]?: string
  [BODY_DIGESTS]?: BodyDigests
}

/**
 * Declares the reply slots the steps use (one hidden class for every reply), and that answers
 * may be compressed (`declareCompression`): `@restwell/conditional` then adds
 * `Vary: Accept-Encoding` to the 200, 206 and 304 of routes that may be compressed.
 */
export function declareCompressionState(fastify: FastifyInstance): void {
  fastify.decorateReply(EARLY as unknown as string, undefined)
  declareState(fastify, 'reply', IDENTITY_DIGEST)
  declareCompression(fastify)
}

/**
 * Marks the reply's body as encoded in `coding`: `Content-Encoding`, `Vary: Accept-Encoding`,
 * and the ETag of a 200 or 206 given the coding's suffix with no `Accept-Ranges` (each content
 * coding is a representation of its own, RFC 9110 §8.8.3; ranges are of the identity bytes).
 */
function encoded(reply: FastifyReply, coding: Coding): void {
  appendVary(reply, 'Accept-Encoding')
  reply.header('content-encoding', coding)
  const status = reply.statusCode
  if (status !== 200 && status !== 206) return
  reply.removeHeader('accept-ranges')
  const etag = reply.getHeader('etag')
  if (typeof etag === 'string' && etag.endsWith('"')) reply.header('etag', withCoding(etag, coding))
}

/** Sends a stored body with the headers compression sets; it is now the newest. */
function serve(cache: BodyCache, reply: FastifyReply, key: string, hit: Entry): Buffer {
  if (cache.entries.delete(key)) cache.entries.set(key, hit)
  ;(reply as Pending)[BODY_DIGESTS] = hit.digests
  if (hit.type !== undefined) reply.header('content-type', hit.type)
  encoded(reply, hit.coding)
  reply.header('content-length', hit.body.length)
  return hit.body
}

/** The `Accept-Encoding` value to key on, or undefined when this answer is not cached. */
function cacheableAccept(request: FastifyRequest, reply: FastifyReply): string | undefined {
  const accept = request.headers['accept-encoding']
  if (
    reply.statusCode !== 200 ||
    typeof accept !== 'string' ||
    accept.length > MAX_CACHED_ACCEPT_ENCODING ||
    request.headers['x-no-compression'] !== undefined ||
    reply.hasHeader('content-encoding') ||
    reply.hasHeader('content-range')
  ) {
    return undefined
  }
  return accept
}

/**
 * A digest derived from item versions covers the Content-Type (and a QUERY's content): they stay
 * out of the key. A QUERY's content is in every other key (RFC 10008 §2).
 */
function keyOf(
  request: FastifyRequest,
  route: string,
  type: unknown,
  accept: string,
  digest: string,
): string {
  if (digest.startsWith(ITEMS_DIGEST_PREFIX)) return `${route}\n${accept}\n${digest}`
  const query = queryContentKey(request)
  const key = `${route}\n${String(type)}\n${accept}\n${digest}`
  return query === undefined ? key : `${key}\n${query}`
}

function isWebStream(payload: object): payload is WebReadableStream {
  return typeof (payload as { getReader?: unknown }).getReader === 'function'
}

/** The compressors of one route's settings. */
function compressors(settings: CompressionSettings) {
  const zlibOptions = { level: settings.gzipLevel }
  const brotliOptions = {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: settings.brotliQuality,
    },
  }
  return {
    sync: {
      gzip: (bytes: Buffer) => zlib.gzipSync(bytes, zlibOptions),
      deflate: (bytes: Buffer) => zlib.deflateSync(bytes, zlibOptions),
      br: (bytes: Buffer) => zlib.brotliCompressSync(bytes, brotliOptions),
    } satisfies Record<Coding, (bytes: Buffer) => Buffer>,
    stream: {
      gzip: () => zlib.createGzip(zlibOptions),
      deflate: () => zlib.createDeflate(zlibOptions),
      br: () => zlib.createBrotliCompress(brotliOptions),
    } satisfies Record<Coding, () => zlib.Zlib & NodeJS.ReadWriteStream>,
  }
}

/** One route's compression, decided once when the route is added. */
export interface RouteCompression {
  /** Names the route in the cache's keys. */
  readonly id: string
  readonly cache: BodyCache
  readonly settings: CompressionSettings
  readonly compressors: ReturnType<typeof compressors>
  /** The coding chosen per `Accept-Encoding` value (null: identity). */
  readonly chosen: Map<string, Coding | null>
}

/** The compression of a route under `settings`, its entries kept in `cache`. */
export function routeCompression(
  cache: BodyCache,
  settings: CompressionSettings,
): RouteCompression {
  return {
    id: String(++cache.routes),
    cache,
    settings,
    compressors: compressors(settings),
    chosen: new Map(),
  }
}

/** The coding to answer `header` with, remembered per value; null for none. */
function codingFor(route: RouteCompression, header: string): Coding | null {
  return remembered(route.chosen, header, (value) =>
    preferredCoding(value, route.settings.encodings),
  )
}

function streamed(reply: FastifyReply, route: RouteCompression, coding: Coding, body: Readable) {
  encoded(reply, coding)
  reply.removeHeader('content-length')
  return pipeline(body, route.compressors.stream[coding](), (error) => {
    if (error !== undefined && error !== null && error.message !== 'Premature close') {
      reply.log.warn({ err: error }, 'restwell: compression of a streamed body failed')
    }
  }) as unknown as Readable
}

/** A web Response from the handler: its status and headers on the reply, its body compressed. */
function fromResponse(
  reply: FastifyReply,
  route: RouteCompression,
  response: Response,
  coding: Coding,
): unknown {
  reply.code(response.status)
  for (const [name, value] of response.headers) reply.header(name, value)
  if (response.body === null) return null
  const body = Readable.fromWeb(response.body as WebReadableStream)
  return isCompressible(typeOf(reply)) ? streamed(reply, route, coding, body) : body
}

/**
 * A body that is not bytes: a Response, a Node or a web stream, compressed as it streams; what
 * else a hook made of it is left to Fastify.
 */
function streamedBody(
  reply: FastifyReply,
  route: RouteCompression,
  coding: Coding,
  payload: unknown,
): unknown {
  if (Object.prototype.toString.call(payload) === '[object Response]') {
    return fromResponse(reply, route, payload as Response, coding)
  }
  if (typeof (payload as Readable).pipe === 'function') {
    return streamed(reply, route, coding, payload as Readable)
  }
  if (typeof payload === 'object' && isWebStream(payload as object)) {
    return streamed(reply, route, coding, Readable.fromWeb(payload as WebReadableStream))
  }
  return undefined
}

/** Bytes: compressed in one call (or streamed when large), from the cache when kept there. */
function compressedBytes(
  request: FastifyRequest,
  reply: FastifyReply,
  route: RouteCompression,
  coding: Coding,
  payload: string | Buffer,
): Buffer | Readable | undefined {
  const size = Buffer.byteLength(payload)
  const { settings, cache } = route
  if (size < settings.threshold) return undefined
  if (size > settings.syncThreshold) {
    return streamed(reply, route, coding, Readable.from([payload]))
  }
  const accept = cache.maxBytes > 0 ? cacheableAccept(request, reply) : undefined
  let key: string | undefined
  if (accept !== undefined) {
    const digest = (reply as Pending)[IDENTITY_DIGEST] ?? identityDigest(payload)
    key = keyOf(request, route.id, reply.getHeader('content-type'), accept, digest)
    const hit = cache.entries.get(key)
    if (hit !== undefined) return serve(cache, reply, key, hit)
  }
  const body = route.compressors.sync[coding](
    Buffer.isBuffer(payload) ? payload : Buffer.from(payload),
  )
  encoded(reply, coding)
  reply.header('content-length', body.length)
  if (key !== undefined) {
    const entry: Entry = { coding, body, type: reply.getHeader('content-type'), digests: {} }
    keep(cache, key, entry)
    ;(reply as Pending)[BODY_DIGESTS] = entry.digests
  }
  return body
}

/**
 * Whether the answer is left as it is: no body, a status without one to compress (a 304, a
 * 204, a 206 of identity bytes), a body encoded already, or a client that asks for none.
 */
function leftAlone(request: FastifyRequest, reply: FastifyReply, payload: unknown): boolean {
  if (payload === null || payload === undefined) return true
  const status = reply.statusCode
  if (status === 304 || status === 204 || status === 206) return true
  const encoding = reply.getHeader('content-encoding')
  return (
    (encoding !== undefined && encoding !== 'identity') ||
    request.headers['x-no-compression'] !== undefined ||
    reply.hasHeader('content-range')
  )
}

/** The route's send step: the body compressed in the coding the request prefers. */
export function compressStep(route: RouteCompression): SendStep {
  return function compress(request, reply, payload) {
    const early = (reply as Pending)[EARLY]
    if (early !== undefined) {
      ;(reply as Pending)[EARLY] = undefined
      // Conditional may have made it a 304 since: then there is nothing to send.
      if (reply.statusCode === 200) return serve(route.cache, reply, early.key, early.hit)
    }
    const accept = request.headers['accept-encoding']
    if (accept === undefined || leftAlone(request, reply, payload)) return undefined
    if (!isCompressible(typeOf(reply))) return undefined
    const coding = codingFor(route, accept)
    if (coding === null) return undefined
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      return compressedBytes(request, reply, route, coding, payload)
    }
    return streamedBody(reply, route, coding, payload)
  }
}

/** The serializer of a body that is answered from the cache. */
const skipSerialization = (): string => ''

/**
 * The route's serialization step when its answers are cached: a digest derived from item
 * versions (known before serialization) finds a stored body, and the page is not serialized.
 */
export function earlyLookupStep(route: RouteCompression): SerializeStep {
  return function compressEarly(request, reply) {
    const digest = (reply as Pending)[IDENTITY_DIGEST]
    if (
      !digest?.startsWith(ITEMS_DIGEST_PREFIX) ||
      // A 304 decided before serialization has no body to find.
      isNotModified(reply) ||
      (request.method !== 'GET' && request.method !== 'QUERY') ||
      request.headers.range !== undefined
    ) {
      return undefined
    }
    const accept = cacheableAccept(request, reply)
    if (accept === undefined) return undefined
    const key = keyOf(request, route.id, undefined, accept, digest)
    const hit = route.cache.entries.get(key)
    if (hit !== undefined) {
      ;(reply as Pending)[EARLY] = { key, hit }
      reply.serializer(skipSerialization)
    }
    return undefined
  }
}
