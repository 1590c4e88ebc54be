/** Type augmentation of Fastify for `@restwell/versioning`. */
import 'fastify'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The API version being served: the `N` of the `/v<N>` route that answers, or of the
     * version whose unprefixed twin does (by header, query or default), or undefined on an
     * unversioned route.
     */
    readonly apiVersion: number | undefined
  }
  interface FastifyContextConfig {
    /** `false`: this versioned route sends no version headers (API-Version, Vary, Deprecation...). */
    versioning?: false
  }
}
