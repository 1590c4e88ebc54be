/** The cache-control convention: an explicit `Cache-Control` and an exact `Vary` on every answer. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import {
  type CacheControlOptions,
  CacheControlOptionsSchema,
  CacheRouteConfigSchema,
  resolveCacheControlOptions,
} from './options.js'
import { NAME, routeSettings, sendStep, setupCacheControl } from './policy.js'

/**
 * `Cache-Control` on every answer, by its final status (RFC 9111 §5.2), and `Vary` completed
 * (RFC 9110 §12.5.5): on a route's answers (`config.cache`) and on those of no route.
 */
export const cacheControl = defineConvention({
  name: 'cacheControl',
  plugin: NAME,
  phases: ['send', 'notFoundSend'],
  routeConfigKey: 'cache',
  options: (raw: CacheControlOptions) =>
    resolveCacheControlOptions(validateOptions(NAME, CacheControlOptionsSchema, raw)),
  routeConfig: (raw: unknown, where: string) => validateOptions(where, CacheRouteConfigSchema, raw),
  setup: setupCacheControl,
  app: (settings) => ({ notFoundSend: sendStep(settings.notFound) }),
  route: ({ route, config, name }, settings) => ({
    send: sendStep(routeSettings(settings, route, config, `${NAME} (config.cache of ${name})`)),
  }),
})
