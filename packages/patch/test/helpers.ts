/** Test helpers shared by this package's tests. */
import { type HttpError, isHttpError } from '@restwell/errors'

/** Runs `fn`, which must throw an `HttpError`, and returns that error. */
export function failure(fn: () => unknown): HttpError {
  try {
    fn()
  } catch (error) {
    if (isHttpError(error)) return error
    throw error
  }
  throw new Error('expected an HttpError, nothing was thrown')
}

/** The status, code and first detail's field of an `HttpError`, for one `t.same`. */
export function summary(error: HttpError): {
  status: number
  code: string
  field: string | undefined
} {
  return { status: error.statusCode, code: error.code, field: error.details[0]?.field }
}
