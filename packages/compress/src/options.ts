/** Compression settings, per app and per route (request bodies: `decompress.ts`). */
import { type RouteEntry, routeName } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'
import type { onRouteHookHandler } from 'fastify'
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
 * onRoute hook: reads the route's `compress` option (`false`, or restwell's compression
 * settings, checked here), keeps what the route gets in `taken`, and leaves `compress: false`
 * on the route: compression is the pipeline's step, and a compression plugin the app adds
 * does not compress a body twice.
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
    const where = `restwell (compress of ${routeName(route)})`
    const checked = validateOptions(where, RouteCompressSchema, own) as CompressSettings
    taken.set(route, resolveCompression({ ...settings, ...checked }))
  }
}
