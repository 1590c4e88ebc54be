/**
 * The errors auth refuses a request with, each with its `WWW-Authenticate` challenge (RFC 6750
 * §3): 400 for a malformed `Authorization`, 401 without valid credentials, 403 without the
 * scope or permission a route requires.
 */
import { ErrorCode, HttpError, httpErrors, statusCode } from '@restwell/errors'
import { formatChallenge } from './challenge.js'
import type { ResolvedRequirement } from './options.js'
import type { AuthSettings } from './settings.js'

/** What an invalid token is told when nothing more may be said. */
export const DEFAULT_INVALID = 'The access token is invalid or has expired'
/** The code `httpErrors.unauthorized()` gets when given none. */
const UNAUTHORIZED_CODE = statusCode(401)

/** The 401 of a request without credentials. */
export function missingCredentials(settings: AuthSettings): HttpError {
  return httpErrors.unauthorized(
    'Authentication required: send a Bearer token in the Authorization header',
    {
      code: ErrorCode.MISSING_CREDENTIALS,
      headers: settings.missingHeaders,
    },
  )
}

/** The 400 of a malformed `Authorization` header. */
export function malformed(settings: AuthSettings, reason: string): HttpError {
  return httpErrors.badRequest(`Malformed Authorization header: ${reason}`, {
    code: ErrorCode.MALFORMED_CREDENTIALS,
    headers: {
      'www-authenticate': formatChallenge({
        realm: settings.realm,
        error: 'invalid_request',
        description: reason,
      }),
    },
  })
}

/** The 401 of a token `verify` refused. */
export function invalidToken(settings: AuthSettings, description: string): HttpError {
  return httpErrors.unauthorized(description, {
    code: ErrorCode.INVALID_TOKEN,
    headers: {
      'www-authenticate': formatChallenge({
        realm: settings.realm,
        error: 'invalid_token',
        description,
      }),
    },
  })
}

/**
 * A 401 `HttpError` from `verify` without a challenge (RFC 9110 §15.5.2: a 401 MUST carry
 * `WWW-Authenticate`): the same error with the `invalid_token` challenge added, describing
 * it by its message when that may be shown; the status's default code becomes ours.
 */
export function challenged(settings: AuthSettings, error: HttpError): HttpError {
  const description = (error.expose && error.message) || DEFAULT_INVALID
  return new HttpError(401, error.message, {
    code: error.code === UNAUTHORIZED_CODE ? ErrorCode.INVALID_TOKEN : error.code,
    details: error.details,
    headers: {
      ...error.headers,
      'www-authenticate': formatChallenge({
        realm: settings.realm,
        error: 'invalid_token',
        description,
      }),
    },
    cause: error.cause,
    expose: error.expose,
  })
}

/** The 403 of a principal without what `requirement` asks. */
export function insufficient(
  settings: AuthSettings,
  requirement: ResolvedRequirement,
  message: string,
): HttpError {
  return httpErrors.forbidden(message, {
    code: ErrorCode.INSUFFICIENT_SCOPE,
    headers: {
      'www-authenticate': formatChallenge({
        realm: settings.realm,
        error: 'insufficient_scope',
        description: message,
        scopes: requirement.scopes,
      }),
    },
  })
}
