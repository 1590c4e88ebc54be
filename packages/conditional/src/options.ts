/** Options of `@restwell/conditional` and of its per-route `config.conditional`. */
import { type Static, Type } from '@sinclair/typebox'
import { DEFAULT_MAX_RANGES } from './range.js'

export const ConditionalOptionsSchema = Type.Object(
  {
    etag: Type.Optional(Type.Boolean()),
    weak: Type.Optional(Type.Boolean()),
    ranges: Type.Optional(Type.Boolean()),
    maxRanges: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    requirePrecondition: Type.Optional(Type.Boolean()),
    varyAcceptEncoding: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/**
 * @param etag Hash the bytes of GET responses into a strong ETag when the handler gives no validator. [true]
 * @param weak Make hashed ETags weak (`W/"..."`), for bodies whose bytes are not stable. [false]
 * @param ranges Answer `Range: bytes=` on GET routes with a byte body (string or Buffer). [true]
 * @param maxRanges Most range-specs in one Range header; a longer set is ignored (200). [8]
 * @param requirePrecondition Writes on routes with `getValidator` must carry a precondition the check uses (If-Match, a parsable If-None-Match, a valid If-Unmodified-Since on a resource with a date), else 428. [false]
 * @param varyAcceptEncoding Add `Vary: Accept-Encoding` to 200/206/304 of GET routes. [true when @fastify/compress is registered and the route does not set `compress: false`]
 */
export type ConditionalOptions = Static<typeof ConditionalOptionsSchema>

export const RouteConfigSchema = Type.Object(
  {
    etag: Type.Optional(Type.Boolean()),
    weak: Type.Optional(Type.Boolean()),
    ranges: Type.Optional(Type.Boolean()),
    requirePrecondition: Type.Optional(Type.Boolean()),
    varyAcceptEncoding: Type.Optional(Type.Boolean()),
    etagField: Type.Optional(Type.String({ minLength: 1 })),
    idField: Type.Optional(Type.String({ minLength: 1 })),
    lastModifiedField: Type.Optional(Type.String({ minLength: 1 })),
    getValidator: Type.Optional(Type.Function([], Type.Unknown())),
    creates: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/** Plugin options with their defaults applied. */
export interface ResolvedConditionalOptions {
  etag: boolean
  weak: boolean
  ranges: boolean
  maxRanges: number
  requirePrecondition: boolean
  varyAcceptEncoding: boolean | undefined
}

export function resolveConditionalOptions(options: ConditionalOptions): ResolvedConditionalOptions {
  return {
    etag: options.etag ?? true,
    weak: options.weak ?? false,
    ranges: options.ranges ?? true,
    maxRanges: options.maxRanges ?? DEFAULT_MAX_RANGES,
    requirePrecondition: options.requirePrecondition ?? false,
    varyAcceptEncoding: options.varyAcceptEncoding,
  }
}
