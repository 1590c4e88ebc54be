/** How a handler's return value and errors are stored: a URI-reference location or JSON, and a public failure. */
import { httpErrors, isHttpError } from '@restwell/errors'
import { safePath } from '@restwell/core/internal'
import type { JobFailure, JobOutcome } from './types.js'

/** The failure shown for an error that is not an exposed HttpError: its message may be private. */
const GENERIC_FAILURE = 'The job failed'

/** What a thrown value may tell clients: an exposed HttpError's status, message and details. */
export function publicFailure(error: unknown): JobFailure {
  if (isHttpError(error) && error.expose) {
    const failure: JobFailure = {
      statusCode: error.statusCode,
      code: error.code,
      message: error.message,
    }
    if (error.details.length > 0) failure.details = error.details.map((d) => ({ ...d }))
    return failure
  }
  return { statusCode: 500, code: 'INTERNAL_SERVER_ERROR', message: GENERIC_FAILURE }
}

/** `{ location: '...' }` and nothing else: the handler named where the result lives. */
export function locationOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined
  const keys = Object.keys(result)
  const location = (result as { location?: unknown }).location
  return keys.length === 1 && typeof location === 'string' ? location : undefined
}

/**
 * The authority of an absolute URI or network-path reference (`https://host:8080`, `//host`),
 * and an IP-literal host in it (`[::1]`, RFC 3986 §3.2.2), whose brackets are syntax, not data.
 */
const AUTHORITY = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/[^/?#]*/
const IP_LITERAL = /(?<=\/\/|@)\[[0-9A-Za-z._~:!$&'()*+,;=-]*\](?=(?::\d*)?$)/

/**
 * A handler's `location` as a URI-reference (RFC 3986 §4.1) for `Location`, percent-encoded by
 * `safePath` (fragment and IP-literal brackets kept). `undefined` for an empty location or one
 * holding a control character, which could split the header field.
 */
export function locationReference(location: string): string | undefined {
  if (location === '') return undefined
  for (let i = 0; i < location.length; i++) {
    const code = location.charCodeAt(i)
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return undefined
  }
  const hash = location.indexOf('#')
  const target = hash === -1 ? location : location.slice(0, hash)
  const fragment = hash === -1 ? '' : `#${safePath(location.slice(hash + 1))}`
  const authority = AUTHORITY.exec(target)?.[0] ?? ''
  const literal = IP_LITERAL.exec(authority)
  const head =
    literal === null
      ? safePath(authority)
      : safePath(authority.slice(0, literal.index)) +
        literal[0] +
        safePath(authority.slice(literal.index + literal[0].length))
  return head + safePath(target.slice(authority.length)) + fragment
}

/** What clients are told of a job whose handler named a location that cannot be sent. */
export const INVALID_LOCATION_FAILURE =
  "The location of the job's result is not a valid URI reference"

/**
 * How a handler's return value is stored: its `{ location }` as a URI-reference, or its JSON.
 * Throws an exposed 500 `HttpError` (the job fails, its reason logged as the cause) for a
 * location that cannot be one: never is a location stored that `Location` cannot carry.
 */
export function outcomeOf(result: unknown): JobOutcome {
  const given = locationOf(result)
  if (given === undefined) return { status: 'succeeded', result: JSON.stringify(result) ?? 'null' }
  const location = locationReference(given)
  if (location !== undefined) return { status: 'succeeded', location }
  const shown = given.length > 200 ? `${given.slice(0, 200)}...` : given
  throw httpErrors.internalServerError(INVALID_LOCATION_FAILURE, {
    expose: true,
    cause: new Error(
      `the handler returned { location: ${JSON.stringify(shown)} }: empty or holding a control character (CR, LF, ...), it cannot be a URI-reference (RFC 3986 §4.1) to send in Location`,
    ),
  })
}

/**
 * Starts a BullMQ `failedReason` that carries a public failure as JSON (what an exposed
 * `HttpError` told): `restwell:{"statusCode":422,"code":"UNPROCESSABLE_ENTITY",...}`. Any other
 * `failedReason` is private (an internal message, for operators and dashboards) and shows as
 * the generic failure.
 */
export const PUBLIC_FAILURE_PREFIX = 'restwell:'

/** What BullMQ writes when a job stalled (its worker vanished) or started more often than allowed. */
const INTERRUPTED = new Set([
  'job stalled more than allowable limit',
  'job started more than allowable limit',
])

/** The failure shown for a job whose workers kept vanishing. */
export const INTERRUPTED_FAILURE: JobFailure = {
  statusCode: 500,
  code: 'INTERNAL_SERVER_ERROR',
  message: 'The job was interrupted too many times',
}

/**
 * The error a BullMQ processor rejects with for a thrown value: an exposed `HttpError` becomes
 * an `Error` whose message is the public failure after `PUBLIC_FAILURE_PREFIX` (its stack kept
 * for the dashboard); anything else is rejected as it is (an `Error` made of a thrown
 * non-error), its message private.
 */
export function failureError(error: unknown): Error {
  if (!(isHttpError(error) && error.expose))
    return error instanceof Error ? error : new Error(String(error))
  const failure = JSON.stringify(publicFailure(error))
  // Its stack is the HttpError's, for the dashboard; BullMQ keeps the message as failedReason.
  return Object.assign(new Error(`${PUBLIC_FAILURE_PREFIX}${failure}`, { cause: error }), {
    stack: error.stack,
  })
}

/** The stored failure (JSON text of a `JobFailure`) a BullMQ `failedReason` tells; undefined: the generic one. */
export function failureOf(failedReason: string): string | undefined {
  if (failedReason.startsWith(PUBLIC_FAILURE_PREFIX))
    return failedReason.slice(PUBLIC_FAILURE_PREFIX.length)
  return INTERRUPTED.has(failedReason) ? JSON.stringify(INTERRUPTED_FAILURE) : undefined
}
