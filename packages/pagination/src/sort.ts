/** `?sort=field,-other`: a comma list of fields, `-` for descending, `+` (or none) ascending. */
import type { SortKey } from './types.js'

/** Longest `?sort=` value read; longer ones are refused without being split. */
export const MAX_SORT_LENGTH = 1024

/** Parses a sort expression against the allowed fields; returns the keys or a problem. */
export function parseSort(
  raw: string,
  sortable: ReadonlySet<string>,
): { sort: SortKey[] } | { problem: string } {
  if (raw.length > MAX_SORT_LENGTH) {
    return { problem: `must be at most ${MAX_SORT_LENGTH} characters` }
  }
  if (sortable.size === 0) return { problem: 'this collection cannot be sorted' }
  const sort: SortKey[] = []
  const seen = new Set<string>()
  for (const part of raw.split(',')) {
    // `+field` arrives as ` field` when the client did not percent-encode the plus sign.
    let key = part.trim()
    let direction: SortKey['direction'] = 'asc'
    if (key.startsWith('-')) {
      direction = 'desc'
      key = key.slice(1)
    } else if (key.startsWith('+')) {
      key = key.slice(1)
    }
    if (key === '') return { problem: 'must be a comma-separated list of field names' }
    if (!sortable.has(key)) {
      return {
        problem: `cannot sort by "${key.slice(0, 64)}"; sortable fields: ${[...sortable].join(', ')}`,
      }
    }
    if (seen.has(key)) return { problem: `names "${key}" more than once` }
    seen.add(key)
    sort.push({ field: key, direction })
  }
  return { sort }
}

/** Writes sort keys back as a `?sort=` value: `-year,title`. */
export function formatSort(sort: readonly SortKey[]): string {
  return sort.map((key) => (key.direction === 'desc' ? `-${key.field}` : key.field)).join(',')
}
