/**
 * The redirect of a moved path (option `moved`): 301 for GET and HEAD, 308 otherwise, to the new
 * path with the client's query, for a request no route matched.
 */
import { appendVary } from '@restwell/core'
import { safePath } from '@restwell/core/internal'
import { joinUrl, splitUrl } from '@restwell/reroute'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Carried } from './carriers.js'
import { movedLocation } from './moved.js'
import { isSupported } from './registry.js'
import type { VersioningState } from './state.js'
import { prefixVersion, underVersion, versionedUrl } from './version.js'

/**
 * Answers the redirect when the path of `request` (no route matched it) has moved; false when it
 * has not. The path is taken under the version it was asked in (an unprefixed path with a carried
 * version is that version's); the query is the client's, `_method` kept for a 308's replay.
 */
export function redirectMoved(
  state: VersioningState,
  carried: Carried,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  const { options } = state
  let { path } = splitUrl(request.url)
  if (carried.explicit !== undefined) path = underVersion(carried.explicit, path)
  const location = movedLocation(options.moved, path)
  if (location === undefined) return false
  const { query } = splitUrl(request.originalUrl)
  const prefix = prefixVersion(location)
  const target =
    prefix !== undefined && isSupported(state.versions, prefix.version)
      ? versionedUrl(location, query, options.query)
      : joinUrl(location, query)
  const safe = request.method === 'GET' || request.method === 'HEAD'
  // A valid URI-Reference (RFC 9110 §10.2.2): the client's raw `"`, `{`, a bare `%` encoded.
  reply.code(safe ? 301 : 308).header('location', safePath(target))
  // Accept took part: the URL had no prefix, so a versioned Accept would have routed it, or
  // Accept agreed with the prefix (a 301 is cacheable by default, RFC 9111 §4.2.2).
  if (options.accept && (carried.unprefixed || carried.accept)) appendVary(reply, 'Accept')
  reply.send()
  return true
}
