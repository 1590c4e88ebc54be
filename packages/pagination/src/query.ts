/** Reads `request.pagination` from the query string of a paginated route. */
import { type ErrorCodeName, ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import { cursorBinding, decodeCursor } from './cursor.js'
import { coerceFilter, type FilterSpec } from './filters.js'
import { formatSort, parseSort } from './sort.js'
import type { Pagination, SortKey } from './types.js'

/** The query parameters pagination itself reads. */
export const PAGE_PARAM = 'page'
export const LIMIT_PARAM = 'limit'
export const SORT_PARAM = 'sort'
export const CURSOR_PARAM = 'cursor'
export const OWN_PARAMS: readonly string[] = [PAGE_PARAM, LIMIT_PARAM, SORT_PARAM, CURSOR_PARAM]

/** Everything decided about one route when it is registered. */
export interface RoutePlan {
  /** The route's URL pattern, to which its cursors are bound. */
  route: string
  defaultLimit: number
  maxLimit: number
  /** The largest page whose offset is still a safe integer. */
  maxPage: number
  clamp: boolean
  cursor: boolean
  sortable: ReadonlySet<string>
  defaultSort: readonly SortKey[]
  /** Appended to the sort of a cursor route when the sort lacks it. */
  tiebreaker: string
  filters: ReadonlyMap<string, FilterSpec>
  /** Parameters that are neither pagination nor filters but allowed. */
  allowed: ReadonlySet<string>
  unknownFilters: 'reject' | 'ignore'
  cursorSecrets: readonly string[]
}

const DIGITS = /^\d+$/

function invalid(code: ErrorCodeName, param: string, message: string): HttpError {
  return httpErrors.badRequest(`Invalid query parameter "${param}": ${message}`, {
    code,
    details: [{ field: `querystring/${param}`, message, code }],
  })
}

/** The single string value of a parameter, or a problem when it repeats. */
function single(
  query: Record<string, unknown>,
  param: string,
  code: ErrorCodeName,
): string | undefined {
  const raw = query[param]
  if (raw === undefined) return undefined
  if (typeof raw !== 'string') throw invalid(code, param, 'must be given once')
  return raw
}

function positiveInteger(
  query: Record<string, unknown>,
  param: string,
  fallback: number,
  max: number,
  clamp: boolean,
): number {
  const raw = single(query, param, ErrorCode.INVALID_PAGINATION)
  if (raw === undefined) return fallback
  if (!DIGITS.test(raw))
    throw invalid(ErrorCode.INVALID_PAGINATION, param, 'must be a positive integer')
  // Beyond 16 digits Number() rounds; any such value is above `max` anyway.
  const value = raw.length > 16 ? Number.POSITIVE_INFINITY : Number(raw)
  if (value < 1) {
    if (clamp) return 1
    throw invalid(ErrorCode.INVALID_PAGINATION, param, 'must be at least 1')
  }
  if (value > max) {
    if (clamp) return max
    throw invalid(ErrorCode.INVALID_PAGINATION, param, `must be at most ${max}`)
  }
  return value
}

function sortOf(query: Record<string, unknown>, plan: RoutePlan): SortKey[] {
  const raw = single(query, SORT_PARAM, ErrorCode.INVALID_SORT)
  let sort: SortKey[] = [...plan.defaultSort]
  if (raw !== undefined) {
    const parsed = parseSort(raw, plan.sortable)
    if ('problem' in parsed) throw invalid(ErrorCode.INVALID_SORT, SORT_PARAM, parsed.problem)
    sort = parsed.sort
  }
  if (plan.cursor && !sort.some((key) => key.field === plan.tiebreaker)) {
    sort.push({ field: plan.tiebreaker, direction: 'asc' })
  }
  return sort
}

function filtersOf(query: Record<string, unknown>, plan: RoutePlan): Record<string, unknown> {
  const filters: Record<string, unknown> = {}
  for (const param of Object.keys(query)) {
    if (OWN_PARAMS.includes(param)) continue
    const spec = plan.filters.get(param)
    if (spec === undefined) {
      if (plan.unknownFilters === 'reject' && !plan.allowed.has(param)) {
        throw invalid(ErrorCode.INVALID_FILTER, param, 'is not a filter of this collection')
      }
      continue
    }
    const result = coerceFilter(query[param], spec)
    if ('problem' in result) throw invalid(ErrorCode.INVALID_FILTER, param, result.problem.message)
    filters[param] = result.value
    // Hand the coerced value on to the route's querystring schema validation.
    query[param] = result.value
  }
  return filters
}

/**
 * Parses and checks the pagination parameters of one request against its route's plan.
 * Throws a 400 `HttpError` naming the parameter. Writes the coerced `page`, `limit` and
 * filters back into `query` so a querystring schema validates the values that are used.
 */
export function readPagination(
  query: Record<string, unknown>,
  plan: RoutePlan,
  now: number,
): Pagination {
  const limit = positiveInteger(query, LIMIT_PARAM, plan.defaultLimit, plan.maxLimit, plan.clamp)
  const sort = sortOf(query, plan)
  const filters = filtersOf(query, plan)
  query[LIMIT_PARAM] = limit
  if (!plan.cursor) {
    if (query[CURSOR_PARAM] !== undefined) {
      throw invalid(
        ErrorCode.INVALID_CURSOR,
        CURSOR_PARAM,
        'this collection is paginated with "page"',
      )
    }
    const page = positiveInteger(query, PAGE_PARAM, 1, plan.maxPage, plan.clamp)
    query[PAGE_PARAM] = page
    return { mode: 'offset', page, limit, offset: (page - 1) * limit, sort, filters }
  }
  if (query[PAGE_PARAM] !== undefined) {
    throw invalid(
      ErrorCode.INVALID_PAGINATION,
      PAGE_PARAM,
      'this collection is paginated with "cursor"',
    )
  }
  const pagination: Pagination = { mode: 'cursor', page: 1, limit, offset: 0, sort, filters }
  const token = single(query, CURSOR_PARAM, ErrorCode.INVALID_CURSOR)
  if (token === undefined) return pagination
  const decoded = decodeCursor(token, plan.cursorSecrets, now)
  if ('problem' in decoded) throw invalid(ErrorCode.INVALID_CURSOR, CURSOR_PARAM, decoded.problem)
  if (decoded.binding !== cursorBinding(plan.route, formatSort(sort), filters)) {
    throw invalid(
      ErrorCode.INVALID_CURSOR,
      CURSOR_PARAM,
      'was made for another sort or other filters; start again without a cursor',
    )
  }
  pagination.cursor = decoded.position
  return pagination
}
