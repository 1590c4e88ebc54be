/** Compression settings, per app and per route; `@fastify/compress` decodes request bodies. */
import zlib from 'node:zlib'
import type { FastifyCompressOptions } from '@fastify/compress'
import type { RouteEntry } from '@restwell/core'
import { ErrorCode, httpErrors, validateOptions } from '@restwell/errors'
import { asList } from '@restwell/core'
import { type Static, Type } from '@sinclair/typebox'
import type { onRouteHookHandler, preParsingHookHandler } from 'fastify'
import type { CompressionSettings } from './compression.js'

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

/**
 * `@fastify/compress`'s options: request bodies only. Responses are compressed by the pipeline's
 * step (`compression.ts`); each route gets `compress: false` (see `takeRouteCompression`).
 */
export function compressOptions(): FastifyCompressOptions {
  return {
    globalCompression: false,
    globalDecompression: true,
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

/** A route's own `compress` option: `false`, or settings over the app's (no cache budget). */
const RouteCompressSchema = Type.Omit(CompressSettingsSchema, ['cacheBytes'], {
  additionalProperties: false,
})

/** Settings with their defaults filled in. */
export function resolveCompression(settings: CompressSettings): CompressionSettings {
  return {
    threshold: settings.threshold ?? DEFAULT_THRESHOLD,
    syncThreshold: settings.syncThreshold ?? DEFAULT_SYNC_THRESHOLD,
    encodings: settings.encodings ?? DEFAULT_ENCODINGS,
    gzipLevel: settings.gzipLevel ?? 6,
    brotliQuality: settings.brotliQuality ?? 4,
    cacheBytes: settings.cacheBytes ?? DEFAULT_CACHE_BYTES,
  }
}

/**
 * onRoute hook added before `@fastify/compress`: reads the route's `compress` option (`false`,
 * or restwell's compression settings, checked here), keeps what the route gets in `taken`, and
 * sets `compress: false` so `@fastify/compress` adds no hook of its own for responses.
 */
export function takeRouteCompression(
  settings: CompressSettings,
  taken: WeakMap<object, CompressionSettings>,
): onRouteHookHandler {
  const app = resolveCompression(settings)
  return function restwellTakeCompression(route: RouteEntry) {
    const own = (route as { compress?: unknown }).compress
    ;(route as { compress?: unknown }).compress = false
    if (own === false) return
    if (own === undefined) {
      taken.set(route, app)
      return
    }
    const where = `restwell (compress of ${[route.method].flat().join(',')} ${route.url})`
    const checked = validateOptions(where, RouteCompressSchema, own) as CompressSettings
    taken.set(route, resolveCompression({ ...settings, ...checked }))
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
