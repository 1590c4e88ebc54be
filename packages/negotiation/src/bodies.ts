/**
 * JSON and form-urlencoded request body parsers that refuse bytes which are not UTF-8
 * (RFC 8259 §8.1; the WHATWG URL standard reads form bodies as UTF-8) instead of decoding them
 * to U+FFFD. Each checks the bytes (`isUtf8`, one native call) and hands the body to the parser
 * it stands in front of: Fastify's own JSON parser, `@fastify/formbody`'s.
 */
import { isUtf8 } from 'node:buffer'
import formbody, { type FastifyFormbodyOptions } from '@fastify/formbody'
import { invalidUtf8 } from '@restwell/errors'
import type { FastifyBodyParser, FastifyInstance } from 'fastify'

/**
 * Fastify's default JSON parser, with the poisoning settings the app was created with (Fastify
 * fills both in `initialConfig`, `'error'` by default), behind the UTF-8 check. Empty bodies,
 * malformed JSON, `__proto__`/`constructor` poisoning and the body limit stay Fastify's.
 */
export function utf8JsonParser(fastify: FastifyInstance): FastifyBodyParser<Buffer> {
  const config = fastify.initialConfig
  const parse = fastify.getDefaultJsonParser(
    config.onProtoPoisoning!,
    config.onConstructorPoisoning!,
  )
  return function parseUtf8Json(request, body, done) {
    if (isUtf8(body)) parse(request, body.toString(), done)
    else done(invalidUtf8(), undefined)
  }
}

/** A content-type parser and its options, as a plugin hands them to `addContentTypeParser`. */
export interface BodyParser {
  bodyLimit: number | undefined
  parser: FastifyBodyParser<Buffer>
}

/**
 * `@fastify/formbody`'s parser (its `fast-querystring` reading and `bodyLimit`) behind the UTF-8
 * check. The plugin function is called with a stand-in that only keeps what it passes to
 * `addContentTypeParser`: formbody decodes the buffer itself (`body.toString()`), so the check
 * has to come before its parser, not after.
 */
export function utf8FormParser(options: FastifyFormbodyOptions): BodyParser {
  let captured: { opts: { bodyLimit?: number }; parser: FastifyBodyParser<Buffer> } | undefined
  const standIn = {
    addContentTypeParser(
      _type: string,
      opts: { bodyLimit?: number },
      parser: FastifyBodyParser<Buffer>,
    ) {
      captured = { opts, parser }
    },
  }
  // formbody fails only for a `parser` option that is not a function; none is passed.
  formbody(standIn as unknown as FastifyInstance, options, () => {})
  const { opts, parser } = captured!
  return {
    bodyLimit: opts.bodyLimit,
    parser: function parseUtf8Form(request, body, done) {
      if (isUtf8(body)) parser(request, body, done)
      else done(invalidUtf8(), undefined)
    },
  }
}

/**
 * Adds a parser for `type` unless the app has one of its own: Fastify lets its default JSON
 * parser be replaced, and refuses (`FST_ERR_CTP_ALREADY_PRESENT`) any other, which is kept.
 */
export function addParserUnlessPresent(
  fastify: FastifyInstance,
  type: string,
  parser: BodyParser,
): void {
  try {
    fastify.addContentTypeParser(
      type,
      { parseAs: 'buffer', bodyLimit: parser.bodyLimit },
      parser.parser,
    )
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'FST_ERR_CTP_ALREADY_PRESENT') throw error
  }
}
