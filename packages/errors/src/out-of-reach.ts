/** The error a plugin throws for routes it cannot reach. */
import { type RouteEntry, routeName } from '@restwell/core'

/** The most routes a {@link RoutesOutOfReachError} message names; the rest are counted. */
const NAMED_ROUTES = 10

/**
 * Thrown by a plugin that cannot reach routes declared in encapsulated plugins that loaded
 * before it (see `routesOutOfReach` of `@restwell/core`): registration, and so `ready()`, fails with the
 * routes named and the fix, logger or not.
 */
export class RoutesOutOfReachError extends Error {
  override readonly name: string = 'RoutesOutOfReachError'
  readonly code: string = 'RESTWELL_ROUTES_OUT_OF_REACH'
  /** `METHOD /url` of each route out of reach. */
  readonly routes: readonly string[]

  constructor(plugin: string, routes: readonly RouteEntry[]) {
    const named = routes.map(routeName)
    const more = named.length > NAMED_ROUTES ? ` and ${named.length - NAMED_ROUTES} more` : ''
    super(
      `${plugin}: ${named.slice(0, NAMED_ROUTES).join(', ')}${more} were declared in plugins that loaded before ${plugin}; Fastify gave them their hooks and error handler then, so none of its conventions (nor its masked 500s) would apply to them. Register ${plugin} first: \`await app.register(${plugin})\` before registering the plugins that declare routes.`,
    )
    this.routes = named
  }
}
