/** `Vary` (RFC 9110 §12.5.5): field names merged once each, case-insensitively; `*` absorbs all. */
import type { FastifyReply } from 'fastify'

/** Most field names kept in one `Vary` value. */
export const MAX_VARY_FIELDS = 64

/**
 * Merges field names into a `Vary` value: a name already present (in any case) is not added
 * again, the first spelling is kept, `*` absorbs everything. Returns the new value (`''` when
 * there is nothing). Linear; never throws; keeps at most `MAX_VARY_FIELDS` names.
 */
export function mergeVary(existing: unknown, names: readonly string[]): string {
  const current =
    typeof existing === 'string'
      ? existing
      : Array.isArray(existing)
        ? existing.filter((v): v is string => typeof v === 'string').join(',')
        : ''
  const seen = new Set<string>()
  const out: string[] = []
  for (const name of [...current.split(','), ...names]) {
    const trimmed = name.trim()
    if (trimmed === '') continue
    if (trimmed === '*') return '*'
    const key = trimmed.toLowerCase()
    if (seen.has(key) || out.length >= MAX_VARY_FIELDS) continue
    seen.add(key)
    out.push(trimmed)
  }
  return out.join(', ')
}

/** Adds field names to the reply's `Vary`, keeping (and de-duplicating) what is there. */
export function appendVary(reply: FastifyReply, ...names: string[]): FastifyReply {
  const value = mergeVary(reply.getHeader('vary'), names)
  if (value !== '') reply.header('vary', value)
  return reply
}
