/**
 * `applyPagination`: runs `request.pagination` over an in-memory array (filters by equality, or
 * membership for an array field, sorts, then takes the page by offset or cursor). For tests, small collections and as the
 * reference of what a database query must do.
 */
import type { CursorValue, Pagination, SortKey } from './types.js'

/** One page cut from an array, ready for `reply.paginate(items, { total, hasMore })`. */
export interface PaginatedSlice<T> {
  items: T[]
  /** Items matching the filters. */
  total: number
  /** Items exist beyond this page in the direction it was walked. */
  hasMore: boolean
}

function rank(value: unknown): number {
  if (value === null || value === undefined) return 0
  if (typeof value === 'boolean') return 1
  if (typeof value === 'number' || value instanceof Date) return 2
  return 3
}

/** Orders two sort values: null first, then booleans, numbers and dates, then strings. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb || ra === 0) return ra - rb
  const x = a instanceof Date ? a.getTime() : ra === 3 ? String(a) : Number(a)
  const y = b instanceof Date ? b.getTime() : rb === 3 ? String(b) : Number(b)
  return x < y ? -1 : x > y ? 1 : 0
}

function compareBy(
  sort: readonly SortKey[],
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): number {
  for (const { field, direction } of sort) {
    const order = compareValues(a[field], b[field])
    if (order !== 0) return direction === 'desc' ? -order : order
  }
  return 0
}

/**
 * Whether `item` passes every filter: its field equals the value, or one of the values of a
 * repeated filter; a field holding an array passes when it contains one of them.
 */
function matches(
  item: Record<string, unknown>,
  filters: Readonly<Record<string, unknown>>,
): boolean {
  for (const [field, wanted] of Object.entries(filters)) {
    const accepted: readonly unknown[] = Array.isArray(wanted) ? wanted : [wanted]
    const value = item[field]
    const found = Array.isArray(value)
      ? value.some((member) => accepted.includes(member))
      : accepted.includes(value)
    if (!found) return false
  }
  return true
}

/** Cuts the page `pagination` asks for out of `all` (which is not modified). */
export function applyPagination<T extends object>(
  all: readonly T[],
  pagination: Pagination,
): PaginatedSlice<T> {
  const rows = all as readonly Record<string, unknown>[]
  const { sort, limit, cursor } = pagination
  const found = rows.filter((item) => matches(item, pagination.filters))
  found.sort((a, b) => compareBy(sort, a, b))
  const total = found.length
  if (pagination.mode === 'offset') {
    const items = found.slice(pagination.offset, pagination.offset + limit) as T[]
    return { items, total, hasMore: pagination.offset + limit < total }
  }
  if (cursor === undefined) {
    return { items: found.slice(0, limit) as T[], total, hasMore: total > limit }
  }
  const anchor = cursor.values as Record<string, CursorValue>
  if (cursor.direction === 'after') {
    const rest = found.filter((item) => compareBy(sort, item, anchor) > 0)
    return { items: rest.slice(0, limit) as T[], total, hasMore: rest.length > limit }
  }
  const end = Object.keys(anchor).length === 0
  const before = end ? found : found.filter((item) => compareBy(sort, item, anchor) < 0)
  const start = Math.max(0, before.length - limit)
  return { items: before.slice(start) as T[], total, hasMore: start > 0 }
}
