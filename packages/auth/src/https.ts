/** HTTPS enforcement: is a request secure, and where its https:// twin lives. */
import { SAFE_METHODS } from '@restwell/core/internal'
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** A Host value we may echo into a Location: reg-name or IPv4 or `[IPv6]`, optional port. */
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/

/**
 * True when the request came over TLS: the socket is encrypted or, only when the proxy is
 * trusted, the first `X-Forwarded-Proto` value (the one the client-facing proxy saw) is https.
 */
export function isSecure(request: FastifyRequest, trustProxy: boolean): boolean {
  const socket = request.raw.socket as { encrypted?: unknown } | undefined
  if (socket?.encrypted === true) return true
  if (!trustProxy) return false
  const forwarded = request.headers['x-forwarded-proto']
  if (typeof forwarded !== 'string') return false
  const comma = forwarded.indexOf(',')
  const first = (comma === -1 ? forwarded : forwarded.slice(0, comma)).trim()
  return first.length === 5 && first.toLowerCase() === 'https'
}

/**
 * The https URL with the same host, path and query as the client sent them, or undefined when there is no safe host
 * to name (no `Host` or HTTP/2 `:authority`, or one that is not a plain host[:port]) or the
 * target is not a path. The default port `:80` is dropped; `fixedHost` (option `https.host`)
 * replaces the Host header.
 */
export function httpsLocation(
  request: FastifyRequest,
  fixedHost: string | undefined,
): string | undefined {
  // The URL the client sent: Fastify's `rewriteUrl` may have changed `request.url` into an
  // internal one (`/v2/books/7` for `/books/7`), and method override drops `_method` from it;
  // pinning the client to it with a permanent redirect would 404, or change the method.
  const url = request.originalUrl
  if (url.charCodeAt(0) !== 0x2f) return undefined
  // An HTTP/2 client names the host in `:authority` and need not send `Host` (RFC 9113 §8.3.1).
  let host = fixedHost ?? request.headers.host ?? request.headers[':authority']
  if (typeof host !== 'string' || !HOST.test(host)) return undefined
  if (host.endsWith(':80')) host = host.slice(0, -3)
  return `https://${host}${url}`
}

/**
 * Answers a request over plain HTTP: a safe method (RFC 9110 §9.2.1) is redirected to its
 * https URL with 308, and `undefined` returned; any other, or one without a host to name,
 * gets the 403 returned.
 */
export function refuseInsecure(
  request: FastifyRequest,
  reply: FastifyReply,
  fixedHost: string | undefined,
): HttpError | undefined {
  const location = SAFE_METHODS.has(request.method) ? httpsLocation(request, fixedHost) : undefined
  if (location === undefined) {
    return httpErrors.forbidden(
      'This API is served over HTTPS only: repeat the request with https://',
      { code: ErrorCode.HTTPS_REQUIRED },
    )
  }
  reply.code(308).header('location', location).send()
  return undefined
}

export { HOST as HOST_PATTERN }
