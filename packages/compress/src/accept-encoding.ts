/** The content coding an `Accept-Encoding` value prefers among the offered ones (RFC 9110 §12.5.3). */
import { parseList } from '@restwell/core/internal'

/** A coding's name as compared: case-insensitive, `x-gzip` as `gzip` (RFC 9110 §8.4.1.3). */
function codingName(value: string): string {
  const name = value.toLowerCase()
  return name === 'x-gzip' ? 'gzip' : name
}

/**
 * The offered coding `header` gives the highest weight, the first offered among equals (the
 * server's order of preference); null when none is acceptable (identity is sent). A coding's
 * weight is the highest of the members naming it, else that of the first `*` (which stands for
 * the codings the field does not name); `q=0` refuses. Read with `parseList`, as
 * `@restwell/conditional` reads the field: a malformed member is skipped. Linear; never throws.
 */
export function preferredCoding<C extends string>(header: string, offered: readonly C[]): C | null {
  const named = new Map<string, number>()
  let wildcard: number | undefined
  for (const { value, q } of parseList(header).elements) {
    const name = codingName(value)
    if (name === '*') wildcard ??= q
    else named.set(name, Math.max(named.get(name) ?? 0, q))
  }
  let best: C | null = null
  let weight = 0
  for (const coding of offered) {
    const q = named.get(coding) ?? wildcard ?? 0
    if (q > weight) {
      best = coding
      weight = q
    }
  }
  return best
}
