/** Type augmentation of Fastify for `@restwell/prefer`. */
import type { PreferRouteConfig } from './options.js'
import type { RequestPreferences } from './state.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Prefer on this route: what it honours, its asynchronous form; `false` for none. */
    prefer?: false | PreferRouteConfig
  }
  interface FastifyRequest {
    /** The request's preferences (RFC 7240), on routes of the plugin; `null` elsewhere. */
    prefer: RequestPreferences | null
  }
}
