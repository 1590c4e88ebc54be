/** Request bodies must be UTF-8 (RFC 8259 §8.1 for JSON; the WHATWG URL standard for forms). */
import { ErrorCode } from './codes.js'
import { type HttpError, httpErrors } from './http-error.js'

/**
 * The 400 for a request body whose bytes are not UTF-8, one for every parser that checks them
 * (`@restwell/negotiation`'s JSON and form parsers, `@restwell/patch`'s), instead of decoding
 * them to U+FFFD.
 */
export function invalidUtf8(): HttpError {
  return httpErrors.badRequest('The request body is not valid UTF-8', {
    code: ErrorCode.INVALID_UTF8,
    details: [{ field: 'body', message: 'is not valid UTF-8', code: ErrorCode.INVALID_UTF8 }],
  })
}
