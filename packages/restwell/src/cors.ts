/** CORS through `@fastify/cors`, configured for the spec (4.2) and the other restwell plugins. */
import type { FastifyCorsOptions, OriginFunction } from '@fastify/cors'
import { appendVary, OptionsError } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'
import type { onRequestHookHandler } from 'fastify'

export const CorsSettingsSchema = Type.Object(
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
    methods: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z]+$' }))),
    allowedHeaders: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Za-z0-9-]+$' }))),
    exposedHeaders: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Za-z0-9-]+$' }))),
    maxAge: Type.Optional(Type.Integer({ minimum: 0 })),
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
 */
export type CorsSettings = Static<typeof CorsSettingsSchema>

/** Request headers every restwell API accepts from scripts (spec 4.2 shows the first two). */
export const DEFAULT_ALLOWED_HEADERS: readonly string[] = [
  'content-type',
  'authorization',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'if-range',
  'range',
  'x-request-id',
]

/** Response headers restwell plugins set that scripts need to read. */
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
  'Accept-Patch',
  'API-Version',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
]

const DEFAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/** Extra allowed request headers other plugins bring (the method-override header, say). */
export interface CorsContext {
  extraAllowedHeaders: readonly string[]
}

/** What the umbrella registers: `@fastify/cors` options and the preflight answer. */
export interface CorsPlan {
  /** Static options for `@fastify/cors` (no per-request delegator). */
  plugin: FastifyCorsOptions
  /** The headers a preflight adds to the CORS headers `@fastify/cors` already set. */
  preflightHeaders: Readonly<Record<string, string>>
}

/**
 * `@fastify/cors` puts the origin, credentials and exposed headers on the answer to every CORS
 * request, that is every request with an `Origin` header (Fetch standard, "CORS protocol"). A
 * request without one (a server, a mobile app, curl) gets no `Access-Control-*` header: a browser
 * never reads them there, and they are some 300 bytes on every answer. Every answer then varies
 * with `Origin`, and says so (`Vary: Origin`, which `@fastify/cors` adds for an origin function),
 * so no cache hands a non-CORS answer to a CORS request (Fetch standard, "CORS protocol and HTTP
 * caches"). The origin function, the allowed-origin rule and the joined exposed-header list are
 * built once, here.
 *
 * Its own preflight answer is off: it treats every OPTIONS as a preflight (a 400 "Invalid
 * Preflight Request" for a plain OPTIONS); restwell's `preflightHook` answers only a real
 * preflight (`Origin` and `Access-Control-Request-Method`), so a plain OPTIONS reaches
 * `@restwell/methods` (200 + Allow).
 */
export function corsPlan(settings: CorsSettings, context: CorsContext): CorsPlan {
  const origin = settings.origin ?? '*'
  const credentials = settings.credentials ?? false
  if (credentials && (origin === '*' || origin === true)) {
    throw new OptionsError(
      'restwell',
      'cors.origin',
      'must name the allowed origins when cors.credentials is true (never reflect any origin with credentials)',
    )
  }
  const unique = (list: readonly string[]): string[] => [
    ...new Map(list.map((h) => [h.toLowerCase(), h])).values(),
  ]
  // `false` (no CORS headers) for a request without Origin; otherwise the configured rule, which
  // @fastify/cors applies ('*', one origin, a list, a RegExp, or true to reflect).
  const allowed: OriginFunction = (requestOrigin, callback) => {
    callback(null, requestOrigin === undefined ? false : origin)
  }
  return {
    plugin: {
      origin: allowed,
      credentials,
      exposedHeaders: unique([...DEFAULT_EXPOSED_HEADERS, ...(settings.exposedHeaders ?? [])]).join(
        ', ',
      ),
      preflight: false,
      hideOptionsRoute: true,
    },
    preflightHeaders: {
      'access-control-allow-methods': (settings.methods ?? DEFAULT_METHODS).join(', '),
      'access-control-allow-headers': unique([
        ...DEFAULT_ALLOWED_HEADERS,
        ...context.extraAllowedHeaders,
        ...(settings.allowedHeaders ?? []),
      ]).join(', '),
      'access-control-max-age': String(settings.maxAge ?? 86400),
      'cache-control': 'no-store',
    },
  }
}

/**
 * Answers a CORS preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) with 200,
 * after `@fastify/cors` has decided the origin: the preflight headers go only on an allowed
 * origin's answer (a refused origin gets a 200 without them, which the browser refuses).
 * Every other request pays one string comparison.
 */
export function preflightHook(plan: CorsPlan): onRequestHookHandler {
  const headers = plan.preflightHeaders
  return function restwellPreflight(request, reply, done) {
    if (
      request.method !== 'OPTIONS' ||
      request.headers.origin === undefined ||
      request.headers['access-control-request-method'] === undefined
    ) {
      return done()
    }
    if (reply.hasHeader('access-control-allow-origin')) reply.headers(headers)
    appendVary(reply, 'Origin', 'Access-Control-Request-Method', 'Access-Control-Request-Headers')
    reply.code(200).header('content-length', '0').send()
  }
}
