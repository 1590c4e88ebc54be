/** Type augmentation of Fastify for `@restwell/pagination`. */
import type { Pagination, PaginateOptions } from './types.js'
import type { RoutePaginationConfig } from './options.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Paginates this route: `true` (plugin defaults), an object, or `false`/absent (not paginated). */
    pagination?: boolean | RoutePaginationConfig
  }
  interface FastifyRequest {
    /** The parsed `page`, `limit`, `sort`, filters and cursor; `null` on routes that are not paginated. */
    pagination: Pagination | null
  }
  interface FastifyReply {
    /**
     * Sends one page: sets `Link` (RFC 8288) and the total header, leaves the page on
     * `reply[PAGE]` for other representations, and sends `{ data, meta, links }`.
     */
    paginate(items: readonly unknown[], options?: PaginateOptions): FastifyReply
  }
}
