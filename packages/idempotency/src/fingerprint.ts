/**
 * What a key is stored under (who sent it, to which method and route) and the fingerprint that
 * tells a retry from another request under the same key (draft §2.4, §5).
 */
import { hash } from 'node:crypto'
import { bodyBytesOf } from '@restwell/core'
import type { FastifyRequest } from 'fastify'

/**
 * Who a key belongs to: the principal `@restwell/auth` (or another guard) set, by its `id` or
 * `sub`, else the credentials that proved it, else the client's address. One client's key never
 * finds another's answer.
 */
export function defaultScope(request: FastifyRequest): string {
  const principal = (request as { principal?: unknown }).principal
  if (principal !== undefined && principal !== null) {
    const { id, sub } = (typeof principal === 'object' ? principal : {}) as {
      id?: unknown
      sub?: unknown
    }
    const named = typeof principal === 'object' ? (id ?? sub) : principal
    if (typeof named === 'string' || typeof named === 'number' || typeof named === 'bigint') {
      return `principal:${String(named)}`
    }
    const credentials = request.headers.authorization
    if (credentials !== undefined) return `credentials:${credentials}`
  }
  return `address:${request.ip}`
}

/**
 * The store's key for one client's key on one route and method: a digest, so that neither the
 * client's key nor its scope reaches the store as given (draft §5, injection).
 */
export function storeKeyOf(scope: string, method: string, route: string, key: string): string {
  // One-shot `hash`: half the cost of a `Hash` object, on every request that sends a key.
  return hash('sha256', `${scope}\0${method}\0${route}\0${key}`, 'base64url')
}

/**
 * The body as its fingerprint sees it: the bytes a restwell parser read (`BODY_BYTES`: JSON's
 * whitespace counts, as the draft's "payload"), bytes and text bodies as they are, any other
 * parsed value as JSON writes it.
 */
function bodyText(request: FastifyRequest): string | Buffer {
  const bytes = bodyBytesOf(request)
  if (bytes !== undefined) return bytes
  const { body } = request
  if (body === undefined) return 'u'
  if (Buffer.isBuffer(body)) return body
  if (typeof body === 'string') return `s${body}`
  try {
    return `j${JSON.stringify(body)}`
  } catch {
    // A value JSON cannot write (circular, a bigint) comes from no body parser: refuse to match.
    return `x${Math.random()}`
  }
}

/**
 * The request's fingerprint (draft §2.4): method, path and query as sent, and the body's bytes
 * as the route's parser read them (a content coding decoded); a body only a parser's value
 * stands for, as JSON writes that value.
 */
export function fingerprintOf(request: FastifyRequest): string {
  const head = `${request.method}\n${request.url}\n`
  const body = bodyText(request)
  const text = typeof body === 'string' ? head + body : Buffer.concat([Buffer.from(head), body])
  // SHA-1, half SHA-256's instructions on a body: no security property rests on it (README).
  return hash('sha1', text, 'base64url')
}
