/** Options of `@restwell/cors`, their defaults, and the request and response headers it lists. */
import { type Static, Type } from '@sinclair/typebox'

/** A header name as the lists take it. */
const HeaderName = Type.String({ pattern: '^[A-Za-z0-9-]+$' })
const Method = Type.String({ pattern: '^[A-Z]+$' })

/** How a POST may be overridden (`@restwell/method-override`), for the preflights of such POSTs. */
const MethodOverrideSchema = Type.Object(
  {
    header: Type.Union([Type.Literal(false), Type.String({ minLength: 1 })]),
    query: Type.Union([Type.Literal(false), Type.String({ minLength: 1 })]),
    methods: Type.Array(Method),
  },
  { additionalProperties: false },
)

export const CorsOptionsSchema = Type.Object(
  {
    origin: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1 }),
        Type.Array(Type.String({ minLength: 1 })),
        Type.Boolean(),
        Type.Unsafe<RegExp>(Type.Object({})),
      ]),
    ),
    credentials: Type.Optional(Type.Boolean()),
    methods: Type.Optional(Type.Array(Method)),
    allowedHeaders: Type.Optional(Type.Array(HeaderName)),
    exposedHeaders: Type.Optional(Type.Array(HeaderName)),
    maxAge: Type.Optional(Type.Integer({ minimum: 0 })),
    methodOverride: Type.Optional(Type.Union([Type.Literal(false), MethodOverrideSchema])),
  },
  { additionalProperties: false },
)

/**
 * @param origin Allowed origins: `'*'`, one origin, a list, a RegExp, or `true` to reflect any. ['*']
 * @param credentials Send `Access-Control-Allow-Credentials: true`; needs explicit origins. [false]
 * @param methods `Access-Control-Allow-Methods`. [GET, HEAD, POST, PUT, PATCH, DELETE]
 * @param allowedHeaders Extra request headers to allow, added to the defaults. [[]]
 * @param exposedHeaders Extra response headers to expose, added to the defaults. [[]]
 * @param maxAge `Access-Control-Max-Age` in seconds. [86400]
 * @param methodOverride How a POST may be overridden (`@restwell/method-override`'s header, query parameter and methods): a preflight for such a POST is judged by every route it may reach. [false]
 */
export type CorsOptions = Static<typeof CorsOptionsSchema>

/** Which methods a POST may stand for once routed (method override), or false. */
export type MethodOverrideReach = Static<typeof MethodOverrideSchema>

/** The options with their defaults applied. */
export interface ResolvedCorsOptions {
  readonly origin: NonNullable<CorsOptions['origin']>
  readonly credentials: boolean
  readonly methods: readonly string[]
  readonly allowedHeaders: readonly string[]
  readonly exposedHeaders: readonly string[]
  readonly maxAge: number
  readonly methodOverride: MethodOverrideReach | false
}

/** `Access-Control-Allow-Methods` when not set. */
export const DEFAULT_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/** `Access-Control-Max-Age` when not set: the spec's figure (4.2), one day. */
export const DEFAULT_MAX_AGE = 86400

export function resolveCorsOptions(options: CorsOptions): ResolvedCorsOptions {
  const override = options.methodOverride ?? false
  return {
    origin: options.origin ?? '*',
    credentials: options.credentials ?? false,
    methods: options.methods ?? DEFAULT_METHODS,
    allowedHeaders: options.allowedHeaders ?? [],
    exposedHeaders: options.exposedHeaders ?? [],
    maxAge: options.maxAge ?? DEFAULT_MAX_AGE,
    methodOverride:
      override === false
        ? false
        : {
            ...override,
            header: override.header === false ? false : override.header.toLowerCase(),
          },
  }
}

/**
 * Request headers every restwell API accepts from scripts (spec 4.2 shows the first two).
 * `Accept`, `Accept-Language` and `Content-Language` are CORS-safelisted only for short values
 * without bytes such as `"` or `:` (Fetch standard): a JSON:API profile
 * (`application/vnd.api+json; profile="https://…"`) makes the browser ask for `accept`.
 */
export const DEFAULT_ALLOWED_HEADERS: readonly string[] = [
  'content-type',
  'authorization',
  'accept',
  'accept-language',
  'content-language',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'if-range',
  'range',
  'x-request-id',
]

/**
 * Response headers restwell's conventions send that scripts need to read (none is
 * CORS-safelisted). Alone, the plugin exposes them all; under the umbrella, it exposes those its
 * conventions say they send, under the names their options give them.
 */
export const DEFAULT_EXPOSED_HEADERS: readonly string[] = [
  'ETag',
  'Location',
  'Link',
  'X-Total-Count',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
  'Content-Range',
  'Accept-Ranges',
  'Allow',
  // The supported media types on a 406 (spec 4.5) and a 415.
  'Accept',
  // The request content codings accepted, on a 415 for an unsupported Content-Encoding.
  'Accept-Encoding',
  'Accept-Patch',
  // The QUERY content types (RFC 10008 §3), on a 415, an OPTIONS and a 405; a QUERY's result.
  'Accept-Query',
  'Content-Location',
  'API-Version',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
]
