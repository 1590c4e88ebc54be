/** The shapes `@restwell/pagination` hands to handlers and takes back from them. */

/** One key of the sort order: `?sort=-year` is `{ field: 'year', direction: 'desc' }`. */
export interface SortKey {
  field: string
  direction: 'asc' | 'desc'
}

/** A value a cursor can carry: what a sort key of an item may hold. */
export type CursorValue = string | number | boolean | null | Date

/**
 * Where a cursor points: the items strictly `after` (next page) or strictly `before` (previous
 * page) the item whose sort key values are `values`, in the request's sort order. A `before`
 * position with no `values` means "the end of the collection".
 */
export interface CursorPosition {
  direction: 'after' | 'before'
  values: Readonly<Record<string, CursorValue>>
}

/** `request.pagination`: everything a handler needs to query one page. */
export interface Pagination {
  /** `offset` for `?page=`, `cursor` for `?cursor=` routes. */
  mode: 'offset' | 'cursor'
  /** 1-based page number (always 1 on cursor routes). */
  page: number
  limit: number
  /** `(page - 1) * limit` (always 0 on cursor routes). */
  offset: number
  /** The requested sort, or the route's default; on cursor routes ends with the tiebreaker. */
  sort: readonly SortKey[]
  /** Filter values by field, coerced to the field's schema type. */
  filters: Readonly<Record<string, unknown>>
  /** The position a `?cursor=` points at; absent on the first page. */
  cursor?: CursorPosition
}

/** The second argument of `reply.paginate(items, options)`. */
export interface PaginateOptions {
  /** Total number of items matching the filters; enables `last`, `totalPages` and the total header. */
  total?: number
  /**
   * Whether items exist beyond this page (after it, or before it for a `before` cursor).
   * Without it: true when more than `limit` items are given (the extra ones are dropped: the
   * last ones, or the first ones for a `before` cursor), else computed from `total`, else
   * assumed when the page is full.
   */
  hasMore?: boolean
}
