/** What `@restwell/compress` sets up once per registration, and a route's own settings. */
import { RegistrationError, type RouteEntry, routeName, type SetupContext } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import { type BodyCache, bodyCache, declareCompressionState } from './compression.js'
import {
  type CompressionSettings,
  type RouteCompressSettings,
  RouteCompressSchema,
} from './options.js'

/** The plugin's name, as its messages begin. */
export const NAME = '@restwell/compress'

/** What the steps read: the app's settings and the cache of compressed bodies. */
export interface Settings {
  readonly app: CompressionSettings
  readonly cache: BodyCache
}

/**
 * Declares the reply slots the steps use; alone, fails `ready()` beside `@fastify/compress`,
 * which would compress a body twice (under the umbrella its overlap check says so first).
 */
export function setupCompression(
  fastify: FastifyInstance,
  options: CompressionSettings,
  context: SetupContext,
): Settings {
  declareCompressionState(fastify)
  if (!context.pipeline) {
    fastify.addHook('onReady', async function compressBesideFastifyCompress() {
      if (!fastify.hasPlugin('@fastify/compress')) return
      throw new RegistrationError(
        `${NAME}: @fastify/compress is registered too, and both would compress answers and decode request bodies: remove one of them`,
      )
    })
  }
  return { app: options, cache: bodyCache(options.cacheBytes) }
}

/**
 * A route's compression: its own `compress` option (`false`, or settings over the app's, checked
 * here) over the app's; undefined when it sets `compress: false`.
 */
export function routeSettings(
  route: RouteEntry,
  settings: Settings,
): CompressionSettings | undefined {
  const own = (route as { compress?: unknown }).compress
  if (own === false) return undefined
  if (own === undefined) return settings.app
  const where = `${NAME} (compress of ${routeName(route)})`
  const checked = validateOptions(where, RouteCompressSchema, own) as RouteCompressSettings
  return { ...settings.app, ...checked }
}
