/** The check of a request body's `Content-Type` against the types its route consumes (415). */
import type { HttpError } from '@restwell/errors'
import type { FastifyRequest } from 'fastify'
import { remembered } from './accept.js'
import { type ContentType, parseContentType } from './content-type.js'
import { MEDIA_TYPES } from './options.js'
import { contentTypeRequired, malformedHeader, unsupportedMediaType } from './refusals.js'
import type { RouteSettings } from './settings.js'

/** `parseContentType` with `null` for "not one media type", as a memo's verdict. */
const parseOrNull = (header: string): ContentType | null => parseContentType(header) ?? null

function bodyPresent(request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return (
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
  )
}

/** A `charset` parameter that names UTF-8. */
function namesUtf8(value: string): boolean {
  const lower = value.toLowerCase()
  return lower === 'utf-8' || lower === 'utf8'
}

/**
 * The 415 (or the 400 of a malformed `Content-Type`) for a body the route does not consume,
 * undefined for one it does or no body. A QUERY without a `Content-Type`, with a body or none,
 * is a 400 (RFC 10008 §2), and its 415 names `Accept-Query`. `contentTypes` remembers the
 * values parsed so far.
 */
export function checkBody(
  request: FastifyRequest,
  settings: RouteSettings,
  consumes: ReadonlySet<string>,
  contentTypes: Map<string, ContentType | null>,
): HttpError | undefined {
  const acceptQuery = request.method === 'QUERY' ? settings.acceptQuery : undefined
  const header = request.headers['content-type']
  const untyped = header === undefined || header.trim() === ''
  if (acceptQuery !== undefined && untyped) {
    return contentTypeRequired(settings.consumesHeader, acceptQuery)
  }
  if (!bodyPresent(request)) return undefined
  if (untyped) {
    return unsupportedMediaType(
      'The request has a body but no Content-Type',
      settings.consumesHeader,
    )
  }
  const contentType = remembered(contentTypes, header, parseOrNull)
  if (contentType === null) return malformedHeader('Content-Type')
  if (!consumes.has(contentType.essence)) {
    return unsupportedMediaType(
      `Content-Type ${contentType.essence} is not supported here; use one of: ${settings.consumesHeader}`,
      settings.consumesHeader,
      acceptQuery,
    )
  }
  // JSON:API 1.1 (server responsibilities): 415 for any parameter but `ext` and `profile`, and
  // for an `ext` naming an extension the server does not support (restwell supports none).
  const other =
    contentType.essence === MEDIA_TYPES.jsonApi
      ? contentType.params.find(([name]) => name !== 'profile')
      : undefined
  if (other !== undefined) {
    return unsupportedMediaType(
      `The JSON:API media type takes no "${other[0]}" parameter here (JSON:API allows only ext and profile, and no extension is supported)`,
      settings.consumesHeader,
      acceptQuery,
    )
  }
  const charset = contentType.params.find(([name]) => name === 'charset')
  if (charset !== undefined && !namesUtf8(charset[1])) {
    return unsupportedMediaType(
      `Request bodies must be UTF-8, got charset ${charset[1]}`,
      settings.consumesHeader,
      acceptQuery,
    )
  }
  return undefined
}
