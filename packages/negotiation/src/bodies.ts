/**
 * Request bodies: JSON and form-urlencoded parsers that refuse bytes which are not UTF-8
 * (RFC 8259 §8.1; the WHATWG URL standard reads form bodies as UTF-8) instead of decoding them
 * to U+FFFD. Each checks the bytes (`isUtf8`, one native call) and hands the body to the parser
 * it stands in front of: Fastify's own JSON parser, `@fastify/formbody`'s.
 */
import { isUtf8 } from 'node:buffer'
import { createRequire } from 'node:module'
import type { FastifyFormbodyOptions } from '@fastify/formbody'
import { ErrorCode, httpErrors, invalidUtf8, OptionsError, validationError } from '@restwell/errors'
import {
  BODY_BYTES,
  isPlainSchema,
  type JsonBodyCheck,
  type SchemaAccess,
} from '@restwell/core/internal'
import type { FastifyBodyParser, FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { FORM_URLENCODED, MULTIPART } from './options.js'

/** The form media types: a browser sends them from any origin without a CORS preflight. */
const FORM_TYPES: ReadonlySet<string> = new Set([FORM_URLENCODED, MULTIPART])

/**
 * Fastify's default JSON parser, with the poisoning settings the app was created with (Fastify
 * fills both in `initialConfig`, `'error'` by default), behind the UTF-8 check, and followed by
 * the request's check of JSON types (`typesOf`: its route's, if any), a 400 before Fastify's
 * validator would convert them. Empty bodies, malformed JSON, `__proto__`/`constructor`
 * poisoning and the body limit stay Fastify's. The bytes are kept on the request
 * (`BODY_BYTES`): a fingerprint of the body hashes them rather than the parsed value.
 */
export function utf8JsonParser(
  fastify: FastifyInstance,
  typesOf: (request: FastifyRequest) => JsonBodyCheck | undefined,
): FastifyBodyParser<Buffer> {
  const config = fastify.initialConfig
  const parse = fastify.getDefaultJsonParser(
    config.onProtoPoisoning!,
    config.onConstructorPoisoning!,
  )
  return function parseUtf8Json(request, body, done) {
    if (!isUtf8(body)) {
      done(invalidUtf8(), undefined)
      return
    }
    ;(request as { [BODY_BYTES]?: Buffer })[BODY_BYTES] = body
    const check = typesOf(request)
    if (check === undefined) {
      parse(request, body.toString(), done)
      return
    }
    parse(request, body.toString(), (error, value) => {
      const problems = error ? undefined : check(value)
      if (problems === undefined) done(error, value)
      else done(validationError(problems, 'body'), undefined)
    })
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
  // Loaded here, at registration: importing the package does not load it.
  const formbody = createRequire(import.meta.url)(
    '@fastify/formbody',
  ) as typeof import('@fastify/formbody').default
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
 * The key of this plugin's form parser: a pattern of the one type, not the type itself. Fastify
 * prefers a parser registered for the exact type to a pattern, and refuses a second one for a
 * type: so an app's own form parser (`@fastify/formbody`), registered before or after this
 * plugin, is the one that parses, instead of failing on this one.
 */
export const FORM_PATTERN = /^application\/x-www-form-urlencoded(?:;|$)/

/** Whether `instance` parses form-urlencoded bodies: with the app's parser or this plugin's. */
export function parsesForms(instance: FastifyInstance): boolean {
  return (
    instance.hasContentTypeParser(FORM_URLENCODED) || instance.hasContentTypeParser(FORM_PATTERN)
  )
}

/**
 * Adds a parser for `type` unless the app has one of its own: Fastify lets its default JSON
 * parser be replaced, and refuses (`FST_ERR_CTP_ALREADY_PRESENT`) any other, which is kept.
 * Returns whether this parser was added.
 */
export function addParserUnlessPresent(
  fastify: FastifyInstance,
  type: string | RegExp,
  parser: BodyParser,
): boolean {
  try {
    fastify.addContentTypeParser(
      type,
      { parseAs: 'buffer', bodyLimit: parser.bodyLimit },
      parser.parser,
    )
    return true
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'FST_ERR_CTP_ALREADY_PRESENT') throw error
    return false
  }
}

/**
 * `parser` for the requests `accepts` lets through, else 415: a form body is parsed only on a
 * route that declares it (the check of `Content-Type` does not run on routes without
 * negotiation).
 */
export function declaredOnly(
  parser: BodyParser,
  type: string,
  accepts: (request: FastifyRequest) => boolean,
): BodyParser {
  return {
    bodyLimit: parser.bodyLimit,
    parser: function parseDeclaredForm(request, body, done) {
      if (accepts(request)) parser.parser(request, body, done)
      else {
        done(
          httpErrors.unsupportedMediaType(`This route does not accept ${type} bodies`, {
            code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          }),
          undefined,
        )
      }
    },
  }
}

/** The media types a route's schema says it consumes (`schema.consumes`, as @fastify/swagger reads it). */
export function schemaConsumes(schema: unknown): string[] | undefined {
  const consumes = (schema as { consumes?: unknown } | undefined)?.consumes
  return Array.isArray(consumes) && consumes.every((type) => typeof type === 'string')
    ? consumes
    : undefined
}

/** The media types a route's body schema lists in `content` (Fastify's per-type schemas). */
export function bodyContentTypes(schema: unknown): string[] | undefined {
  const content = (schema as { body?: { content?: unknown } } | undefined)?.body?.content
  const types = content instanceof Object ? Object.keys(content) : []
  return types.length === 0 ? undefined : types
}

/** Whether a list of media types holds a form type. */
export function hasFormType(consumes: Iterable<string>): boolean {
  for (const type of consumes) if (FORM_TYPES.has(type)) return true
  return false
}

/**
 * Refuses, at registration, a route that declares a form type no parser reads: Fastify would
 * answer every such request 415.
 */
export function checkFormParsers(
  instance: FastifyInstance,
  where: string,
  consumes: readonly string[],
): void {
  for (const type of FORM_TYPES) {
    const parsed = type === MULTIPART ? instance.hasContentTypeParser(type) : parsesForms(instance)
    if (consumes.includes(type) && !parsed) {
      const option = type === MULTIPART ? 'multipart' : 'formbody'
      throw new OptionsError(
        where,
        'consumes',
        `lists ${type}, which no parser reads: set ${option}: true in the @restwell/negotiation options (negotiation.${option} in restwell's)`,
      )
    }
  }
}

/**
 * Describes the form bodies a route declares for @fastify/swagger: a route without a body
 * schema gets one per media type it consumes (an object for a form, and for multipart when its
 * parts are read into the body; anything for the others; only where Fastify's own validator
 * reads it), a route with one gets `schema.consumes`, so the
 * body schema is listed under each type. A schema that is not a plain object is left alone.
 */
export function describeFormBodies(
  route: RouteOptions,
  consumes: readonly string[],
  access: SchemaAccess,
  multipartObject: boolean,
): void {
  if (!hasFormType(consumes)) return
  const schema = route.schema
  if (schema !== undefined && !isPlainSchema(schema)) return
  if (schema?.body === undefined) {
    if (!access.validation) return
    const content: Record<string, { schema: object }> = {}
    for (const type of consumes) {
      const object = type === FORM_URLENCODED || (type === MULTIPART && multipartObject)
      content[type] = { schema: object ? { type: 'object' } : {} }
    }
    route.schema = { ...schema, body: { content } }
    return
  }
  const body = schema.body as { content?: unknown }
  if (schemaConsumes(schema) === undefined && body.content === undefined) {
    const described: Record<string, unknown> = { ...schema, consumes: [...consumes] }
    route.schema = described
  }
}
