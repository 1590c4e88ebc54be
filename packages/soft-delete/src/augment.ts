/** Type augmentation of Fastify for `@restwell/soft-delete`. */
import type { RouteSoftDeleteConfig } from './options.js'
import type { Inclusion } from './resource.js'

/** `request.softDelete`: what the handler should show and whether the request restores. */
export interface SoftDeleteRequest {
  /** `active` (default), `all` (`?deleted=include`) or `deleted` (`?deleted=only`). */
  include: Inclusion
  /** True when the body asks to restore (`PATCH { "deleted": false }`); set before the handler. */
  restore: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Soft delete on this route: `true` (plugin defaults), an object, or `false`/absent. */
    softDelete?: boolean | RouteSoftDeleteConfig
  }
  interface FastifyRequest {
    /** Set on routes with `config.softDelete`; `null` elsewhere. */
    softDelete: SoftDeleteRequest | null
  }
  interface FastifyReply {
    /** Sends a soft-deleted resource: 200 with `deleted: true` and `deletedAt` (marked now if it is not yet). */
    softDeleted<T extends object>(resource: T): FastifyReply
    /** Sends a restored resource: 200 without `deleted` and `deletedAt`. */
    restored<T extends object>(resource: T): FastifyReply
    /** Ends a hard delete: 204 No Content. */
    hardDeleted(): FastifyReply
  }
}
