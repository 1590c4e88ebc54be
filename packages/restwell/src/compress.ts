/** Compression through `@fastify/compress`, with thresholds and levels chosen on purpose. */
import zlib, { constants } from 'node:zlib'
import type { FastifyCompressOptions } from '@fastify/compress'
import { asList, ErrorCode, httpErrors } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'
import type { onRequestHookHandler, onRouteHookHandler, preParsingHookHandler } from 'fastify'
import { type CompressCache, compressCache } from './compress-cache.js'

export const CompressSettingsSchema = Type.Object(
  {
    threshold: Type.Optional(Type.Integer({ minimum: 0 })),
    encodings: Type.Optional(
      Type.Array(Type.Union([Type.Literal('br'), Type.Literal('gzip'), Type.Literal('deflate')]), {
        minItems: 1,
        uniqueItems: true,
      }),
    ),
    syncThreshold: Type.Optional(Type.Integer({ minimum: 0 })),
    gzipLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 9 })),
    brotliQuality: Type.Optional(Type.Integer({ minimum: 0, maximum: 11 })),
    cacheBytes: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
)

/**
 * @param threshold Smallest body (bytes) worth compressing. [1024]
 * @param encodings Codings offered, in the server's order of preference. [['gzip', 'br', 'deflate']]
 * @param syncThreshold Largest body compressed in one synchronous call; larger ones stream. [65536]
 * @param gzipLevel zlib level for gzip and deflate. [6]
 * @param brotliQuality Brotli quality. [4]
 * @param cacheBytes Compressed bodies kept for identical responses (bytes); 0: no cache. [8 MiB]
 */
export type CompressSettings = Static<typeof CompressSettingsSchema>

const DEFAULT_THRESHOLD = 1024
// @fastify/compress derives this from the core count (8 KB on 2 cores); its stream path
// cost 2-4x the synchronous one here, so a typical API page (20-60 KB) is compressed at once.
const DEFAULT_SYNC_THRESHOLD = 65_536
const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024
const DEFAULT_ENCODINGS: readonly ('br' | 'gzip' | 'deflate')[] = ['gzip', 'br', 'deflate']

/** Compression's hooks with the cache of compressed bodies these settings ask for (none at 0). */
export function compressCacheOf(settings: CompressSettings): CompressCache {
  return compressCache({
    maxBytes: settings.cacheBytes ?? DEFAULT_CACHE_BYTES,
    threshold: settings.threshold ?? DEFAULT_THRESHOLD,
    syncThreshold: settings.syncThreshold ?? DEFAULT_SYNC_THRESHOLD,
  })
}

export function compressOptions(settings: CompressSettings): FastifyCompressOptions {
  const level = settings.gzipLevel ?? 6
  return {
    global: true,
    threshold: settings.threshold ?? DEFAULT_THRESHOLD,
    syncThreshold: settings.syncThreshold ?? DEFAULT_SYNC_THRESHOLD,
    encodings: [...(settings.encodings ?? DEFAULT_ENCODINGS)],
    zlibOptions: { level },
    brotliOptions: {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: settings.brotliQuality ?? 4,
      },
    },
    // RFC 9110 §12.5.3: a 415 for a content coding names the codings accepted, so a client can
    // tell it from a 415 for the media type (which carries `Accept`).
    onUnsupportedRequestEncoding: (encoding) =>
      httpErrors.unsupportedMediaType(
        `The request body's Content-Encoding ${JSON.stringify(encoding.slice(0, 64))} is not supported`,
        {
          code: ErrorCode.UNSUPPORTED_CONTENT_ENCODING,
          headers: { 'accept-encoding': REQUEST_CODINGS.join(', ') },
        },
      ),
  }
}

/**
 * `Accept-Encoding` with its `*` members replaced by the offered codings the header does not
 * name, each with the wildcard's parameters (RFC 9110 §12.5.3: `*` matches any coding not
 * listed). `@fastify/compress` reads `*` as `gzip`, so `gzip;q=0, *` got gzip, the one coding
 * refused. Names are compared case-insensitively, `x-gzip` as `gzip`; members are otherwise
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

/**
 * Root `onRequest` hook: a request whose `Accept-Encoding` has a `*` gets it expanded
 * (`expandAcceptEncoding`) before compression (and its cache) read it; others pay one
 * `includes`.
 */
export function acceptEncodingHook(settings: CompressSettings): onRequestHookHandler {
  const offered = settings.encodings ?? DEFAULT_ENCODINGS
  return function restwellAcceptEncoding(request, _reply, done) {
    const header = request.headers['accept-encoding']
    if (header?.includes('*')) {
      request.headers['accept-encoding'] = expandAcceptEncoding(header, offered)
    }
    done()
  }
}

/** The content codings `@fastify/compress` decodes in request bodies, in its order. */
const REQUEST_CODINGS: readonly string[] = ['zstd', 'br', 'gzip', 'deflate'].filter(
  (coding) =>
    coding !== 'zstd' ||
    // zstd only where Node's zlib has it (22.15+), as @fastify/compress checks
    typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function',
)

/** Spellings of a request coding that `@fastify/compress` compares exactly. */
const CANONICAL_CODINGS: ReadonlySet<string> = new Set([...REQUEST_CODINGS, 'identity'])

/**
 * A request `Content-Encoding` as `@fastify/compress` expects it: codings are case-insensitive
 * (RFC 9110 §8.4.1) and `x-gzip` is `gzip` (§8.4.1.3). Only an unusual spelling is rewritten;
 * the common case costs one set lookup.
 */
const normalizeRequestCoding: preParsingHookHandler = function restwellRequestCoding(
  request,
  _reply,
  payload,
  done,
) {
  const coding = request.headers['content-encoding']
  if (coding !== undefined && !CANONICAL_CODINGS.has(coding)) {
    const lower = coding.trim().toLowerCase()
    request.headers['content-encoding'] = lower === 'x-gzip' ? 'gzip' : lower
  }
  done(null, payload)
}

/**
 * onRoute hook added after `@fastify/compress`: on a route it decompresses bodies for, the
 * coding is normalized first (compression's own hook went first in the list; this one goes
 * before it).
 */
export const requestCodingFirst: onRouteHookHandler = (route) => {
  if (route.decompress === false) return
  route.preParsing = [normalizeRequestCoding, ...asList(route.preParsing)]
}

/**
 * Methods whose request body Fastify never reads (its `bodyless` set: `handleRequest` calls the
 * handler without parsing one), so there is nothing to decompress.
 */
const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE'])

/**
 * onRoute hook added before `@fastify/compress`: a route of bodyless methods only gets
 * `decompress: false`, unless it sets `decompress` itself. `@fastify/compress` would otherwise
 * give it a `preParsing` hook, and Fastify binds a function and runs the hook on every request
 * of the route to decompress a body it then never reads.
 */
export const noDecompressWithoutBody: onRouteHookHandler = (route) => {
  if (route.decompress !== undefined) return
  if (asList(route.method).every((method) => BODYLESS_METHODS.has(method))) {
    route.decompress = false
  }
}
