/**
 * Request bodies in a content coding (RFC 9110 §8.4): gzip, br, deflate, and zstd where Node's
 * zlib has it, decoded with node:zlib before Fastify reads them. Fastify's `bodyLimit` applies
 * to the decoded bytes, and `Content-Length` is checked against the bytes received.
 */
import { pipeline, type Transform } from 'node:stream'
import zlib from 'node:zlib'
import { type BodyStep, bodyStep, type RouteEntry, routeName } from '@restwell/core'
import { servedMethods } from '@restwell/core/internal'
import { ErrorCode, httpErrors, validateOptions } from '@restwell/errors'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'

type Coding = 'zstd' | 'br' | 'gzip' | 'deflate'
type RequestCoding = Coding | 'identity'

const createZstdDecompress = (zlib as { createZstdDecompress?: () => Transform })
  .createZstdDecompress

const DECODERS: Readonly<Record<Coding, (() => Transform) | undefined>> = {
  zstd: createZstdDecompress,
  br: zlib.createBrotliDecompress,
  gzip: zlib.createGunzip,
  deflate: zlib.createInflate,
}

/** The codings decoded, in order: zstd only where Node's zlib has it (22.15+). */
export const REQUEST_CODINGS: readonly Coding[] = (
  ['zstd', 'br', 'gzip', 'deflate'] as const
).filter((coding) => DECODERS[coding] !== undefined)

const CodingSchema = Type.Union(
  ['zstd', 'br', 'gzip', 'deflate', 'identity'].map((coding) => Type.Literal(coding)),
)

/**
 * A route's own `decompress` option.
 * @param requestEncodings The codings this route accepts, `identity` included when listed. [every coding, and identity]
 * @param forceRequestEncoding Decode every body with this coding, whatever `Content-Encoding` says. [none]
 * @param onUnsupportedRequestEncoding The error for a coding not accepted. [415 `UNSUPPORTED_CONTENT_ENCODING`]
 * @param onInvalidRequestPayload What a body that cannot be decoded becomes (merged into the decoder's error). [400]
 */
export const RouteDecompressSchema = Type.Object(
  {
    requestEncodings: Type.Optional(Type.Array(CodingSchema, { minItems: 1, uniqueItems: true })),
    forceRequestEncoding: Type.Optional(CodingSchema),
    onUnsupportedRequestEncoding: Type.Optional(
      Type.Function([Type.String(), Type.Unknown()], Type.Unknown()),
    ),
    onInvalidRequestPayload: Type.Optional(
      Type.Function([Type.String(), Type.Unknown(), Type.Unknown()], Type.Unknown()),
    ),
  },
  { additionalProperties: false },
)

/** A route's own `decompress` option (see `RouteDecompressSchema`). */
export interface RouteDecompressSettings {
  requestEncodings?: RequestCoding[]
  forceRequestEncoding?: RequestCoding
  onUnsupportedRequestEncoding?: (
    encoding: string,
    request: FastifyRequest,
  ) => Error | undefined | null
  onInvalidRequestPayload?: (
    encoding: string,
    request: FastifyRequest,
    error: Error,
  ) => Error | undefined | null
}

/** Spellings of a coding compared as they are; any other is trimmed and lower-cased first. */
const CANONICAL_CODINGS: ReadonlySet<string> = new Set([...REQUEST_CODINGS, 'identity'])

/**
 * The coding a `Content-Encoding` names: codings are case-insensitive (RFC 9110 §8.4.1) and
 * `x-gzip` is `gzip` (§8.4.1.3). Only an unusual spelling is rewritten.
 */
function canonicalCoding(coding: string): string {
  if (CANONICAL_CODINGS.has(coding)) return coding
  const lower = coding.trim().toLowerCase()
  return lower === 'x-gzip' ? 'gzip' : lower
}

const INVALID_PAYLOAD = 'Could not decompress the request payload using the provided encoding'

/** The 415 for a coding not accepted, naming the codings that are (RFC 9110 §12.5.3). */
function unsupportedCoding(coding: string, acceptEncoding: string): Error {
  return httpErrors.unsupportedMediaType(
    `The request body's Content-Encoding ${JSON.stringify(coding.slice(0, 64))} is not supported`,
    {
      code: ErrorCode.UNSUPPORTED_CONTENT_ENCODING,
      headers: { 'accept-encoding': acceptEncoding },
    },
  )
}

/** What a hook returns; nothing when it is not set or throws (as if it were not set). */
function attempt<A extends unknown[], T>(
  hook: ((...args: A) => T) | undefined,
  ...args: A
): T | undefined {
  try {
    return hook?.(...args)
  } catch {
    return undefined
  }
}

/** The body step of one route's settings. */
function decoder(settings: RouteDecompressSettings): BodyStep {
  const listed = settings.requestEncodings
  let accepted: readonly RequestCoding[] =
    listed === undefined
      ? [...REQUEST_CODINGS, 'identity']
      : [...REQUEST_CODINGS, 'identity' as const]
          .filter((coding) => listed.includes(coding))
          .sort((a, b) => listed.indexOf(a) - listed.indexOf(b))
  const forced = settings.forceRequestEncoding
  if (forced !== undefined && accepted.includes(forced)) accepted = [forced]
  const acceptEncoding = accepted.filter((coding) => coding !== 'identity').join(', ')

  return bodyStep(function restwellDecompress(request, _reply, payload) {
    const header = request.headers['content-encoding']
    if (header !== undefined) request.headers['content-encoding'] = canonicalCoding(header)
    const coding = forced ?? request.headers['content-encoding']
    if (!coding) return undefined
    if (!accepted.includes(coding as RequestCoding)) {
      const error = attempt(settings.onUnsupportedRequestEncoding, coding, request)
      return error ?? unsupportedCoding(coding, acceptEncoding)
    }
    if (coding === 'identity') return undefined
    const decode = Object.assign((DECODERS[coding as Coding] as () => Transform)(), {
      receivedEncodedLength: 0,
    })
    decode.on('error', (error: Error) => {
      request.log.debug(`restwell: a request body that cannot be decoded (${coding}): ${error}`)
      // Fastify's body reader answers with the error the stream emitted: it takes the 400's fields.
      const replaced = attempt(settings.onInvalidRequestPayload, coding, request, error)
      if (replaced) {
        Object.assign(error, replaced)
        return
      }
      const { statusCode, code, message } = httpErrors.badRequest(INVALID_PAYLOAD)
      Object.assign(error, { statusCode, code, message })
    })
    decode.pause()
    payload.on('data', (chunk: Buffer) => {
      decode.receivedEncodedLength += chunk.length
    })
    // The decoder's own error handler above reports a failure; the callback has nothing to add.
    pipeline(payload, decode, () => {})
    return decode
  })
}

/** Methods whose request body Fastify never reads (its `bodyless` set). */
const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE'])

/**
 * The decoder of a route that may read a body, run before the route's own `preParsing` hooks.
 * `decompress: false` turns it off; a route of bodyless methods only (GET, HEAD, TRACE) gets
 * none unless it sets `decompress`, since Fastify reads no body there. `plugin` names the
 * plugin in the message for a bad option.
 */
export function requestDecoder(route: RouteEntry, plugin: string): BodyStep | undefined {
  const own = (route as { decompress?: unknown }).decompress
  if (own === false) return undefined
  const methods = servedMethods(route)
  if (own === undefined && methods.every((method) => BODYLESS_METHODS.has(method))) return undefined
  const where = `${plugin} (decompress of ${routeName(route)})`
  const settings = validateOptions(where, RouteDecompressSchema, own) as RouteDecompressSettings
  return decoder(settings)
}
