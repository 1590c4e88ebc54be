/** The four error body forms: simple, validation, structured (the default) and RFC 9457 problem. */
import type { ErrorDetail } from './http-error.js'
import type { NormalizedError } from './normalize.js'
import { reasonPhrase } from './statuses.js'

export type ErrorFormat = 'simple' | 'validation' | 'structured' | 'problem'

let formattedAt = Number.NaN
let formatted = ''

/** Now, in ISO 8601 UTC, for an error body's `timestamp`: formatted at most once per millisecond. */
export function isoNow(): string {
  const now = Date.now()
  if (now !== formattedAt) {
    formatted = new Date(now).toISOString()
    formattedAt = now
  }
  return formatted
}

/** What a rendered body needs besides the error. */
export interface ErrorContext {
  requestId: string
  /** ISO 8601 UTC. */
  timestamp: string
  /** The request path, for problem+json's `instance`. */
  instance: string
  /** Base URI for problem+json `type` (`<base><code>`); `about:blank` when unset. */
  problemTypeBase?: string | undefined
}

export interface SimpleErrorBody {
  error: string
  requestId: string
}
export interface ValidationErrorBody {
  error: string
  details: { field: string; message: string }[]
  requestId: string
}
export interface StructuredErrorBody {
  error: {
    code: string
    message: string
    details: ErrorDetail[]
    requestId: string
    timestamp: string
  }
}
export interface ProblemErrorBody {
  type: string
  title: string
  status: number
  detail: string
  instance: string
  code: string
  details: ErrorDetail[]
  requestId: string
  timestamp: string
}
export type ErrorBody =
  | SimpleErrorBody
  | ValidationErrorBody
  | StructuredErrorBody
  | ProblemErrorBody

/** RFC 9457 §6.1 defines no parameter for problem+json (JSON is UTF-8, RFC 8259 §8.1): none is sent. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json'
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** The media type a form is sent as. */
export function errorContentType(format: ErrorFormat): string {
  return format === 'problem' ? PROBLEM_CONTENT_TYPE : JSON_CONTENT_TYPE
}

/** A problem body with an error's extension members after its own (RFC 9457 §3.2), never over them. */
function withMembers(
  members: Readonly<Record<string, unknown>> | undefined,
  body: ProblemErrorBody,
): ProblemErrorBody {
  if (members === undefined) return body
  const extended: Record<string, unknown> = body as unknown as Record<string, unknown>
  for (const [name, value] of Object.entries(members)) {
    if (!Object.hasOwn(extended, name)) extended[name] = value
  }
  return body
}

/** Builds the body object of one error in one form. */
export function buildErrorBody(
  format: ErrorFormat,
  error: NormalizedError,
  context: ErrorContext,
): ErrorBody {
  const details = error.details.map((d) =>
    d.code === undefined
      ? { field: d.field, message: d.message }
      : { field: d.field, message: d.message, code: d.code },
  )
  switch (format) {
    case 'simple':
      return { error: error.message, requestId: context.requestId }
    case 'validation':
      return {
        error: error.message,
        details: details.map(({ field, message }) => ({ field, message })),
        requestId: context.requestId,
      }
    case 'problem':
      return withMembers(error.members, {
        type:
          error.type ??
          (context.problemTypeBase === undefined
            ? 'about:blank'
            : `${context.problemTypeBase}${error.code.toLowerCase().replace(/_/g, '-')}`),
        title: reasonPhrase(error.statusCode),
        status: error.statusCode,
        detail: error.message,
        instance: context.instance,
        code: error.code,
        details,
        requestId: context.requestId,
        timestamp: context.timestamp,
      })
    default:
      return {
        error: {
          code: error.code,
          message: error.message,
          details,
          requestId: context.requestId,
          timestamp: context.timestamp,
        },
      }
  }
}

/**
 * The structured body of an error answered without the plugin (no request made it as far, or
 * the app has no `@restwell/errors`): `clientErrorHandler` and `frameworkErrors`.
 */
export function standaloneErrorBody(error: NormalizedError, requestId: string): string {
  return JSON.stringify(
    buildErrorBody('structured', error, { requestId, timestamp: isoNow(), instance: '' }),
  )
}
