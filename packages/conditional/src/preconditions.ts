/** Evaluation of the conditional request header fields in the order of RFC 9110 §13.2.2. */
import { VALIDATED_METHODS } from '@restwell/core/internal'
import { acceptsCoding } from './accept-encoding.js'
import {
  type EntityTag,
  type EntityTagList,
  findMatch,
  findState,
  parseEntityTagList,
  tagMatches,
} from './etag.js'
import { parseHttpDate } from './http-date.js'

/** The precondition fields of a request, as received (raw values). */
export interface ConditionalHeaders {
  'if-match'?: string | undefined
  'if-none-match'?: string | undefined
  'if-modified-since'?: string | undefined
  'if-unmodified-since'?: string | undefined
  /** Read with If-None-Match on GET/HEAD/QUERY: the codings whose copies a 304 may stand for. */
  'accept-encoding'?: string | undefined
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

/** GET, HEAD and QUERY: the methods a 304 answers (RFC 9110 §13.1.2, RFC 10008 §2). */
export function isSafeReadMethod(method: string): boolean {
  return VALIDATED_METHODS.has(method)
}

/**
 * The preconditions of a request as they are evaluated (RFC 9110 §13.1, §13.2.2): parsed, and
 * without the ones the evaluation ignores.
 */
export interface Preconditions {
  /** If-Match: `*` or its entity-tags; present but empty or wholly malformed = `[]` (matches nothing). */
  ifMatch: EntityTagList | undefined
  /** If-Unmodified-Since, when a valid date and there is no If-Match (§13.1.4). */
  ifUnmodifiedSince: number | undefined
  /** If-None-Match, when it is `*` or holds at least one well-formed entity-tag. */
  ifNoneMatch: EntityTagList | undefined
  /** If-Modified-Since, when a valid date on GET/HEAD/QUERY with no If-None-Match (§13.1.3). */
  ifModifiedSince: number | undefined
  /** Accept-Encoding, for If-None-Match on GET/HEAD/QUERY (see `evaluateParsed`). */
  acceptEncoding: string | undefined
}

const NO_PRECONDITIONS: Preconditions = Object.freeze({
  ifMatch: undefined,
  ifUnmodifiedSince: undefined,
  ifNoneMatch: undefined,
  ifModifiedSince: undefined,
  acceptEncoding: undefined,
})

/**
 * Reads the precondition fields of a request the way they are evaluated. An If-Match that is
 * present is always kept (an empty or malformed one is a list that matches nothing: fail
 * closed); an empty or malformed If-None-Match, an invalid date, If-Unmodified-Since beside
 * If-Match and If-Modified-Since on a method other than GET/HEAD/QUERY or beside If-None-Match are
 * ignored, so they are left out.
 */
export function readPreconditions(
  method: string,
  headers: ConditionalHeaders,
  now?: number,
): Preconditions {
  const rawIfMatch = headers['if-match']
  // Most requests carry none: no parsing, no clock, nothing allocated.
  if (
    rawIfMatch === undefined &&
    headers['if-none-match'] === undefined &&
    headers['if-modified-since'] === undefined &&
    headers['if-unmodified-since'] === undefined
  ) {
    return NO_PRECONDITIONS
  }
  const ifMatch = rawIfMatch === undefined ? undefined : (parseEntityTagList(rawIfMatch) ?? [])
  const parsed = parseEntityTagList(headers['if-none-match'])
  const ifNoneMatch =
    parsed === '*' || (parsed !== undefined && parsed.length > 0) ? parsed : undefined
  return {
    ifMatch,
    ifUnmodifiedSince:
      ifMatch === undefined ? parseHttpDate(headers['if-unmodified-since'], now) : undefined,
    ifNoneMatch,
    ifModifiedSince:
      isSafeReadMethod(method) && ifNoneMatch === undefined
        ? parseHttpDate(headers['if-modified-since'], now)
        : undefined,
    acceptEncoding: headers['accept-encoding'],
  }
}

/** True when at least one precondition is left to evaluate. */
export function isConditional(preconditions: Preconditions): boolean {
  return (
    preconditions.ifMatch !== undefined ||
    preconditions.ifUnmodifiedSince !== undefined ||
    preconditions.ifNoneMatch !== undefined ||
    preconditions.ifModifiedSince !== undefined
  )
}

/**
 * True when the request carries a precondition the evaluation uses for `method` (GET when
 * not given): an If-Match (any value), a parsable If-None-Match, a valid If-Unmodified-Since
 * without If-Match, or, for GET/HEAD/QUERY, a valid If-Modified-Since without If-None-Match.
 */
export function hasPrecondition(headers: ConditionalHeaders, method = 'GET'): boolean {
  return isConditional(readPreconditions(method, headers))
}

/**
 * Evaluates If-Match, If-Unmodified-Since, If-None-Match and If-Modified-Since in the order
 * of RFC 9110 §13.2.2 (steps 1-4; step 5, If-Range, is `evaluateIfRange`).
 */
export function evaluatePreconditions(
  method: string,
  headers: ConditionalHeaders,
  current: CurrentValidators,
  now?: number,
): PreconditionOutcome {
  return evaluateParsed(method, readPreconditions(method, headers, now), current)
}

/** `evaluatePreconditions` on preconditions already read. */
export function evaluateParsed(
  method: string,
  preconditions: Preconditions,
  current: CurrentValidators,
): PreconditionOutcome {
  // A read compares the tags of the selected representation; a write, those of the stored
  // state, which the tag of any of its representations names (`findState`).
  const read = isSafeReadMethod(method)
  // 1. If-Match: strong comparison; `*` is true when a current representation exists
  const ifMatch = preconditions.ifMatch
  if (ifMatch !== undefined) {
    const ok =
      current.exists &&
      (ifMatch === '*' ||
        (current.etag !== undefined &&
          (read
            ? findMatch(ifMatch, current.etag, true)
            : findState(ifMatch, current.etag, true)) !== undefined))
    if (!ok) return { result: 'failed', field: 'if-match' }
  } else {
    // 2. If-Unmodified-Since (only without If-Match); ignored when no date is known
    const since = preconditions.ifUnmodifiedSince
    if (since !== undefined && current.lastModified !== undefined && current.lastModified > since) {
      return { result: 'failed', field: 'if-unmodified-since' }
    }
  }
  // 3. If-None-Match: weak comparison; `*` is true when a current representation exists.
  //    On GET/HEAD/QUERY the 304 lets a cache send the copy it holds, so a tag naming an encoded
  //    copy (`"<tag>-gzip"`) matches only when the request accepts that coding: a cache
  //    revalidating for a client without gzip must not be told to send it its gzip copy.
  //    For other methods the tags name the resource's state, in whatever form and coding.
  const ifNoneMatch = preconditions.ifNoneMatch
  if (ifNoneMatch !== undefined) {
    const accepts = (coding: string) => acceptsCoding(preconditions.acceptEncoding, coding)
    const held = !current.exists
      ? undefined
      : ifNoneMatch === '*'
        ? (current.etag ?? { weak: false, opaque: '' })
        : current.etag === undefined
          ? undefined
          : read
            ? findMatch(ifNoneMatch, current.etag, false, accepts)
            : findState(ifNoneMatch, current.etag, false)
    if (held === undefined) return PROCEED
    if (!read) return { result: 'failed', field: 'if-none-match' }
    return { result: 'not-modified', etag: sentTag(held, current.etag) }
  }
  // 4. If-Modified-Since (only for GET/HEAD/QUERY, without If-None-Match: left out otherwise)
  const since = preconditions.ifModifiedSince
  if (since !== undefined && current.exists && current.lastModified !== undefined) {
    if (current.lastModified <= since) return { result: 'not-modified', etag: current.etag }
  }
  return PROCEED
}

/**
 * True when a write's preconditions are checked against the stored state at all: If-Match or
 * If-None-Match, or If-Unmodified-Since when the resource has a modification date (it is
 * ignored otherwise, §13.1.4). What `requirePrecondition` asks of a write.
 */
export function checksStoredState(
  preconditions: Preconditions,
  current: CurrentValidators,
): boolean {
  return (
    preconditions.ifMatch !== undefined ||
    preconditions.ifNoneMatch !== undefined ||
    (preconditions.ifUnmodifiedSince !== undefined && current.lastModified !== undefined)
  )
}

const CREATE_POST: ReadonlySet<string> = new Set(['POST'])
const CREATE_POST_PUT: ReadonlySet<string> = new Set(['POST', 'PUT'])
const CREATE_POST_PUT_PATCH: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH'])

/**
 * The write methods whose request may create a missing target, from a route's `creates`: POST
 * always, PUT unless `creates` is false, PATCH only when true, DELETE never. For them a missing
 * target is evaluated as no representation (RFC 9110 §13.1.1); for the others it is 404.
 */
export function creatingMethods(creates: boolean | undefined): ReadonlySet<string> {
  if (creates === undefined) return CREATE_POST_PUT
  return creates ? CREATE_POST_PUT_PATCH : CREATE_POST
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
