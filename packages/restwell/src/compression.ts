/**
 * Response compression as a step of the pipeline (gzip, br, deflate), so each coding's ETag, the
 * cache and HEAD's `Content-Length` come after it. Compressed bodies are cached by route,
 * Content-Type, `Accept-Encoding` and the digest of the identity bytes (least recently used go
 * first); a digest known before serialization (item versions) skips serializing the page.
 */
import { createRequire } from 'node:module'
import { Readable, pipeline } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import zlib, { constants } from 'node:zlib'
import negotiate from '@fastify/accept-negotiator'
import type { RouteEntry, SendStep } from '@restwell/core'
import {
  appendVary,
  BODY_DIGESTS,
  type BodyDigests,
  declareCompression,
  declareState,
  IDENTITY_DIGEST,
  identityDigest,
  ITEMS_DIGEST_PREFIX,
  type SerializeStep,
  servedMethods,
} from '@restwell/core'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type MimeDb from 'mime-db'

/** Longest `Accept-Encoding` value used in a key; a longer one is compressed, not cached. */
export const MAX_CACHED_ACCEPT_ENCODING = 256

export type Coding = 'br' | 'gzip' | 'deflate'

/** One route's compression, resolved once. */
export interface CompressionSettings {
  /** Smallest body (bytes) worth compressing. */
  threshold: number
  /** Largest body compressed in one synchronous call; larger ones (and streams) stream. */
  syncThreshold: number
  /** Codings offered, in the server's order of preference. */
  encodings: readonly Coding[]
  gzipLevel: number
  brotliQuality: number
  /** Total bytes of compressed bodies kept (shared by every route); 0: no cache. */
  cacheBytes: number
}

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

/**
 * `Accept-Encoding` with its `*` members replaced by the offered codings the header does not
 * name, each with the wildcard's parameters (RFC 9110 §12.5.3: `*` matches any coding not
 * listed). Names are compared case-insensitively, `x-gzip` as `gzip`; members are otherwise
 * kept as sent. Linear; never throws.
 */
export function expandAcceptEncoding(header: string, offered: readonly string[]): string {
  const members = header.split(',')
  const named = new Set<string>()
  for (const member of members) {
    const name = member.split(';', 1)[0]!.trim().toLowerCase()
    named.add(name === 'x-gzip' ? 'gzip' : name)
  }
  const out: string[] = []
  for (const member of members) {
    const semicolon = member.indexOf(';')
    const name = (semicolon === -1 ? member : member.slice(0, semicolon)).trim()
    if (name !== '*') {
      out.push(member)
      continue
    }
    const params = semicolon === -1 ? '' : member.slice(semicolon)
    for (const coding of offered) {
      if (!named.has(coding)) {
        named.add(coding)
        out.push(` ${coding}${params}`)
      }
    }
  }
  return out.join(',').trim()
}

/** `x-gzip` is `gzip` (RFC 9110 §8.4.1.3); codings are case-insensitive. */
const X_GZIP = /x-gzip/g

interface Entry {
  coding: string
  body: Buffer
  /** The Content-Type it was stored with. */
  type: unknown
  /** The digests of `body` by algorithm, filled by whoever hashes it (`BODY_DIGESTS`). */
  digests: BodyDigests
}

/** The entry found before serialization (and its key), for the send step to send. */
const EARLY = Symbol('restwell.compression.early')

type Pending = FastifyReply & {
  [EARLY]?: { key: string; hit: Entry }
  [IDENTITY_DIGEST]?: string
  [BODY_DIGESTS]?: BodyDigests
}

/** The serializer of a body that is answered from the cache. */
const skipSerialization = (): string => ''

/** What a route gets: the send step, and the early lookup of GET routes when caching. */
export interface RouteCompression {
  send: SendStep
  early: SerializeStep | undefined
}

