/** RFC 8288 `Link` header and the page URLs it carries. */
import type { PageLinks } from '@restwell/core'
import { safePath } from '@restwell/core/internal'

/** The relations sent in `Link`, in this order. */
export const LINK_RELATIONS = ['first', 'prev', 'next', 'last'] as const

function parameterName(part: string): string {
  const eq = part.indexOf('=')
  const name = (eq === -1 ? part : part.slice(0, eq)).replaceAll('+', ' ')
  try {
    return decodeURIComponent(name)
  } catch {
    return name
  }
}

/** What `encodeURIComponent` leaves as it is: a value made of these needs no call to it. */
const UNRESERVED = /^[\w.!~*'()-]*$/

/**
 * `encodeURIComponent(value)`, without the call where it would change nothing (an integer, a
 * name or a cursor of unreserved characters): five links a page, two parameters each.
 */
function component(value: string | number): string {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) ? String(value) : encodeURIComponent(value)
  return UNRESERVED.test(value) ? value : encodeURIComponent(value)
}

/**
 * Builds page URLs from one request URL: the path as received, the other query parameters
 * kept verbatim and in their order, then the given pagination parameters (in the order given).
 */
export class PageUrls {
  readonly #path: string
  readonly #kept: string

  /** @param url the request URL (`/books?status=new&page=2`) @param owned parameters this plugin rewrites */
  constructor(url: string, owned: readonly string[]) {
    const q = url.indexOf('?')
    this.#path = safePath(q === -1 ? url : url.slice(0, q))
    this.#kept =
      q === -1
        ? ''
        : url
            .slice(q + 1)
            .split('&')
            .filter((part) => part !== '' && !owned.includes(parameterName(part)))
            .map(safePath)
            .join('&')
  }

  /** The URL with these parameters appended (`undefined` values left out). */
  with(params: ReadonlyArray<readonly [string, string | number | undefined]>): string {
    let query = this.#kept
    for (const [name, value] of params) {
      if (value === undefined) continue
      query += `${query === '' ? '' : '&'}${component(name)}=${component(value)}`
    }
    return query === '' ? this.#path : `${this.#path}?${query}`
  }
}

/** Formats `first`, `prev`, `next`, `last` (those present) as one `Link` field value. */
export function formatLinkHeader(links: PageLinks): string {
  const parts: string[] = []
  for (const rel of LINK_RELATIONS) {
    const target = links[rel]
    if (target !== undefined) parts.push(`<${target}>; rel="${rel}"`)
  }
  return parts.join(', ')
}
