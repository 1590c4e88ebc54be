/** What the plugin sets up once per registration: the store and its closing. */
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import { defaultScope } from './fingerprint.js'
import { memoryStore } from './memory.js'
import type { ResolvedIdempotencyOptions } from './options.js'
import { redisStore } from './redis.js'
import { type IdempotencySettings, PLUGIN, type RouteSettings } from './steps.js'
import type { IdempotencyRouteConfig } from './options.js'
import type { RouteContext } from '@restwell/core'

/** Opens the store (closed with the app) and declares the reply's state. */
export async function setupIdempotency(
  fastify: FastifyInstance,
  options: ResolvedIdempotencyOptions,
): Promise<IdempotencySettings> {
  const store =
    'redis' in options.store
      ? await redisStore({ ...options.store, timeoutMs: options.timeoutMs }, fastify.log)
      : memoryStore(options.store.maxKeys)
  fastify.addHook('onClose', () => store.close())
  return { options, store, scope: options.scope ?? defaultScope, log: fastify.log }
}

/**
 * The settings of one route, or undefined where it takes no key: a route takes one when it sets
 * `config.idempotency` (or with `everyRoute`) and serves a method of `methods`. A route that
 * sets it and serves none is refused: its config would do nothing.
 */
export function routeSettings(
  context: RouteContext<IdempotencyRouteConfig>,
  settings: IdempotencySettings,
): RouteSettings | undefined {
  const { options } = settings
  const { config, methods, name } = context
  if (config === undefined && !options.everyRoute) return undefined
  const taken = methods.filter((method) => options.methods.has(method))
  if (taken.length === 0) {
    if (config === undefined) return undefined
    throw new OptionsError(
      PLUGIN,
      `config.idempotency of ${name}`,
      `is set on a route of no method that takes a key (${[...options.methods].join(', ')}): drop it, or add the route's method to the plugin's "methods"`,
    )
  }
  return {
    settings,
    route: context.route.url,
    required: config?.required ?? options.required,
    methods: taken.length === methods.length ? undefined : new Set(taken),
  }
}
