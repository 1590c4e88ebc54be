/** The QUERY method (RFC 10008): what tells the answer to one query from the answer to another. */
import { inspect } from 'node:util'
import { identityDigest } from './contracts.js'

/** How a `queryContentKey` begins. */
export const QUERY_KEY_PREFIX = 'q.'

/** What `queryContentKey` reads of a request. */
export interface QueryRequest {
  readonly method: string
  readonly body?: unknown
  readonly headers: { readonly 'content-type'?: string | undefined }
}

/** The body as read, as text: a string or bytes as they are, any other value as JSON. */
function bodyText(body: unknown): string | Buffer {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body
  if (body === undefined || body === null) return ''
  try {
    return JSON.stringify(body) ?? String(body)
  } catch {
    // A value an app's own parser made that JSON cannot write (a BigInt, a cycle).
    return inspect(body, { depth: Number.POSITIVE_INFINITY, sorted: true })
  }
}

/**
 * The key of a QUERY request's content: `q.` and the SHA-1 (base64url) of its media type and
 * its body as read; undefined for any other method. A QUERY answer's cache key includes the
 * content (RFC 10008 §2), so every validator and cache key restwell makes for one holds it.
 *
 * @example
 * queryContentKey({ method: 'QUERY', body: { q: 'a' }, headers: { 'content-type': 'application/json' } })
 * // 'q.…'
 */
export function queryContentKey(request: QueryRequest): string | undefined {
  if (request.method !== 'QUERY') return undefined
  const type = (request.headers['content-type'] ?? '').trim().toLowerCase()
  const body = bodyText(request.body)
  // One string hashed in one call: a fifth of the cost of joining buffers first.
  const text =
    typeof body === 'string' ? `${type}\n${body}` : Buffer.concat([Buffer.from(`${type}\n`), body])
  return `${QUERY_KEY_PREFIX}${identityDigest(text)}`
}
