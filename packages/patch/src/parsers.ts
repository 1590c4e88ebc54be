/** The body parsers of the patch media types: UTF-8 JSON, read as the request's route's patch. */
import { isUtf8 } from 'node:buffer'
import { BODY_BYTES } from '@restwell/core/internal'
import { ErrorCode, httpErrors, invalidUtf8, validationError } from '@restwell/errors'
import type { FastifyBodyParser, FastifyInstance } from 'fastify'
import { PATCH_FORMATS, PATCH_MEDIA_TYPES, type PatchFormat } from './content-type.js'
import { PARSED, type PatchRequest, parsePatch, ROUTE } from './request.js'

type JsonParser = ReturnType<FastifyInstance['getDefaultJsonParser']>

/**
 * The parser of `format`'s bodies: refused off a patch route, and when not UTF-8 (RFC 8259
 * §8.1: decoding would turn the bytes into U+FFFD); then JSON, the patch read and its JSON types
 * checked against the route's own body schema (a patch may not convert them either).
 */
function patchBodyParser(format: PatchFormat, parseJson: JsonParser): FastifyBodyParser<Buffer> {
  const type = PATCH_MEDIA_TYPES[format]
  return function parsePatchBody(request, body, done): void {
    const settings = (request as PatchRequest)[ROUTE]
    if (settings === undefined) {
      const message = `${type} is accepted only by patch routes`
      done(
        httpErrors.unsupportedMediaType(message, { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE }),
        undefined,
      )
      return
    }
    if (!isUtf8(body)) {
      done(invalidUtf8(), undefined)
      return
    }
    // The bytes, for a fingerprint of the body (`@restwell/idempotency`'s).
    ;(request as { [BODY_BYTES]?: Buffer })[BODY_BYTES] = body
    parseJson(request, body.toString('utf8'), (error, value) => {
      if (error) {
        done(error, undefined)
        return
      }
      try {
        ;(request as PatchRequest)[PARSED] = parsePatch(format, value, settings.maxOperations)
      } catch (thrown) {
        done(thrown as Error, undefined)
        return
      }
      const problems = settings.jsonTypes[format]?.(value)
      if (problems === undefined) done(null, value)
      else done(validationError(problems, 'body'), undefined)
    })
  }
}

/**
 * Adds a parser for each patch media type the app parses no other way: the same JSON parser as
 * Fastify's own, with the app's poisoning settings (Fastify fills both in `initialConfig`).
 */
export function addPatchParsers(fastify: FastifyInstance): void {
  const config = fastify.initialConfig
  const parseJson = fastify.getDefaultJsonParser(
    config.onProtoPoisoning!,
    config.onConstructorPoisoning!,
  )
  for (const format of PATCH_FORMATS) {
    const type = PATCH_MEDIA_TYPES[format]
    if (fastify.hasContentTypeParser(type)) continue
    fastify.addContentTypeParser(type, { parseAs: 'buffer' }, patchBodyParser(format, parseJson))
  }
}
