/** Type augmentation of Fastify for `@restwell/cors`. */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: no CORS headers on this route's answers, nor on a preflight asking about it. */
    cors?: false
  }
}

export {}
