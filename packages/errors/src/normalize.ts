/** Turns anything thrown (ours, Fastify's, another plugin's, a string) into one error shape. */
import type { FastifyBaseLogger } from 'fastify'
import { ErrorCode } from './codes.js'
import { type ErrorDetail, type HeaderValue, isHttpError } from './http-error.js'
import { reasonPhrase, statusCode as defaultCode } from './statuses.js'

/** What every error becomes before it is rendered in the configured body form. */
export interface NormalizedError {
  statusCode: number
  code: string
  message: string
  details: readonly ErrorDetail[]
  headers: Readonly<Record<string, HeaderValue>>
  /** The problem type URI an `HttpError` names (`HttpErrorOptions.type`), if any. */
  type?: string | undefined
  /** The problem extension members an exposed `HttpError` carries (`HttpErrorOptions.members`). */
  members?: Readonly<Record<string, unknown>> | undefined
}

/** Fastify's own error codes that have a better restwell code than the status default. */
const FASTIFY_CODES: Readonly<Record<string, string>> = {
  FST_ERR_VALIDATION: ErrorCode.VALIDATION_ERROR,
  FST_ERR_CTP_INVALID_JSON_BODY: ErrorCode.MALFORMED_JSON,
  FST_ERR_CTP_EMPTY_JSON_BODY: ErrorCode.EMPTY_BODY,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ErrorCode.CONTENT_LENGTH_MISMATCH,
}

/** A code a library put on its error that is fit to show: upper snake case, not an errno. */
const PUBLIC_CODE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/

interface ErrorLike {
  statusCode?: unknown
  status?: unknown
  code?: unknown
  message?: unknown
  headers?: unknown
  validation?: unknown
  validationContext?: unknown
}

/** One AJV error as Fastify attaches it to `error.validation`. */
interface AjvError {
  keyword?: unknown
  instancePath?: unknown
  message?: unknown
  params?: unknown
}

function isErrorStatus(status: unknown): status is number {
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
}

/**
 * The status an error is answered with: its own (`statusCode`, else `status`) when it is
 * 400-599; else the status the reply already had, when that is 400-599 (`reply.code(404).send(error)`,
 * `reply.code(409); throw error`, as Fastify keeps it); else 500.
 */
export function errorStatus(
  error: { statusCode?: unknown; status?: unknown },
  replyStatus: unknown,
): number {
  const status = typeof error.statusCode === 'number' ? error.statusCode : error.status
  if (isErrorStatus(status)) return status
  return isErrorStatus(replyStatus) ? replyStatus : 500
}

/** One reference token of a JSON Pointer (RFC 6901 §3): `~` as `~0`, `/` as `~1`. */
function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

function pointerToField(part: string, instancePath: string, params: unknown): string {
  // AJV's instancePath is already a JSON Pointer; the property names in params are raw names.
  let path = instancePath
  const missing = (params as { missingProperty?: unknown } | null)?.missingProperty
  if (typeof missing === 'string') path += `/${escapePointerToken(missing)}`
  const extra = (params as { additionalProperty?: unknown } | null)?.additionalProperty
  if (typeof extra === 'string') path += `/${escapePointerToken(extra)}`
  return part + path
}

/**
 * Zod's issue codes (v3 and v4), which fastify-type-provider-zod hands on as AJV keywords. Its
 * `instancePath` is `/` + the path joined, so the document itself is `/`, not `""`.
 */
const ZOD_CODES: ReadonlySet<string> = new Set([
  'custom',
  'invalid_arguments',
  'invalid_date',
  'invalid_element',
  'invalid_enum_value',
  'invalid_format',
  'invalid_intersection_types',
  'invalid_key',
  'invalid_literal',
  'invalid_return_type',
  'invalid_string',
  'invalid_type',
  'invalid_union',
  'invalid_union_discriminator',
  'invalid_value',
  'not_finite',
  'not_multiple_of',
  'too_big',
  'too_small',
  'unrecognized_keys',
])

/** The members a Zod `unrecognized_keys` issue names (`params.keys`), else undefined. */
function unrecognizedKeys(keyword: string, params: unknown): string[] | undefined {
  if (keyword !== 'unrecognized_keys') return undefined
  const keys = (params as { keys?: unknown } | null)?.keys
  return Array.isArray(keys) && keys.length > 0 && keys.every((key) => typeof key === 'string')
    ? keys
    : undefined
}

