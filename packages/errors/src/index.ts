/** @restwell/errors: one error model and one error body form for a Fastify API. */
import './augment.js'
import { restwellErrors } from './plugin.js'

export type { ErrorRenderer, RestwellErrorsApi } from './augment.js'
export {
  buildErrorBody,
  type ErrorBody,
  type ErrorContext,
  type ErrorFormat,
  errorContentType,
  JSON_CONTENT_TYPE,
  PROBLEM_CONTENT_TYPE,
  type ProblemErrorBody,
  type SimpleErrorBody,
  type StructuredErrorBody,
  type ValidationErrorBody,
} from './body.js'
export { type ClientError, clientErrorHandler, clientErrorResponse } from './client-error.js'
export { ErrorCode, type ErrorCodeName } from './codes.js'
export { frameworkErrors } from './framework-errors.js'
export {
  createError,
  type ErrorDetail,
  type HeaderValue,
  HttpError,
  type HttpErrorFactory,
  type HttpErrorName,
  type HttpErrorOptions,
  type HttpErrors,
  httpErrors,
  isHttpError,
} from './http-error.js'
export {
  errorStatus,
  type NormalizedError,
  normalizeError,
  validationDetails,
} from './normalize.js'
export { type ErrorsOptions, ErrorsOptionsSchema } from './options.js'
export {
  DEFAULT_REQUEST_ID_HEADER,
  genReqId,
  MAX_REQUEST_ID_LENGTH,
  safeRequestId,
} from './request-id.js'
export { ERROR_STATUSES, type ErrorStatus, reasonPhrase, statusCode } from './statuses.js'
export { editDistance, OptionsError, validateOptions } from './validate-options.js'
export { importPeer, type Peer } from './peer.js'
export { invalidUtf8 } from './utf8.js'
export { validationError } from './validation.js'
export { notFoundInScope, routeNotFound } from './not-found.js'
export { type OutOfReach, RoutesOutOfReachError } from './out-of-reach.js'
export { errors } from './convention.js'
export { restwellErrors }
export default restwellErrors
