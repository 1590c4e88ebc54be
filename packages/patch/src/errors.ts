/** The errors a patch can fail with; every one an `HttpError` with an `ErrorCode` and a field. */
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'

/** Longest piece of client input echoed in an error message. */
const MAX_ECHO = 80

/** Client input quoted for a message, cut to `MAX_ECHO` characters. */
export function show(text: string): string {
  const json = JSON.stringify(text)
  return json.length > MAX_ECHO ? `${json.slice(0, MAX_ECHO - 4)}..."` : json
}

/** 400: the patch document itself is malformed (RFC 5789 §2.2 "malformed patch document"). */
export function invalidPatch(message: string, field: string): HttpError {
  return httpErrors.badRequest(message, {
    code: ErrorCode.INVALID_PATCH,
    details: [{ field, message, code: ErrorCode.INVALID_PATCH }],
  })
}

/** 422: the patch reaches `__proto__`, `constructor` or `prototype`. */
export function forbiddenPath(message: string, field: string): HttpError {
  return httpErrors.unprocessableEntity(message, {
    code: ErrorCode.FORBIDDEN_PATH,
    details: [{ field, message, code: ErrorCode.FORBIDDEN_PATH }],
  })
}

/** 409: an operation's target (or `from`) does not exist in the current document. */
export function targetMissing(message: string, field: string): HttpError {
  return httpErrors.conflict(message, {
    code: ErrorCode.PATCH_TARGET_MISSING,
    details: [{ field, message, code: ErrorCode.PATCH_TARGET_MISSING }],
  })
}

/** 409: a `test` operation found another value. */
export function testFailed(message: string, field: string): HttpError {
  return httpErrors.conflict(message, {
    code: ErrorCode.PATCH_TEST_FAILED,
    details: [{ field, message, code: ErrorCode.PATCH_TEST_FAILED }],
  })
}

/** 422: the patch changes a read-only field. */
export function readOnlyField(message: string, field: string): HttpError {
  return httpErrors.unprocessableEntity(message, {
    code: ErrorCode.READ_ONLY_FIELD,
    details: [{ field, message, code: ErrorCode.READ_ONLY_FIELD }],
  })
}
