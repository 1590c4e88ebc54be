/**
 * Sets up rate limits: `@fastify/rate-limit` configured (its store, keys, headers and a route's
 * own limits) and the root step, which limits every request, the 404/405 path included.
 */
import type { RateLimitPluginOptions } from '@fastify/rate-limit'
import {
  optionNaming,
  RegistrationError,
  type RequestStep,
  type SetupContext,
} from '@restwell/core'
import { adoptionBatch, refuseBeside, routeConfigReader } from '@restwell/core/internal'
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { rateLimited } from './answers.js'
import type { DescribedLimit } from './describe.js'
import { type Announcement, announcement } from './fields.js'
import { memoryRateLimitStep } from './memory.js'
import { type ResolvedRateLimitOptions, shown, WINDOW_RULE, windowMs } from './options.js'
import { type OwnLimits, ownLimits, prepareOwnLimits } from './own-limit.js'
import { computedKeyFirst, type Limiter, limiterStep, ROOT_KEY } from './store.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/rate-limit'

/** What the steps read. */
export interface RateLimitSettings {
  /** The root step: the limit of every request whose route has no `config.rateLimit`. */
  readonly request: RequestStep
  /** The routes' own limits, from the route being added to its steps. */
  readonly limits: OwnLimits
  /** Who names a route's bad `config.rateLimit` in the error: the plugin, or the umbrella. */
  readonly plugin: string
  /** The root limit, as the OpenAPI document tells it. */
  readonly root: DescribedLimit
}

/** The root window in ms; an unreadable `timeWindow` fails registration. */
function rootWindow(options: ResolvedRateLimitOptions, context: SetupContext): number {
  const ms = windowMs(options.timeWindow)
  if (ms !== undefined) return ms
  const naming = optionNaming({ name: 'rateLimit', plugin: PLUGIN }, context)
  throw new OptionsError(
    naming.plugin,
    naming.option('timeWindow'),
    `${WINDOW_RULE} (got ${shown(options.timeWindow)})`,
  )
}

/** What `@fastify/rate-limit` is given: no global hook (the root step is ours), our 429. */
function libraryOptions(
  options: ResolvedRateLimitOptions,
  window: number,
  announced: Announcement,
): RateLimitPluginOptions {
  const { redis, keyGenerator } = options
  return {
    global: false,
    max: options.max,
    timeWindow: window,
    ...(redis === undefined ? {} : { redis: redis as RateLimitPluginOptions['redis'] }),
    nameSpace: options.nameSpace,
    skipOnError: false,
    allowList: [...options.allowList],
    ...(keyGenerator === undefined
      ? {}
      : { keyGenerator: redis === undefined ? keyGenerator : computedKeyFirst(keyGenerator) }),
    // The root limit's 429; a route's own limit has a builder of its own (`ownLimit`).
    errorResponseBuilder: (_request, context) =>
      rateLimited(context.max, context.after, announced.policy),
  }
}

/** The refusal of `@fastify/rate-limit` registered beside this plugin. */
function twoLimiters(when: 'before' | 'after'): RegistrationError {
  return new RegistrationError(
    `${PLUGIN}: @fastify/rate-limit is registered ${when} it: both would count requests and answer 429. Remove @fastify/rate-limit: ${PLUGIN} configures it (a route's own \`config.rateLimit\` works as with it).`,
  )
}

/**
 * Configures `@fastify/rate-limit` on `fastify` and makes the root step: in memory a counter of
 * our own (`memoryRateLimitStep`), with Redis the library's limiter. Alone, `@fastify/rate-limit`
 * registered too is refused, and routes added before the plugin get their own limits as well.
 */
export async function setupRateLimit(
  fastify: FastifyInstance,
  options: ResolvedRateLimitOptions,
  context: SetupContext,
): Promise<RateLimitSettings> {
  const window = rootWindow(options, context)
  const announced = announcement(options.headers, options.policy, window)
  const plugin = optionNaming({ name: 'rateLimit', plugin: PLUGIN }, context).plugin
  if (!context.pipeline) refuseBeside(fastify, '@fastify/rate-limit', twoLimiters)
  // Under the umbrella, its batch runs every onRoute hook over the routes added before it.
  const adoptEarlierRoutes = context.pipeline ? undefined : adoptionBatch(fastify)
  const limits = ownLimits()
  // Before the library's own onRoute hook, which makes each route's own limiter.
  fastify.addHook('onRoute', prepareOwnLimits(limits, options, window, plugin))
  if (options.redis !== undefined) fastify.decorateRequest(ROOT_KEY as unknown as string, null)
  // Imported here, not at the top: an app that turns rate limits off never loads it. Called on
  // this instance rather than registered: its decorators and onRoute hook land here as they
  // would, but not its name, so an app's own @fastify/rate-limit is told apart by `hasPlugin`.
  const { fastifyRateLimit } = await import('@fastify/rate-limit')
  await (fastifyRateLimit as unknown as FastifyPluginAsync<RateLimitPluginOptions>)(
    fastify,
    libraryOptions(options, window, announced),
  )
  adoptEarlierRoutes?.()
  const limit =
    options.redis === undefined
      ? memoryRateLimitStep(options, window)
      : limiterStep(fastify.rateLimit() as Limiter, {
          redis: true,
          storeTimeout: options.storeTimeout,
          failOpen: options.failOpen,
          keyOf: options.keyGenerator,
          announced,
        })
  const routeLimit = routeConfigReader(fastify, 'rateLimit')
  return {
    // A route with `config.rateLimit` (its own limit, or `false`) is not the root step's to count.
    request: function restwellRateLimit(request, reply) {
      if (routeLimit(request) != null) return undefined
      return limit(request, reply)
    },
    limits,
    plugin,
    root: { announced, quota: options.max, phase: 'onRequest' },
  }
}
