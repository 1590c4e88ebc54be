/** `multipart/form-data` request bodies: fields and files collected into `request.body`. */
import type { MultipartFile as MultipartPart, MultipartValue } from '@fastify/multipart'
import { ErrorCode, type HttpError, httpErrors, isHttpError } from '@restwell/errors'
import type { FastifyRequest, preValidationHookHandler } from 'fastify'
import type { MultipartFile } from './augment.js'

/** @fastify/multipart's limit errors, all 413. */
const LIMIT_CODES = new Set([
  'FST_REQ_FILE_TOO_LARGE',
  'FST_PARTS_LIMIT',
  'FST_FILES_LIMIT',
  'FST_FIELDS_LIMIT',
])

/** Maps an error raised while reading a multipart body to a restwell `HttpError`. */
export function multipartError(error: unknown): HttpError {
  if (isHttpError(error)) return error
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : 'Malformed multipart body'
  if (typeof code === 'string' && LIMIT_CODES.has(code)) {
    return httpErrors.payloadTooLarge(`Multipart body exceeds a limit: ${message}`, {
      code: ErrorCode.MULTIPART_LIMIT,
      cause: error,
    })
  }
  return httpErrors.badRequest(`Malformed multipart body: ${message}`, {
    code: ErrorCode.MALFORMED_MULTIPART,
    cause: error,
  })
}

function add(body: Record<string, unknown>, name: string, value: unknown): void {
  const previous = body[name]
  if (previous === undefined) body[name] = value
  else if (Array.isArray(previous)) previous.push(value)
  else body[name] = [previous, value]
}

/**
 * Reads every part of a multipart request: a field becomes its value, a file
 * `{ filename, mimetype, encoding, data }`; a name sent twice becomes an array. A limit
 * (file size, field size, counts) is a 413, a malformed body a 400.
 */
export async function readMultipart(request: FastifyRequest): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {}
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const file = part as MultipartPart
        const data = await file.toBuffer()
        const value: MultipartFile = {
          filename: file.filename,
          mimetype: file.mimetype,
          encoding: file.encoding,
          data,
        }
        add(body, file.fieldname, value)
      } else {
        const field = part as MultipartValue & {
          fieldnameTruncated: boolean
          valueTruncated: boolean
        }
        if (field.valueTruncated || field.fieldnameTruncated) {
          throw httpErrors.payloadTooLarge(
            `Multipart field "${field.fieldname}" exceeds the size limit`,
            {
              code: ErrorCode.MULTIPART_LIMIT,
              details: [
                {
                  field: `body/${field.fieldname}`,
                  message: 'exceeds the size limit',
                  code: ErrorCode.MULTIPART_LIMIT,
                },
              ],
            },
          )
        }
        add(body, field.fieldname, field.value)
      }
    }
  } catch (error) {
    throw multipartError(error)
  }
  return body
}

/** The `preValidation` hook of a route that consumes multipart: its parts read into the body. */
export const negotiationMultipart: preValidationHookHandler = async function negotiationMultipart(
  request,
) {
  if (request.isMultipart()) request.body = await readMultipart(request)
}
