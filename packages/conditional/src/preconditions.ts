/** Evaluation of the conditional request header fields in the order of RFC 9110 §13.2.2. */
import { type EntityTag, findMatch, parseEntityTagList, tagMatches } from './etag.js'
import { parseHttpDate } from './http-date.js'

/** The precondition fields of a request, as received (raw values). */
export interface ConditionalHeaders {
  'if-match'?: string | undefined
  'if-none-match'?: string | undefined
  'if-modified-since'?: string | undefined
  'if-unmodified-since'?: string | undefined
}

/** The validators of the selected representation (or of the stored resource, for writes). */
export interface CurrentValidators {
  /** The current entity-tag, when there is one. */
  etag?: EntityTag | undefined
  /** Last modification, epoch ms in whole seconds. */
  lastModified?: number | undefined
  /** False when the target resource has no current representation (If-Match `*` fails). */
  exists: boolean
}

/** What the preconditions ask for. */
export type PreconditionOutcome =
  | { result: 'proceed' }
  /** 304; `etag` is the tag to send (the one the client holds, when it matched by coding suffix). */
  | { result: 'not-modified'; etag: EntityTag | undefined }
  | { result: 'failed'; field: 'if-match' | 'if-unmodified-since' | 'if-none-match' }

const PROCEED: PreconditionOutcome = { result: 'proceed' }

/** GET and HEAD: the methods a 304 answers. */
export function isSafeReadMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD'
}

/** True when the request carries any precondition field. */
export function hasPrecondition(headers: ConditionalHeaders): boolean {
  return (
    headers['if-match'] !== undefined ||
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined ||
    headers['if-unmodified-since'] !== undefined
  )
}

/**
 * Evaluates If-Match, If-Unmodified-Since, If-None-Match and If-Modified-Since in the order
 * of RFC 9110 §13.2.2 (steps 1-4; step 5, If-Range, is `evaluateIfRange`).
 */
export function evaluatePreconditions(
  method: string,
  headers: ConditionalHeaders,
  current: CurrentValidators,
  now: number = Date.now(),
): PreconditionOutcome {
  const read = isSafeReadMethod(method)
  // 1. If-Match: strong comparison; `*` is true when a current representation exists
  const ifMatch = parseEntityTagList(headers['if-match'])
  if (ifMatch !== undefined) {
    const ok =
      current.exists &&
      (ifMatch === '*' ||
        (current.etag !== undefined && findMatch(ifMatch, current.etag, true) !== undefined))
    if (!ok) return { result: 'failed', field: 'if-match' }
  } else {
    // 2. If-Unmodified-Since, only without If-Match; ignored when invalid or no date is known
    const since = parseHttpDate(headers['if-unmodified-since'], now)
    if (since !== undefined && current.lastModified !== undefined && current.lastModified > since) {
      return { result: 'failed', field: 'if-unmodified-since' }
    }
  }
  // 3. If-None-Match: weak comparison; `*` is true when a current representation exists
  const ifNoneMatch = parseEntityTagList(headers['if-none-match'])
  if (ifNoneMatch !== undefined) {
    const held = !current.exists
      ? undefined
      : ifNoneMatch === '*'
        ? (current.etag ?? { weak: false, opaque: '' })
        : current.etag === undefined
          ? undefined
          : findMatch(ifNoneMatch, current.etag, false)
    if (held === undefined) return PROCEED
    if (!read) return { result: 'failed', field: 'if-none-match' }
    return { result: 'not-modified', etag: sentTag(held, current.etag) }
  }
  // 4. If-Modified-Since, only without If-None-Match and only for GET/HEAD
  if (read && current.exists && current.lastModified !== undefined) {
    const since = parseHttpDate(headers['if-modified-since'], now)
    if (since !== undefined && current.lastModified <= since) {
      return { result: 'not-modified', etag: current.etag }
    }
  }
  return PROCEED
}

/** The ETag a 304 carries: the held tag when it names an encoded copy of the current one. */
function sentTag(held: EntityTag, current: EntityTag | undefined): EntityTag | undefined {
  if (current === undefined || held.opaque === current.opaque || held.opaque === '') return current
  return { weak: current.weak, opaque: held.opaque }
}

/**
 * If-Range (RFC 9110 §13.1.5): true when the Range may be applied. An entity-tag must match
 * the current one by strong comparison, exactly (an encoded copy's tag does not name the
 * identity bytes ranges are cut from); a date must equal Last-Modified and that date must
 * be strong (at least one second before now). An invalid value is false (send it all).
 */
export function evaluateIfRange(
  value: string | readonly string[] | undefined,
  current: Omit<CurrentValidators, 'exists'>,
  now: number = Date.now(),
): boolean {
  if (value === undefined) return true
  if (typeof value !== 'string') return false
  const trimmed = value.trim()
  if (trimmed.startsWith('"') || trimmed.startsWith('W/')) {
    const list = parseEntityTagList(trimmed)
    const tag = Array.isArray(list) && list.length === 1 ? list[0] : undefined
    return (
      tag !== undefined &&
      current.etag !== undefined &&
      tag.opaque === current.etag.opaque &&
      tagMatches(tag, current.etag, true)
    )
  }
  const date = parseHttpDate(trimmed, now)
  return (
    date !== undefined &&
    current.lastModified !== undefined &&
    date === current.lastModified &&
    current.lastModified <= now - 1000
  )
}
