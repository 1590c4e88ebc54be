/** RFC 8288 `Link` header and the page URLs it carries. */
import type { PageLinks } from '@restwell/errors'

/** The relations sent in `Link`, in this order. */
export const LINK_RELATIONS = ['first', 'prev', 'next', 'last'] as const

const HEX = '0123456789ABCDEF'

function percentEncode(char: string): string {
  let out = ''
  for (const byte of Buffer.from(char, 'utf8')) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`
  return out
}

/**
 * Characters RFC 3986 does not allow in a URI's path or query, plus the ones that would end a
 * `<URI-Reference>`. `#` starts a fragment (a client would drop the rest of the target: the
 * `page` of a `next` link among it), `[` and `]` belong to an IP-literal host only (§3.2.2).
 */
function isUnsafe(code: number): boolean {
  return (
    code <= 0x20 ||
    code >= 0x7f ||
    code === 0x22 || // "
    code === 0x23 || // #
    code === 0x5b || // [
    code === 0x5d || // ]
    code === 0x3c || // <
    code === 0x3e || // >
    code === 0x5c || // \
    code === 0x5e || // ^
    code === 0x60 || // `
    code === 0x7b || // {
    code === 0x7c || // |
    code === 0x7d // }
  )
}

/** Percent-encodes what may not appear in a URI so a path is safe inside `<...>`. */
export function safePath(path: string): string {
  let out = ''
  let start = 0
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i)
    if (!isUnsafe(code)) continue
    // A surrogate pair is one character: encode its UTF-8 bytes together.
    const pair = code >= 0xd800 && code <= 0xdbff && (path.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    const end = pair ? i + 2 : i + 1
    out += path.slice(start, i) + percentEncode(path.slice(i, end))
    start = end
    i = end - 1
  }
  return start === 0 ? path : out + path.slice(start)
}

function parameterName(part: string): string {
  const eq = part.indexOf('=')
  const name = (eq === -1 ? part : part.slice(0, eq)).replaceAll('+', ' ')
  try {
    return decodeURIComponent(name)
  } catch {
    return name
  }
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
      query += `${query === '' ? '' : '&'}${encodeURIComponent(name)}=${encodeURIComponent(value)}`
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
