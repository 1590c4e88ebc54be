/**
 * The 400s of a request whose integrity fields cannot be trusted, with the problem types of
 * draft-ietf-httpapi-digest-fields-problem-types (§3.1-3.3), in the app's error form.
 */
import { ErrorCode, type ErrorDetail, type HttpError, httpErrors } from '@restwell/errors'
import type { Algorithm } from './algorithms.js'
import { byteSequence, serializePreferences } from './fields.js'

/** The base of the problem types' URIs (IANA "HTTP Problem Types" registry). */
const PROBLEM_TYPES = 'https://iana.org/assignments/http-problem-types#'

/** An integrity field of a request, by its lower-case name. */
export type IntegrityHeader = 'content-digest' | 'repr-digest'

/** The preference field that asks for `header` (sent back to say what the server takes). */
const WANT: Readonly<Record<IntegrityHeader, string>> = {
  'content-digest': 'want-content-digest',
  'repr-digest': 'want-repr-digest',
}

/** One digest of a request that is refused: where it was and under which algorithm key. */
export interface RefusedDigest {
  readonly header: IntegrityHeader
  readonly algorithm: string
  /** What is wrong with it, in words. */
  readonly reason: string
}

function details(refused: readonly RefusedDigest[]): ErrorDetail[] {
  return refused.map(({ header, reason }) => ({ field: `headers/${header}`, message: reason }))
}

/** §3.3: a digest that does not match the content (never the digest the server computed). */
export function mismatchedValues(refused: readonly RefusedDigest[]): HttpError {
  return httpErrors.badRequest('The request content does not match its digest', {
    code: ErrorCode.DIGEST_MISMATCHED_VALUES,
    type: `${PROBLEM_TYPES}digest-mismatched-values`,
    details: details(refused),
  })
}

/** §3.2: a digest no hashing by its algorithm can make (of the wrong length). */
export function invalidValues(refused: readonly RefusedDigest[]): HttpError {
  return httpErrors.badRequest('The request carries a digest its algorithm cannot produce', {
    code: ErrorCode.DIGEST_INVALID_VALUES,
    type: `${PROBLEM_TYPES}digest-invalid-values`,
    details: details(refused),
  })
}

/**
 * §3.1: an integrity field with no algorithm the server supports, so the content cannot be
 * checked; the answer says which it takes in the matching preference field.
 */
export function unsupportedAlgorithms(
  refused: readonly RefusedDigest[],
  algorithms: readonly Algorithm[],
): HttpError {
  const headers: Record<string, string> = {}
  for (const { header } of refused) headers[WANT[header]] = serializePreferences(algorithms)
  return httpErrors.badRequest('The request digests its content with no supported algorithm', {
    code: ErrorCode.DIGEST_UNSUPPORTED_ALGORITHMS,
    type: `${PROBLEM_TYPES}digest-unsupported-algorithms`,
    details: details(refused),
    headers,
  })
}

/** The words of a mismatch: the algorithm and the digest sent, as a Byte Sequence (§3.3). */
export function mismatchReason(algorithm: string, sent: Uint8Array): string {
  return `the ${algorithm} digest ${byteSequence(sent)} does not match the content`
}
