/** Type augmentation of Fastify for `@restwell/methods`. */
import 'fastify'

declare module 'fastify' {
  interface FastifyReply {
    /**
     * Sends 201 Created with a `Location` header (an absolute URL or a path) and the created
     * representation as the body (or no body).
     */
    created(location: string | URL, body?: unknown): FastifyReply
  }
}
