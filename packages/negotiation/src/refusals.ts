/** The errors negotiation answers a request with before its body is read: 400, 406, 415. */
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'

/** 406 with the types the route produces in `Accept`. */
export function notAcceptable(message: string, produces: string): HttpError {
  return httpErrors.notAcceptable(message, {
    code: ErrorCode.NOT_ACCEPTABLE,
    headers: { accept: produces },
  })
}

/** 406 for an `Accept-Charset` that excludes UTF-8, the only charset served. */
export function charsetNotAcceptable(): HttpError {
  return httpErrors.notAcceptable('UTF-8 is the only charset served', {
    code: ErrorCode.UNSUPPORTED_CHARSET,
    details: [
      {
        field: 'headers/accept-charset',
        message: 'excludes utf-8',
        code: ErrorCode.UNSUPPORTED_CHARSET,
      },
    ],
  })
}

/** 400 for a header `name` that cannot be read. */
export function malformedHeader(name: string): HttpError {
  return httpErrors.badRequest(`Malformed ${name} header`, {
    code: ErrorCode.MALFORMED_HEADER,
    details: [
      {
        field: `headers/${name.toLowerCase()}`,
        message: 'is malformed',
        code: ErrorCode.MALFORMED_HEADER,
      },
    ],
  })
}

/** 400 for a `?<param>=` naming no format, with the names there are. */
export function unknownFormat(param: string, names: readonly string[]): HttpError {
  return httpErrors.badRequest(`Unknown format; use one of: ${names.join(', ')}`, {
    code: ErrorCode.UNKNOWN_FORMAT,
    details: [
      {
        field: `querystring/${param}`,
        message: 'is not a known format',
        code: ErrorCode.UNKNOWN_FORMAT,
      },
    ],
  })
}

/** The headers naming what a route takes: `Accept`, and `Accept-Query` on a QUERY route. */
function takes(consumes: string, acceptQuery: string | undefined): Record<string, string> {
  return acceptQuery === undefined
    ? { accept: consumes }
    : { accept: consumes, 'accept-query': acceptQuery }
}

/** 415 with the types the route consumes in `Accept` (and `Accept-Query`, for a QUERY). */
export function unsupportedMediaType(
  message: string,
  consumes: string,
  acceptQuery?: string,
): HttpError {
  return httpErrors.unsupportedMediaType(message, {
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    headers: takes(consumes, acceptQuery),
  })
}

/**
 * 400 for a QUERY without a `Content-Type`: its content has no meaning without one (RFC 10008
 * §2), whether it has a body or none.
 */
export function contentTypeRequired(consumes: string, acceptQuery: string | undefined): HttpError {
  return httpErrors.badRequest(
    `A QUERY needs content with a Content-Type; use one of: ${consumes}`,
    {
      code: ErrorCode.CONTENT_TYPE_REQUIRED,
      details: [
        {
          field: 'headers/content-type',
          message: 'is required',
          code: ErrorCode.CONTENT_TYPE_REQUIRED,
        },
      ],
      headers: takes(consumes, acceptQuery),
    },
  )
}
