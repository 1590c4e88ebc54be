/** Compression through `@fastify/compress`, with thresholds and levels chosen on purpose. */
import { constants } from 'node:zlib'
import type { FastifyCompressOptions } from '@fastify/compress'
import { asList } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'
import type { onRouteHookHandler } from 'fastify'
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
    encodings: settings.encodings ?? ['gzip', 'br', 'deflate'],
    zlibOptions: { level },
    brotliOptions: {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: settings.brotliQuality ?? 4,
      },
    },
  }
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
