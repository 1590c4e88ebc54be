/** `Vary` (RFC 9110 §12.5.5): field names merged once each, case-insensitively; `*` absorbs all. */
import type { FastifyReply } from 'fastify'
import { fieldText } from './http.js'

/** Most field names kept in one `Vary` value. */
export const MAX_VARY_FIELDS = 64

/**
 * The spelling `Vary` gives the request fields restwell varies on, whoever adds them and in
 * whatever case: one casing on every answer (field names are case-insensitive, RFC 9110 §5.1).
 */
const CANONICAL: ReadonlyMap<string, string> = new Map(
  [
    'Accept',
    'Accept-Charset',
    'Accept-Encoding',
    'Accept-Language',
    'Access-Control-Request-Headers',
    'Access-Control-Request-Method',
    'Authorization',
    'Cookie',
    'Origin',
  ].map((name) => [name.toLowerCase(), name]),
)

/**
 * Merges field names into a `Vary` value: a name already present (in any case) is not added
 * again, the first spelling is kept (the canonical one for the standard fields, `Accept-Encoding`
 * for `accept-encoding`), `*` absorbs everything. Returns the new value (`''` when
 * there is nothing). Linear; never throws; keeps at most `MAX_VARY_FIELDS` names.
 *
 * @param existing the current value (a string, a list of them, or nothing)
 * @param names the field names to add (a name may be a comma-separated list)
 * @example
 * mergeVary('accept-encoding, Origin', ['Accept', 'origin']) // 'Accept-Encoding, Origin, Accept'
 * mergeVary(undefined, ['*', 'Accept']) // '*'
 */
export function mergeVary(existing: unknown, names: readonly string[]): string {
  let value = fieldText(existing)
  // Adding names one at a time gives the same value as adding them together (each step keeps
  // the order, the first spelling, the cap and `*`), unless a name holds a comma: the next
  // step would read it as two. No names at all is one empty name.
  if (names.length === 0) return mergeOne(value, '')
  for (const name of names) if (name.includes(',')) return merge(value, names)
  for (const name of names) value = mergeOne(value, name)
  return value
}

/**
 * Most remembered merges (a route's responses merge the same few values); past this many the
 * memo starts over, so odd values cannot grow it.
 */
export const VARY_MEMO_SIZE = 256

const memo = new Map<string, Map<string, string>>()
let remembered = 0

function mergeOne(current: string, name: string): string {
  let byName = memo.get(current)
  const known = byName?.get(name)
  if (known !== undefined) return known
  const value = merge(current, [name])
  if (remembered >= VARY_MEMO_SIZE) {
    memo.clear()
    remembered = 0
    byName = undefined
  }
  if (byName === undefined) {
    byName = new Map()
    memo.set(current, byName)
  }
  byName.set(name, value)
  remembered++
  return value
}

function merge(current: string, names: readonly string[]): string {
  // One scan, no intermediate arrays or Set; the lists are short, and at most MAX_VARY_FIELDS
  // long, so a linear look-up in `keys` is bounded.
  const out: string[] = []
  const keys: string[] = []
  if (!keepList(current, out, keys)) return '*'
  // A name holding a comma is a list of names, as it would be once sent (RFC 9110 §5.6.1).
  for (const name of names) if (!keepList(name, out, keys)) return '*'
  return out.join(', ')
}

/** Adds each element of a comma-separated list to `out`; false for `*`. */
function keepList(list: string, out: string[], keys: string[]): boolean {
  let start = 0
  while (start <= list.length) {
    let comma = list.indexOf(',', start)
    if (comma === -1) comma = list.length
    if (!keep(list.slice(start, comma), out, keys)) return false
    start = comma + 1
  }
  return true
}

/** Adds one field name to `out` unless present; false for `*`, which absorbs everything. */
function keep(name: string, out: string[], keys: string[]): boolean {
  const trimmed = name.trim()
  if (trimmed === '') return true
  if (trimmed === '*') return false
  const key = trimmed.toLowerCase()
  if (out.length < MAX_VARY_FIELDS && !keys.includes(key)) {
    keys.push(key)
    out.push(CANONICAL.get(key) ?? trimmed)
  }
  return true
}

/**
 * Adds field names to the reply's `Vary`, keeping (and de-duplicating) what is there; a value
 * that comes out the same is not set again. Every convention adds to `Vary` through it, so none
 * drops a name another one added (see `mergeVary`).
 *
 * @param reply the reply whose `Vary` gets the names
 * @param names the request fields the answer depends on
 * @example
 * const step: SendStep = (_request, reply) => void appendVary(reply, 'Accept-Language')
 */
export function appendVary(reply: FastifyReply, ...names: string[]): FastifyReply {
  const existing = reply.getHeader('vary')
  const value = mergeVary(existing, names)
  if (value !== '' && value !== existing) reply.header('vary', value)
  return reply
}
