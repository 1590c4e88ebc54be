/** Type augmentation of Fastify for `@restwell/cache-control`. */
import type { CacheDirectives } from './directives.js'

/**
 * `config.cache` of one route: the policy of its successful GET/HEAD responses (replacing the
 * plugin-wide `policy` as a whole), plus Vary settings; `false` turns the plugin off for the route.
 */
export interface CacheRouteConfig extends CacheDirectives {
  /** Request headers added to `Vary` on every response of the route. [plugin `vary`, added to] */
  vary?: string[]
  /** Add `Vary: Authorization` to storable responses if the route authenticates (see the plugin option). [plugin `varyAuthorization`] */
  varyAuthorization?: boolean
  /**
   * The route checks credentials itself (a hook of the app's, a session): its answers depend on
   * who asks, as those of a route `@restwell/auth` guards. [`@restwell/auth`'s guard decides]
   */
  authenticates?: true
}

declare module 'fastify' {
  interface FastifyContextConfig {
    cache?: false | CacheRouteConfig
  }
  interface FastifyReply {
    /**
     * Sets this response's caching policy (any method), replacing the route's. Applied when the
     * response is sent, and only if it is a success (2xx/3xx): an error is always `no-store`.
     * Throws a `TypeError` on an impossible policy. Returns the reply.
     */
    cachePolicy(directives: CacheDirectives): FastifyReply
  }
}
