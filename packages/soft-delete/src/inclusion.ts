/** `?deleted=exclude|include|only` and `?include=...,deleted`: which items a request shows. */
import { ErrorCode, httpErrors } from '@restwell/errors'
import type { Inclusion } from './resource.js'

/** Values of the `deleted` parameter and what they show. */
export const INCLUSION_VALUES: Readonly<Record<string, Inclusion>> = {
  exclude: 'active',
  include: 'all',
  only: 'deleted',
}

/** Most comma-separated tokens of the include parameter read. */
export const MAX_INCLUDE_TOKENS = 64

function single(query: Record<string, unknown>, param: string): string | undefined {
  const raw = query[param]
  if (raw === undefined || typeof raw === 'string') return raw
  throw httpErrors.badRequest(`Invalid query parameter "${param}": must be given once`, {
    code: ErrorCode.INVALID_FILTER,
    details: [
      {
        field: `querystring/${param}`,
        message: 'must be given once',
        code: ErrorCode.INVALID_FILTER,
      },
    ],
  })
}

function listsDeleted(raw: string): boolean {
  let start = 0
  for (let n = 0; n < MAX_INCLUDE_TOKENS && start <= raw.length; n++) {
    let end = raw.indexOf(',', start)
    if (end === -1) end = raw.length
    if (raw.slice(start, end).trim() === 'deleted') return true
    start = end + 1
  }
  return false
}

/**
 * Reads which items a request shows. `param` wins over `includeParam`; a bad or repeated
 * `param` value is a 400 with code `INVALID_FILTER`.
 */
export function readInclusion(
  query: Record<string, unknown>,
  param: string,
  includeParam: string | false,
): Inclusion {
  const raw = single(query, param)
  if (raw !== undefined) {
    const include = Object.hasOwn(INCLUSION_VALUES, raw) ? INCLUSION_VALUES[raw] : undefined
    if (include === undefined) {
      const message = 'must be one of "exclude", "include", "only"'
      throw httpErrors.badRequest(`Invalid query parameter "${param}": ${message}`, {
        code: ErrorCode.INVALID_FILTER,
        details: [{ field: `querystring/${param}`, message, code: ErrorCode.INVALID_FILTER }],
      })
    }
    return include
  }
  if (includeParam === false) return 'active'
  const list = query[includeParam]
  const lists = Array.isArray(list) ? list : [list]
  return lists.some((item) => typeof item === 'string' && listsDeleted(item)) ? 'all' : 'active'
}
