/**
 * The guard: authenticates a request (a Bearer token, RFC 6750 §2.1), then authorizes it
 * against a requirement (scopes, then the route's own predicate).
 */
import { type HttpError, isHttpError } from '@restwell/errors'
import type { FastifyRequest } from 'fastify'
import { countAuthorizationLines, parseAuthorization } from './authorization.js'
import { hasChallenge } from './challenge.js'
import { isInvalidTokenError } from './invalid-token.js'
import type { ResolvedRequirement } from './options.js'
import {
  challenged,
  DEFAULT_INVALID,
  insufficient,
  invalidToken,
  malformed,
  missingCredentials,
} from './refusals.js'
import type { AuthSettings } from './settings.js'

/** Unknown paths require a valid token and nothing more. */
export const ANY_VALID_TOKEN: ResolvedRequirement = {
  scopes: [],
  allow: undefined,
  optional: false,
}

/**
 * Authenticates, then authorizes, the request against one requirement: resolves to the
 * `HttpError` that refuses it (returned, not thrown: refusals are the common case), or
 * undefined, `request.principal` set.
 */
export async function authorize(
  settings: AuthSettings,
  request: FastifyRequest,
  requirement: ResolvedRequirement,
): Promise<HttpError | undefined> {
  const parsed = parseAuthorization(request.headers.authorization)
  if (parsed.kind === 'malformed') return malformed(settings, parsed.reason)
  if (parsed.kind !== 'none' && countAuthorizationLines(request.raw.rawHeaders) > 1) {
    return malformed(settings, 'several Authorization headers')
  }
  if (parsed.kind !== 'bearer') {
    return requirement.optional ? undefined : missingCredentials(settings)
  }
  let principal: unknown
  try {
    principal = await settings.verify(parsed.token, request)
  } catch (error) {
    if (isInvalidTokenError(error)) return invalidToken(settings, error.message || DEFAULT_INVALID)
    if (isHttpError(error) && error.statusCode === 401 && !hasChallenge(error.headers)) {
      return challenged(settings, error)
    }
    throw error
  }
  if (principal === null || principal === undefined || principal === false) {
    return invalidToken(settings, DEFAULT_INVALID)
  }
  request.principal = principal as FastifyRequest['principal']
  if (requirement.scopes.length > 0) {
    const held = new Set(settings.scopesOf(principal) ?? [])
    if (requirement.scopes.some((scope) => !held.has(scope))) {
      const message = `Insufficient scope: requires ${requirement.scopes.join(' ')}`
      return insufficient(settings, requirement, message)
    }
  }
  if (requirement.allow !== undefined && (await requirement.allow(principal, request)) !== true) {
    return insufficient(settings, requirement, 'The credentials do not permit this request')
  }
  return undefined
}
