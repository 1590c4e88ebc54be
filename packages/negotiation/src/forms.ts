/** What the HAL, JSON:API and Siren forms of a response take from the request and the reply. */
import { apiVersionsOf, type PageInfo } from '@restwell/core'
import { safePath } from '@restwell/core/internal'

/**
 * A page with the items as the JSON envelope (`{ data, meta, links }`) carries them once read
 * as JSON sends it (through the route's response schema, `toJSON` applied): what the schema
 * leaves out of an item never reaches a form. No `data` array in the envelope (a schema
 * without one): no items, as JSON sends none.
 */
export function shownPage(page: PageInfo | undefined, envelope: unknown): PageInfo | undefined {
  if (page === undefined) return undefined
  const items = (envelope as { data?: unknown } | null)?.data
  return { ...page, items: Array.isArray(items) ? items : [] }
}

function parameterName(pair: string): string {
  const eq = pair.indexOf('=')
  const name = eq === -1 ? pair : pair.slice(0, eq)
  if (name.indexOf('%') === -1 && name.indexOf('+') === -1) return name
  try {
    return decodeURIComponent(name.replaceAll('+', ' '))
  } catch {
    return name
  }
}

/**
 * The query an item link of a collection keeps from the request URL: its `name` pairs (the
 * API version, `@restwell/versioning`'s query carrier), byte for byte as a valid URI query,
 * when versioning is registered (`API_VERSIONS` on the request) and the URL has the name
 * unescaped (as versioning reads it). Undefined otherwise: a `?version=` of an app without
 * versioning is its own business (a filter, say), not the item's.
 */
export function itemQuery(request: object, url: string, name: string): string | undefined {
  const q = url.indexOf('?')
  if (q === -1 || !url.includes(name, q)) return undefined
  const kept = url
    .slice(q + 1)
    .split('&')
    .filter((pair) => parameterName(pair) === name)
  if (kept.length === 0 || apiVersionsOf(request) === undefined) return undefined
  return safePath(kept.join('&'))
}