export interface Compression {
  /**
   * Declares the reply slots the steps use (one hidden class for every reply), and
   * `reply.compress` (null), the mark compression plugins leave: `@restwell/conditional` then
   * adds `Vary: Accept-Encoding` to the 200, 206 and 304 of routes that may be compressed.
   */
  decorate(fastify: FastifyInstance): void
  /** A route's steps under `settings`; the key names it in the cache. */
  forRoute(route: RouteEntry, settings: CompressionSettings): RouteCompression
  /** Entries and bytes held (for tests and diagnostics). */
  size(): { entries: number; bytes: number }
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

/** A digest derived from item versions covers the Content-Type: it stays out of the key. */
function keyOf(route: string, type: unknown, accept: string, digest: string): string {
  return digest.startsWith(ITEMS_DIGEST_PREFIX)
    ? `${route}\n${accept}\n${digest}`
    : `${route}\n${String(type)}\n${accept}\n${digest}`
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

export function compression(maxBytes: number): Compression {
  const entries = new Map<string, Entry>()
  let bytes = 0
  let routes = 0

  function keep(key: string, entry: Entry): void {
    if (maxBytes === 0 || entry.body.length > maxBytes) return
    entries.set(key, entry)
    bytes += entry.body.length
    // The entry just kept fits the budget alone, so the oldest others go until it is met.
    while (bytes > maxBytes) {
      const oldest = entries.keys().next().value as string
      bytes -= (entries.get(oldest) as Entry).body.length
      entries.delete(oldest)
    }
  }

  /** Sends a stored body with the headers compression sets; it is now the newest. */
  function serve(reply: FastifyReply, key: string, hit: Entry): Buffer {
    if (entries.delete(key)) entries.set(key, hit)
    ;(reply as Pending)[BODY_DIGESTS] = hit.digests
    appendVary(reply, 'Accept-Encoding')
    if (hit.type !== undefined) reply.header('content-type', hit.type)
    reply.header('content-encoding', hit.coding)
    reply.header('content-length', hit.body.length)
    return hit.body
  }

  function forRoute(route: RouteEntry, settings: CompressionSettings): RouteCompression {
    const id = String(++routes)
    const caching = maxBytes > 0
    const { sync, stream } = compressors(settings)
    const offered = [...settings.encodings]
    const chosen = new Map<string, Coding | null>()

    /** The coding to answer `header` with, remembered per value; null for none. */
    function codingFor(header: string): Coding | null {
      let coding = chosen.get(header)
      if (coding === undefined) {
        const wanted = header.includes('*') ? expandAcceptEncoding(header, offered) : header
        coding = negotiate(wanted.toLowerCase().replace(X_GZIP, 'gzip'), offered) as Coding | null
        if (chosen.size < 256) chosen.set(header, coding)
      }
      return coding
    }

    function streamed(reply: FastifyReply, coding: Coding, body: Readable): Readable {
      appendVary(reply, 'Accept-Encoding')
      reply.header('content-encoding', coding)
      reply.removeHeader('content-length')
      const zipped = stream[coding]()
      return pipeline(body, zipped, (error) => {
        if (error !== undefined && error !== null && error.message !== 'Premature close') {
          reply.log.warn({ err: error }, 'restwell: compression of a streamed body failed')
        }
      }) as unknown as Readable
    }

    /** A web Response from the handler: its status and headers on the reply, its body compressed. */
    function fromResponse(reply: FastifyReply, response: Response, coding: Coding): unknown {
      reply.code(response.status)
      for (const [name, value] of response.headers) reply.header(name, value)
      if (response.body === null) return null
      const type = reply.getHeader('content-type')
      const body = Readable.fromWeb(response.body as WebReadableStream)
      if (isCompressible(typeof type === 'string' ? type : 'application/json')) {
        return streamed(reply, coding, body)
      }
      return body
    }

    const send: SendStep = (request, reply, payload) => {
      const early = (reply as Pending)[EARLY]
      if (early !== undefined) {
        ;(reply as Pending)[EARLY] = undefined
        // Conditional may have made it a 304 since: then there is nothing to send.
        if (reply.statusCode === 200) return serve(reply, early.key, early.hit)
      }
      const accept = request.headers['accept-encoding']
      if (accept === undefined || payload === null || payload === undefined) return undefined
      const status = reply.statusCode
      const encoded = reply.getHeader('content-encoding')
      if (
        status === 206 ||
        status === 204 ||
        status === 304 ||
        (encoded !== undefined && encoded !== 'identity') ||
        request.headers['x-no-compression'] !== undefined ||
        reply.hasHeader('content-range')
      ) {
        return undefined
      }
      const type = reply.getHeader('content-type')
      if (!isCompressible(typeof type === 'string' ? type : 'application/json')) return undefined
      const coding = codingFor(accept)
      if (coding === null) return undefined
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) {
        if (Object.prototype.toString.call(payload) === '[object Response]') {
          return fromResponse(reply, payload as Response, coding)
        }
        if (typeof (payload as Readable).pipe === 'function') {
          return streamed(reply, coding, payload as Readable)
        }
        if (typeof payload === 'object' && isWebStream(payload)) {
          return streamed(reply, coding, Readable.fromWeb(payload))
        }
        return undefined
      }
      const size = Buffer.byteLength(payload)
      if (size < settings.threshold) return undefined
      if (size > settings.syncThreshold) return streamed(reply, coding, Readable.from([payload]))
      const cacheKey = caching ? cacheableAccept(request, reply) : undefined
      let key: string | undefined
      if (cacheKey !== undefined) {
        const digest = (reply as Pending)[IDENTITY_DIGEST] ?? identityDigest(payload)
        key = keyOf(id, type, cacheKey, digest)
        const hit = entries.get(key)
        if (hit !== undefined) return serve(reply, key, hit)
      }
      const body = sync[coding](Buffer.isBuffer(payload) ? payload : Buffer.from(payload))
      appendVary(reply, 'Accept-Encoding')
      reply.header('content-encoding', coding)
      reply.header('content-length', body.length)
      if (key !== undefined) {
        const entry: Entry = { coding, body, type, digests: {} }
        keep(key, entry)
        ;(reply as Pending)[BODY_DIGESTS] = entry.digests
      }
      return body
    }

    const methods = servedMethods(route)
    const early: SerializeStep | undefined =
      caching && methods.includes('GET')
        ? function restwellCompressEarly(request, reply) {
            const digest = (reply as Pending)[IDENTITY_DIGEST]
            if (
              digest?.startsWith(ITEMS_DIGEST_PREFIX) &&
              request.method === 'GET' &&
              request.headers.range === undefined
            ) {
              const accept = cacheableAccept(request, reply)
              if (accept !== undefined) {
                const key = keyOf(id, undefined, accept, digest)
                const hit = entries.get(key)
                if (hit !== undefined) {
                  ;(reply as Pending)[EARLY] = { key, hit }
                  reply.serializer(skipSerialization)
                }
              }
            }
            return undefined
          }
        : undefined
    return { send, early }
  }

  return {
    decorate(fastify) {
      fastify.decorateReply(EARLY as unknown as string, undefined)
      declareState(fastify, 'reply', IDENTITY_DIGEST, BODY_DIGESTS)
      declareCompression(fastify)
    },
    forRoute,
    size: () => ({ entries: entries.size, bytes }),
  }
}
