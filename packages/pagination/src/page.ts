/** Builds one page's links and meta from `request.pagination` and what the handler gives. */
import type { PageInfo, PageLinks } from '@restwell/core'
import { cursorBinding, encodeCursor } from './cursor.js'
import { CURSOR_PARAM, LIMIT_PARAM, OWN_PARAMS, PAGE_PARAM } from './query.js'
import { formatSort } from './sort.js'
import { PageUrls } from './links.js'
import type { CursorPosition, CursorValue, PaginateOptions, Pagination } from './types.js'

/** What the cursor links of a page are made with. */
export interface CursorSigning {
  route: string
  secret: string
  /** Seconds since the epoch after which new cursors expire; 0 for never. */
  expiresAt: number
}

/** The parameters a page's links rewrite: all of this plugin's but `sort`, which they keep. */
const REWRITTEN: readonly string[] = OWN_PARAMS.filter((p) => p !== 'sort')

function checkTotal(total: number | undefined): void {
  if (total !== undefined && !(Number.isSafeInteger(total) && total >= 0)) {
    throw new TypeError(`reply.paginate(): total must be a non-negative integer, got ${total}`)
  }
}

function cursorValuesOf(item: unknown, pagination: Pagination): Record<string, CursorValue> {
  const values: Record<string, CursorValue> = {}
  for (const { field } of pagination.sort) {
    const value =
      typeof item === 'object' && item !== null
        ? (item as Record<string, unknown>)[field]
        : undefined
    if (
      value === null ||
      value === undefined ||
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      (value instanceof Date && !Number.isNaN(value.getTime()))
    ) {
      values[field] = value ?? null
    } else {
      throw new TypeError(
        `reply.paginate(): sort field "${field}" of an item must be a string, finite number, boolean, valid Date or null`,
      )
    }
  }
  return values
}

/**
 * The page a handler sends: its items (trimmed to `limit`), links and meta. `url` is the
 * request URL; `signing` is required on cursor routes.
 */
export function buildPage(
  url: string,
  pagination: Pagination,
  given: readonly unknown[],
  options: PaginateOptions,
  signing: CursorSigning | undefined,
): PageInfo {
  checkTotal(options.total)
  const { limit, page } = pagination
  const backwards = pagination.cursor?.direction === 'before'
  const overflow = given.length > limit
  // Items come in sort order. Over-fetched extras lie beyond the page in the direction it is
  // walked: after it going forward (drop the tail), before it for a `before` cursor (drop
  // the head), so the page stays the `limit` items next to the cursor.
  const items = overflow
    ? backwards
      ? given.slice(given.length - limit)
      : given.slice(0, limit)
    : given
  const total = options.total
  const urls = new PageUrls(url, REWRITTEN)

  if (signing === undefined) {
    const totalPages = total === undefined ? undefined : Math.ceil(total / limit)
    const last = totalPages === undefined ? undefined : Math.max(1, totalPages)
    const more =
      options.hasMore ??
      (overflow || (totalPages === undefined ? items.length === limit : page < totalPages))
    const at = (n: number): string =>
      urls.with([
        [PAGE_PARAM, n],
        [LIMIT_PARAM, limit],
      ])
    const links: PageLinks = { self: at(page), first: at(1) }
    if (page > 1) links.prev = at(last === undefined ? page - 1 : Math.min(page - 1, last))
    if (more) links.next = at(page + 1)
    if (last !== undefined) links.last = at(last)
    const meta: PageInfo['meta'] = { page, limit }
    if (total !== undefined) {
      meta.total = total
      meta.totalPages = totalPages
    }
    return { items, links, meta }
  }

  const binding = cursorBinding(signing.route, formatSort(pagination.sort), pagination.filters)
  const at = (position: CursorPosition | undefined): string =>
    urls.with([
      [
        CURSOR_PARAM,
        position && encodeCursor(position, binding, signing.secret, signing.expiresAt),
      ],
      [LIMIT_PARAM, limit],
    ])
  const from = pagination.cursor
  const more = options.hasMore ?? (overflow || items.length === limit)
  const first = items[0]
  const lastItem = items[items.length - 1]
  const links: PageLinks = { self: at(from), first: at(undefined) }
  // Walking backwards, `more` is about the items before this page; there are items after it.
  const hasPrev = items.length > 0 && (backwards ? more : from !== undefined)
  // A `before` position without values is the end of the collection: nothing comes after it.
  const hasNext =
    items.length > 0 && (from?.direction === 'before' ? Object.keys(from.values).length > 0 : more)
  if (hasPrev) links.prev = at({ direction: 'before', values: cursorValuesOf(first, pagination) })
  if (hasNext) links.next = at({ direction: 'after', values: cursorValuesOf(lastItem, pagination) })
  links.last = at({ direction: 'before', values: {} })
  return { items, links, meta: total === undefined ? { limit } : { limit, total } }
}
