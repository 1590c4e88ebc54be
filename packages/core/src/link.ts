/**
 * URL targets of the links and redirects a response carries, and the `Link` field (RFC 8288),
 * written once for every restwell plugin that makes them (pagination, versioning).
 */
import type { FastifyReply } from 'fastify'

const HEX = '0123456789ABCDEF'

function percentEncode(char: string): string {
  let out = ''
  for (const byte of Buffer.from(char, 'utf8')) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`
  return out
}

function isHexDigit(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x46) ||
    (code >= 0x61 && code <= 0x66)
  )
}

/**
 * Characters RFC 3986 does not allow in a URI's path or query, plus the ones that would end a
 * `<URI-Reference>`. `#` starts a fragment (a client would drop the rest of the target: the
 * `page` of a `next` link among it), `[` and `]` belong to an IP-literal host only (§3.2.2).
 * (`%` is decided apart: it is allowed only as the start of a `pct-encoded` triplet.)
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

/**
 * A request path (with or without its query) as a valid URI-Reference (RFC 3986), safe inside
 * `<...>` of a `Link` (RFC 8288 §3) and in a `Location`: what may not appear in a URI, and a `%`
 * not starting a `%XX` escape, is percent-encoded as UTF-8; the rest is kept. Never throws.
 */
export function safePath(path: string): string {
  let out = ''
  let start = 0
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i)
    if (code === 0x25) {
      if (isHexDigit(path.charCodeAt(i + 1)) && isHexDigit(path.charCodeAt(i + 2))) {
        i += 2
        continue
      }
      out += `${path.slice(start, i)}%25`
      start = i + 1
      continue
    }
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

/**
 * Adds link-values (`<target>; rel="…"`, already formatted) to the reply's `Link`, after the
 * ones a hook, the handler or another plugin set: RFC 8288 §3 allows many links in one field,
 * so nothing set earlier is lost. A `Link` set as an array is joined into one field. Empty
 * values are skipped; with nothing to add the header is left as it is.
 *
 * @param reply the reply whose `Link` gets the link-values
 * @param links link-values, each formatted (`safePath` the target)
 * @example
 * appendLink(reply, '</books?page=2>; rel="next"', '</books>; rel="first"')
 */
export function appendLink(reply: FastifyReply, ...links: string[]): FastifyReply {
  const current = reply.getHeader('link')
  const list = current === undefined ? [] : Array.isArray(current) ? current : [String(current)]
  const value = [...list, ...links].filter((link) => link !== '').join(', ')
  if (value !== '') reply.header('link', value)
  return reply
}
