/** Type augmentation of Fastify for `@restwell/digest`. */
import type { DigestRouteConfig } from './options.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Integrity fields on this route: `repr`, `content`, `verify` over the plugin's, or `false`. */
    digest?: false | DigestRouteConfig
  }
}
