/** The compression convention: answers in the coding a request prefers, request bodies decoded. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { compressStep, earlyLookupStep, routeCompression } from './compression.js'
import { requestDecoder } from './decompress.js'
import { type CompressSettings, CompressSettingsSchema, resolveCompression } from './options.js'
import { NAME, routeSettings, setupCompression } from './settings.js'

/** Alone, a HEAD route's send hook comes before Fastify's, which drops the body. */
const beforeHeadDrop = (methods: readonly string[]): 'first' | 'last' =>
  methods.includes('HEAD') ? 'first' : 'last'

/**
 * gzip, br or deflate answers by `Accept-Encoding` (RFC 9110 §12.5.3), each coding with an ETag
 * of its own (§8.8.3), compressed bodies cached; request bodies in a content coding decoded
 * before they are read (§8.4). Per route: the route options `compress` and `decompress`.
 */
export const compress = defineConvention({
  name: 'compress',
  plugin: NAME,
  phases: ['beforeBody', 'serialize', 'send'],
  // Its route settings are the route options `compress` and `decompress`, as @fastify/compress's.
  routeConfigKey: false,
  options: (raw: CompressSettings | undefined) =>
    resolveCompression(validateOptions(NAME, CompressSettingsSchema, raw)),
  setup: setupCompression,
  route: ({ route, methods }, settings) => {
    const decode = requestDecoder(route, NAME)
    const own = routeSettings(route, settings)
    if (own === undefined) return decode === undefined ? undefined : { beforeBody: decode }
    const compression = routeCompression(settings.cache, own)
    // A digest known before serialization (item versions) finds a stored body: GET and QUERY.
    const early =
      settings.cache.maxBytes > 0 && (methods.includes('GET') || methods.includes('QUERY'))
    return {
      ...(decode === undefined ? {} : { beforeBody: decode }),
      ...(early ? { serialize: earlyLookupStep(compression) } : {}),
      send: compressStep(compression),
    }
  },
  // A request body may come in a coding: Content-Encoding is no CORS-safelisted header.
  contributes: () => ({ requestHeaders: ['content-encoding'] }),
  // Alone: bodies decoded before the route's own preParsing hooks read them; answers compressed
  // after the route's own onSend hooks (and after @restwell/conditional, registered before).
  alone: { beforeBody: 'first', send: beforeHeadDrop },
})
