/** The method override convention: a POST turned into another method before routing. */
import { defineConvention } from '@restwell/core'
import { onEveryRoute, snapshotRoutes } from '@restwell/core/internal'
import { validateOptions } from '@restwell/errors'
import { addRewriter } from '@restwell/reroute'
import type { FastifyInstance } from 'fastify'
import {
  addOverrideConstraint,
  METHOD_OVERRIDE_ORDER,
  type OverrideSettings,
  overrideRewriter,
  overrideSettings,
} from './carriers.js'
import {
  type MethodOverrideOptions,
  MethodOverrideOptionsSchema,
  PLUGIN,
  type ResolvedMethodOverrideOptions,
  refuseHeadTarget,
  resolveMethodOverrideOptions,
} from './options.js'
import { addOverrideTwins } from './twins.js'

/**
 * Routing reaches the twin of the route for the method a POST names, the rewriter (of
 * `@restwell/reroute`) sets that method, and each route for an overridable method gets its twin.
 */
function setupMethodOverride(
  fastify: FastifyInstance,
  options: ResolvedMethodOverrideOptions,
): OverrideSettings {
  const settings = overrideSettings(options)
  addOverrideConstraint(fastify, settings)
  addRewriter(fastify, {
    name: PLUGIN,
    order: METHOD_OVERRIDE_ORDER,
    rewrite: overrideRewriter(settings),
  })
  // Twins are made from the routes' options as first given (see twins.ts).
  snapshotRoutes(fastify)
  onEveryRoute(fastify, function methodOverrideTwins(this: FastifyInstance, route) {
    addOverrideTwins(settings.methods, this, route)
  })
  return settings
}

/**
 * A POST carrying `X-HTTP-Method-Override: <METHOD>` or `?_method=<METHOD>` runs as that method,
 * routed once to the target route's POST twin, so the target's schema, hooks and handler run.
 * Its steps are those of `@restwell/reroute`; it tells CORS its header and pagination its query
 * parameter.
 */
export const methodOverride = defineConvention({
  name: 'methodOverride',
  plugin: PLUGIN,
  phases: [],
  options: (raw: MethodOverrideOptions) => {
    refuseHeadTarget(raw)
    return resolveMethodOverrideOptions(validateOptions(PLUGIN, MethodOverrideOptionsSchema, raw))
  },
  setup: setupMethodOverride,
  contributes: (options) => ({
    queryParameters: options.query === false ? [] : [options.query],
    requestHeaders: options.header === false ? [] : [options.header],
  }),
})
