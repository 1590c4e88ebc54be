/** The error a plugin throws for routes it cannot reach. */
import { type RouteEntry, routeName } from '@restwell/core'

/** The most routes a {@link RoutesOutOfReachError} message names; the rest are counted. */
const NAMED_ROUTES = 10

/**
 * Why routes are out of a plugin's reach: declared in encapsulated plugins that loaded `before`
 * it, or `outside` the plugin it was registered in (itself encapsulated, without `fastify-plugin`).
 */
export type OutOfReach = 'before' | 'outside'

/**
 * Thrown by a plugin that cannot reach routes (see `routesOutOfReach` and `checkEveryRoute` of
 * `@restwell/core`): registration, or `ready()`, fails with the routes named and the fix, logger
 * or not.
 */
export class RoutesOutOfReachError extends Error {
  override readonly name: string = 'RoutesOutOfReachError'
  readonly code: string = 'RESTWELL_ROUTES_OUT_OF_REACH'
  /** `METHOD /url` of each route out of reach. */
  readonly routes: readonly string[]

  constructor(plugin: string, routes: readonly RouteEntry[], why: OutOfReach = 'before') {
    const named = routes.map(routeName)
    const more = named.length > NAMED_ROUTES ? ` and ${named.length - NAMED_ROUTES} more` : ''
    const list = `${named.slice(0, NAMED_ROUTES).join(', ')}${more}`
    super(
      why === 'before'
        ? `${plugin}: ${list} were declared in plugins that loaded before ${plugin}; Fastify gave them their hooks and error handler then, so none of its conventions (nor its masked 500s) would apply to them. Register ${plugin} first: \`await app.register(${plugin})\` before registering the plugins that declare routes.`
        : `${plugin}: ${list} are outside the plugin ${plugin} was registered in, which is encapsulated (not wrapped with \`fastify-plugin\`, as a \`plugins/\` file of \`@fastify/autoload\` must be), so none of its conventions (nor its masked 500s) would apply to them. Register ${plugin} at the root, \`await app.register(${plugin})\`, or wrap the plugin that registers it with \`fastify-plugin\`.`,
    )
    this.routes = named
  }
}
