/**
 * The rate-limit convention: 429 + `Retry-After` + `X-RateLimit-*` or the IETF `RateLimit` fields,
 * per client and per route.
 */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import {
  type RateLimitOptions,
  RateLimitOptionsSchema,
  resolveRateLimitOptions,
} from './options.js'
import { describeLimit, fieldNames } from './describe.js'
import { announcement } from './fields.js'
import { ownLimitSteps } from './own-limit.js'
import { PLUGIN, setupRateLimit } from './settings.js'

/**
 * A limit per client on every request (the root step, before auth), and a route's own limit
 * (`config.rateLimit`: an object; `false`: no limit) as a step of the route: a guard before
 * auth's, or before the handler with `hook: 'preHandler'`.
 */
export const rateLimit = defineConvention({
  name: 'rateLimit',
  plugin: PLUGIN,
  phases: ['request', 'guard', 'beforeHandler'],
  options: (raw: RateLimitOptions) =>
    resolveRateLimitOptions(validateOptions(PLUGIN, RateLimitOptionsSchema, raw)),
  setup: setupRateLimit,
  app: (settings) => ({ request: settings.request }),
  route: ({ route }, settings) => ownLimitSteps(settings.limits, route, settings.plugin),
  // The fields it sends, for CORS to expose.
  contributes: (options) => ({
    responseHeaders: [
      'Retry-After',
      ...fieldNames(announcement(options.headers, options.policy, undefined)),
    ],
  }),
  // The fields of the limit the route meets (its own, else the root one) and its 429.
  describe: ({ route, config }, settings) => {
    if (config === undefined) return describeLimit(settings.root)
    const own = settings.limits.described.get(route)
    // @fastify/rate-limit refuses a route whose config.rateLimit is not an object, so a route
    // with one always had its own limit prepared when it was added.
    /* c8 ignore next */
    return own === undefined ? undefined : describeLimit(own)
  },
})
