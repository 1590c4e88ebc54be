/** Type augmentation of Fastify for `@restwell/naming`. */
import 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: this route's path is not checked against the naming rules. */
    naming?: false
  }
}
