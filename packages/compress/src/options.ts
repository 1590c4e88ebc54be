/** Options of `@restwell/compress`, and a route's own `compress` option. */
import { type Static, Type } from '@sinclair/typebox'

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

/** A coding compression offers. */
export type Coding = 'br' | 'gzip' | 'deflate'

/** Compression settings with their defaults filled in (the app's, or one route's). */
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

const DEFAULT_THRESHOLD = 1024
// @fastify/compress derives this from the core count (8 KB on 2 cores); its stream path
// cost 2-4x the synchronous one here, so a typical API page (20-60 KB) is compressed at once.
const DEFAULT_SYNC_THRESHOLD = 65_536
const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024
const DEFAULT_ENCODINGS: readonly Coding[] = ['gzip', 'br', 'deflate']

/** A route's own `compress` option: `false`, or settings over the app's (no cache budget). */
export const RouteCompressSchema = Type.Omit(CompressSettingsSchema, ['cacheBytes'], {
  additionalProperties: false,
})

/** A route's own `compress` settings (see `RouteCompressSchema`). */
export type RouteCompressSettings = Omit<CompressSettings, 'cacheBytes'>

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
