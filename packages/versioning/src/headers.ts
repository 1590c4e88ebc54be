/**
 * The headers of a versioned route's answers: `API-Version`, `Vary: Accept`, the versioned JSON
 * media type when `Accept` chose the version, and a retired version's `Deprecation` (RFC 9745),
 * `Sunset` (RFC 8594) and `Link`s.
 */
import { appendLink, appendVary, type SendStep } from '@restwell/core'
import { safePath } from '@restwell/core/internal'
import { splitUrl } from '@restwell/reroute'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { versionMediaType } from './accept.js'
import { carriedOf } from './carriers.js'
import { linkValue } from './lifecycle.js'
import type { ResolvedVersioningOptions, RetiredHeaders } from './options.js'
import { underVersion, versionedUrl } from './version.js'

const JSON_TYPE = 'application/json'

/** The send step of a route serving `version` at `/v<N>/…` (`prefixed`) or unprefixed. */
export function versionHeaders(
  options: ResolvedVersioningOptions,
  version: number,
  prefixed: boolean,
): SendStep {
  const retired = options.retired.get(version)
  const mediaType = versionMediaType(version)
  const prefixLength = prefixed ? `/v${version}`.length : 0
  return function restwellVersionHeaders(request, reply) {
    // A 2xx/3xx only, and removed again from an error a later step made of a 2xx (a 416, a 412).
    if (options.responseHeader !== false) {
      if (reply.statusCode < 400) reply.header(options.responseHeader, String(version))
      else reply.removeHeader(options.responseHeader)
    }
    // With the Accept carrier, every answer of the route may depend on Accept, the plain one too.
    if (options.accept) appendVary(reply, 'Accept')
    if (carriedOf(request.raw)?.accept === true) versionedType(reply, mediaType)
    if (retired !== undefined) lifecycleHeaders(options, retired, prefixLength, request, reply)
    return undefined
  }
}

/** A JSON success answered for a versioned Accept gets the version's media type. */
function versionedType(reply: FastifyReply, mediaType: string): void {
  const type = reply.getHeader('content-type')
  if (reply.statusCode < 400 && typeof type === 'string' && type.startsWith(JSON_TYPE)) {
    reply.header('content-type', mediaType + type.slice(JSON_TYPE.length))
  }
}

/** `Deprecation`, `Sunset`, the successor's and the policy's `Link` of a retired version. */
function lifecycleHeaders(
  options: ResolvedVersioningOptions,
  retired: RetiredHeaders,
  prefixLength: number,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header('deprecation', retired.deprecation)
  if (retired.sunset !== undefined) reply.header('sunset', retired.sunset)
  if (retired.successor !== undefined) {
    // The resource as routed (`_method`, which override removed, is no part of it), as a valid
    // URI-Reference (RFC 8288 §3).
    const { path, query } = splitUrl(request.url)
    const successor = underVersion(retired.successor, path.slice(prefixLength))
    appendLink(
      reply,
      linkValue(safePath(versionedUrl(successor, query, options.query)), 'successor-version'),
    )
  }
  if (retired.policyLink !== undefined) appendLink(reply, retired.policyLink)
}
