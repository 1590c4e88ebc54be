/** `Vary` (RFC 9110 §12.5.5): field names merged once each, case-insensitively; `*` absorbs all. */
import type { FastifyReply } from 'fastify'
import { fieldText } from './http.js'

/** Most field names kept in one `Vary` value. */
export const MAX_VARY_FIELDS = 64

/**
 * Merges field names into a `Vary` value: a name already present (in any case) is not added
 * again, the first spelling is kept, `*` absorbs everything. Returns the new value (`''` when
 * there is nothing). Linear; never throws; keeps at most `MAX_VARY_FIELDS` names.
 */
export function mergeVary(existing: unknown, names: readonly string[]): string {
  const current = fieldText(existing)
  // Hot path (every negotiated response): one scan, no intermediate arrays or Set; the lists
  // are short, and at most MAX_VARY_FIELDS long, so a linear look-up in `keys` is bounded.
  const out: string[] = []
  const keys: string[] = []
  let start = 0
  while (start <= current.length) {
    let comma = current.indexOf(',', start)
    if (comma === -1) comma = current.length
    if (!keep(current.slice(start, comma), out, keys)) return '*'
    start = comma + 1
  }
  for (const name of names) if (!keep(name, out, keys)) return '*'
  return out.join(', ')
}

/** Adds one field name to `out` unless present; false for `*`, which absorbs everything. */
function keep(name: string, out: string[], keys: string[]): boolean {
  const trimmed = name.trim()
  if (trimmed === '') return true
  if (trimmed === '*') return false
  const key = trimmed.toLowerCase()
  if (out.length < MAX_VARY_FIELDS && !keys.includes(key)) {
    keys.push(key)
    out.push(trimmed)
  }
  return true
}

/** Adds field names to the reply's `Vary`, keeping (and de-duplicating) what is there. */
export function appendVary(reply: FastifyReply, ...names: string[]): FastifyReply {
  const value = mergeVary(reply.getHeader('vary'), names)
  if (value !== '') reply.header('vary', value)
  return reply
}
