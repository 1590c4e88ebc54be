/** `Vary` (RFC 9110 §12.5.5): merge field names, never duplicate, case-insensitive. */
import type { FastifyReply } from 'fastify'

/**
 * Merges field names into a `Vary` value: names already present (in any case) are not added
 * again; `*` absorbs everything. Returns the new value ('' when there is nothing).
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
    if (seen.has(key)) continue
    seen.add(key)
    out.push(trimmed)
  }
  return out.join(', ')
}

/** Adds field names to the reply's `Vary` header, keeping what other plugins put there. */
export function appendVary(reply: FastifyReply, ...names: string[]): FastifyReply {
  const value = mergeVary(reply.getHeader('vary'), names)
  if (value !== '') reply.header('vary', value)
  return reply
}
