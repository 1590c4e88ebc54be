/** Schema validation failures found by restwell itself, in the shape of Fastify's own. */
import { ErrorCode } from './codes.js'
import { type HttpError, httpErrors } from './http-error.js'
import { validationDetails } from './normalize.js'

/** One AJV error, as far as the message needs it. */
interface AjvErrorLike {
  instancePath?: unknown
  message?: unknown
}

/**
 * The 400 `VALIDATION_ERROR` for AJV errors of one request part (`body`), as Fastify answers a
 * failed schema: its message (`body/name must be string`, each error once), `details` from the
 * errors (each once).
 * @example
 * if (!validate(body)) throw validationError(validate.errors ?? [], 'body')
 */
export function validationError(errors: readonly unknown[], part: string): HttpError {
  // The branches of an `anyOf` repeat the same problem (`must be string` once per branch).
  const details = [
    ...new Map(
      validationDetails(errors, part).map((detail) => [JSON.stringify(detail), detail]),
    ).values(),
  ]
  const message = [
    ...new Set(
      errors.map((raw) => {
        const error = (typeof raw === 'object' && raw !== null ? raw : {}) as AjvErrorLike
        const path = typeof error.instancePath === 'string' ? error.instancePath : ''
        return `${part}${path} ${typeof error.message === 'string' ? error.message : 'is invalid'}`
      }),
    ),
  ].join(', ')
  return httpErrors.badRequest(message, { code: ErrorCode.VALIDATION_ERROR, details })
}
