/** `HttpError`: the one error type every restwell plugin throws, and a factory per status. */
import { reasonPhrase, statusCode as defaultCode } from './statuses.js'

/** A header value an error asks to be sent with it. */
export type HeaderValue = string | number | readonly string[]

/** One problem with one part of the request: `field` names where, `code` says what. */
export interface ErrorDetail {
  field: string
  message: string
  code?: string
}

export interface HttpErrorOptions {
  /** Machine-readable code; defaults to the status's (`NOT_FOUND`, `BAD_REQUEST`, ...). */
  code?: string
  /** Per-field problems (validation errors and the like). */
  details?: readonly ErrorDetail[]
  /** Headers sent with the error response (`Allow`, `Retry-After`, `WWW-Authenticate`, ...). */
  headers?: Readonly<Record<string, HeaderValue>>
  /** The underlying error; logged, never sent. */
  cause?: unknown
  /** Whether message and details may be shown to the client. Default: true below 500. */
  expose?: boolean
  /**
   * The problem type URI of a registered problem type (RFC 9457 §4.2), sent as the `type` of
   * the problem form whatever `problemTypeBase` says; the other forms keep `code`. [none]
   */
  type?: string
  /**
   * Extension members of the problem form (RFC 9457 §3.2), such as a problem type's own
   * (`violated-policies`); a member the form already has is not replaced, the other forms
   * send none, and an error not exposed sends none. [none]
   */
  members?: Readonly<Record<string, unknown>>
}

const BRAND: unique symbol = Symbol.for('restwell.http-error')

/** An HTTP error with a status, a machine code, optional details and headers. */
export class HttpError extends Error {
  // `name` and the brand live on the prototype (set below): an error is made on every 4xx.
  declare readonly name: string
  readonly statusCode: number
  readonly code: string
  readonly details: readonly ErrorDetail[]
  readonly headers: Readonly<Record<string, HeaderValue>>
  readonly expose: boolean
  /** The problem type URI it names (`HttpErrorOptions.type`); an own property only when given. */
  declare readonly type?: string
  /** Its problem extension members (`HttpErrorOptions.members`); an own property only when given. */
  declare readonly members?: Readonly<Record<string, unknown>>
  declare readonly [BRAND]: true

  constructor(statusCode: number, message?: string, options: HttpErrorOptions = {}) {
    if (!Number.isInteger(statusCode) || statusCode < 400 || statusCode > 599) {
      throw new RangeError(`HttpError status must be an integer from 400 to 599, got ${statusCode}`)
    }
    // A 4xx is an answer, not a fault: no stack trace. A 5xx keeps its stack for the logs.
    const text = message ?? reasonPhrase(statusCode)
    const limit = Error.stackTraceLimit
    if (statusCode < 500) Error.stackTraceLimit = 0
    try {
      // `cause` is an own property only when there is one, as with `new Error(message)`.
      if (options.cause === undefined) super(text)
      else super(text, { cause: options.cause })
    } finally {
      Error.stackTraceLimit = limit
    }
    this.statusCode = statusCode
    this.code = options.code ?? defaultCode(statusCode)
    this.details = options.details ?? []
    this.headers = options.headers ?? {}
    this.expose = options.expose ?? statusCode < 500
    if (options.type !== undefined) (this as { type?: string }).type = options.type
    if (options.members !== undefined) {
      ;(this as { members?: Readonly<Record<string, unknown>> }).members = options.members
    }
  }

  /** Alias of `statusCode`, for libraries that read `status`. */
  get status(): number {
    return this.statusCode
  }
}

Object.defineProperty(HttpError.prototype, 'name', {
  value: 'HttpError',
  writable: true,
  configurable: true,
})
Object.defineProperty(HttpError.prototype, BRAND, { value: true })

/** True for any restwell `HttpError`, even one made by another copy of this package. */
export function isHttpError(value: unknown): value is HttpError {
  return (
    typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true
  )
}

/** Makes an `HttpError`; the same as `new HttpError(...)`. */
export function createError(
  statusCode: number,
  message?: string,
  options?: HttpErrorOptions,
): HttpError {
  return new HttpError(statusCode, message, options)
}

/** A factory for one status: `httpErrors.notFound('No book 7')`. */
export type HttpErrorFactory = (message?: string, options?: HttpErrorOptions) => HttpError

const FACTORY_STATUSES = {
  badRequest: 400,
  unauthorized: 401,
  paymentRequired: 402,
  forbidden: 403,
  notFound: 404,
  methodNotAllowed: 405,
  notAcceptable: 406,
  proxyAuthenticationRequired: 407,
  requestTimeout: 408,
  conflict: 409,
  gone: 410,
  lengthRequired: 411,
  preconditionFailed: 412,
  payloadTooLarge: 413,
  uriTooLong: 414,
  unsupportedMediaType: 415,
  rangeNotSatisfiable: 416,
  expectationFailed: 417,
  imATeapot: 418,
  misdirectedRequest: 421,
  unprocessableEntity: 422,
  locked: 423,
  failedDependency: 424,
  tooEarly: 425,
  upgradeRequired: 426,
  preconditionRequired: 428,
  tooManyRequests: 429,
  requestHeaderFieldsTooLarge: 431,
  internalServerError: 500,
  notImplemented: 501,
  badGateway: 502,
  serviceUnavailable: 503,
  gatewayTimeout: 504,
  httpVersionNotSupported: 505,
  variantAlsoNegotiates: 506,
  insufficientStorage: 507,
  loopDetected: 508,
  notExtended: 510,
  networkAuthenticationRequired: 511,
} as const

export type HttpErrorName = keyof typeof FACTORY_STATUSES
export type HttpErrors = { readonly [K in HttpErrorName]: HttpErrorFactory }

/** One factory per 4xx/5xx status of the spec, named after its reason phrase. */
export const httpErrors: HttpErrors = Object.freeze(
  Object.fromEntries(
    Object.entries(FACTORY_STATUSES).map(([name, status]) => [
      name,
      (message?: string, options?: HttpErrorOptions) => new HttpError(status, message, options),
    ]),
  ),
) as HttpErrors