/**
 * Maps Fastify's AJV errors to `details`: `field` is `<part>/<JSON pointer>`, e.g. `body/title`.
 * Zod's issues in AJV's shape are read too: an unrecognized-keys issue gives one detail per key.
 */
export function validationDetails(validation: readonly unknown[], context: unknown): ErrorDetail[] {
  const part = typeof context === 'string' && context !== '' ? context : 'body'
  return validation.flatMap((raw) => {
    const item = (typeof raw === 'object' && raw !== null ? raw : {}) as AjvError
    const keyword = typeof item.keyword === 'string' ? item.keyword : 'invalid'
    let instancePath = typeof item.instancePath === 'string' ? item.instancePath : ''
    if (instancePath === '/' && ZOD_CODES.has(keyword)) instancePath = ''
    const message = typeof item.message === 'string' ? item.message : 'is invalid'
    const code = keyword.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()
    const keys = unrecognizedKeys(keyword, item.params)
    if (keys !== undefined) {
      return keys.map((key) => ({
        field: `${part}${instancePath}/${escapePointerToken(key)}`,
        message,
        code,
      }))
    }
    return [{ field: pointerToField(part, instancePath, item.params), message, code }]
  })
}

function publicHeaders(value: unknown): Readonly<Record<string, HeaderValue>> {
  return typeof value === 'object' && value !== null ? (value as Record<string, HeaderValue>) : {}
}

/**
 * Normalizes a thrown value. 4xx keep their message; 5xx are masked (the reason phrase, no
 * details) unless they are `HttpError`s made with `expose: true`. `replyStatus` is the status
 * the reply had when the error reached the handler: it is the error's status when the error
 * has no 400-599 status of its own (an `HttpError`'s or a library error's status wins).
 */
export function normalizeError(thrown: unknown, replyStatus?: number): NormalizedError {
  if (isHttpError(thrown)) {
    const expose = thrown.expose
    return {
      statusCode: thrown.statusCode,
      code: thrown.code,
      message: expose ? thrown.message : reasonPhrase(thrown.statusCode),
      details: expose ? thrown.details : [],
      headers: thrown.headers,
      ...(thrown.type === undefined ? {} : { type: thrown.type }),
      ...(thrown.members === undefined || !expose ? {} : { members: thrown.members }),
    }
  }
  const error: ErrorLike = typeof thrown === 'object' && thrown !== null ? thrown : {}
  const statusCode = errorStatus(error, replyStatus)
  if (statusCode >= 500) {
    return {
      statusCode,
      code: defaultCode(statusCode),
      message: reasonPhrase(statusCode),
      details: [],
      headers: publicHeaders(error.headers),
    }
  }
  const libraryCode = typeof error.code === 'string' ? error.code : ''
  const code =
    FASTIFY_CODES[libraryCode] ??
    (PUBLIC_CODE.test(libraryCode) && !libraryCode.startsWith('FST_')
      ? libraryCode
      : defaultCode(statusCode))
  const details = Array.isArray(error.validation)
    ? validationDetails(error.validation, error.validationContext)
    : []
  const message =
    typeof error.message === 'string' && error.message !== ''
      ? error.message
      : reasonPhrase(statusCode)
  return { statusCode, code, message, details, headers: publicHeaders(error.headers) }
}

/**
 * The answer to a QUERY whose content was read but fails the route's body schema: 422, since
 * the query is well-formed and cannot be processed (RFC 10008 §2); a POST keeps its 400. A
 * malformed body (`MALFORMED_JSON`) and every other error are left as they are.
 */
export function forMethod(error: NormalizedError, method: string): NormalizedError {
  if (
    method !== 'QUERY' ||
    error.statusCode !== 400 ||
    error.code !== ErrorCode.VALIDATION_ERROR ||
    error.details.length === 0 ||
    !error.details.every((detail) => detail.field === 'body' || detail.field.startsWith('body/'))
  ) {
    return error
  }
  return { ...error, statusCode: 422 }
}

/** Logs an error as every restwell answer does: a 5xx with what was thrown, a 4xx at info. */
export function logError(
  request: { log: FastifyBaseLogger },
  thrown: unknown,
  error: NormalizedError,
  requestId: string,
): void {
  if (error.statusCode >= 500) {
    request.log.error({ err: thrown, requestId }, 'request failed with a server error')
  } else {
    request.log.info({ requestId, code: error.code, statusCode: error.statusCode }, error.message)
  }
}
