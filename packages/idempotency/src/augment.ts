/** Type augmentation of Fastify for `@restwell/idempotency`. */

/** `config.idempotency` of one route: `true` takes a key, `false` none (with `everyRoute`). */
export interface IdempotencyRouteSettings {
  /** A request without a key is refused with 400. [plugin `required`] */
  required?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    idempotency?: boolean | IdempotencyRouteSettings
  }
}
