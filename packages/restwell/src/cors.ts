/** CORS through `@fastify/cors`, configured for the spec (4.2) and the other restwell plugins. */
import type { FastifyCorsOptions, FastifyCorsOptionsDelegateCallback } from '@fastify/cors'
import { OptionsError } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'

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

/**
 * Options for `@fastify/cors`. A delegator makes an OPTIONS request a preflight only when it
 * carries `Origin` and `Access-Control-Request-Method`: a plain OPTIONS then reaches
 * `@restwell/methods` (200 + Allow) instead of `@fastify/cors`'s "Invalid Preflight" 400.
 */
export function corsOptions(settings: CorsSettings, context: CorsContext): FastifyCorsOptions {
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
  const base: FastifyCorsOptions = {
    origin,
    credentials,
    methods: settings.methods ?? DEFAULT_METHODS,
    allowedHeaders: unique([
      ...DEFAULT_ALLOWED_HEADERS,
      ...context.extraAllowedHeaders,
      ...(settings.allowedHeaders ?? []),
    ]),
    exposedHeaders: unique([...DEFAULT_EXPOSED_HEADERS, ...(settings.exposedHeaders ?? [])]),
    maxAge: settings.maxAge ?? 86400,
    optionsSuccessStatus: 200,
    strictPreflight: true,
  }
  const preflight: FastifyCorsOptions = { ...base, preflight: true }
  const simple: FastifyCorsOptions = { ...base, preflight: false }
  const delegator: FastifyCorsOptionsDelegateCallback = (request, callback) => {
    const isPreflight =
      request.method === 'OPTIONS' &&
      request.headers.origin !== undefined &&
      request.headers['access-control-request-method'] !== undefined
    callback(null, isPreflight ? preflight : simple)
  }
  return { delegator, hideOptionsRoute: true }
}
