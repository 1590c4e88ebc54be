/**
 * Type augmentation of Fastify for the umbrella's own config key. The options of the libraries
 * and packages it wires in (`config.rateLimit`, the route options `compress` and `decompress`)
 * come with their type re-exports in `index.ts`: a named import is what keeps their
 * augmentations in the CommonJS declarations too.
 */
import type {} from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: no CORS headers on this route's answers, nor on a preflight asking about it. */
    cors?: false
  }
}
