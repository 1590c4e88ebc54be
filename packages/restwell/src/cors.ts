/**
 * CORS for the spec (4.2) and the other restwell plugins: one `onRequest` hook of our own
 * (see `corsStep` for why not `@fastify/cors`).
 */
import { OptionsError } from '@restwell/errors'
import { appendVary } from '@restwell/core'
import { type Static, Type } from '@sinclair/typebox'
import type { RequestStep, SendStep } from '@restwell/core'
import type { FastifyReply, FastifyRequest } from 'fastify'

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
 * Response headers restwell plugins set that scripts need to read. `X-Total-Count`,
 * `API-Version` and `X-Request-Id` are the default names of headers the plugins' options rename
 * or turn off (`CorsContext.exposedHeaderNames`).
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
  // The supported media types on a 406 (spec 4.5) and a 415: not a CORS-safelisted response
  // header, so a script could not read it unless exposed.
  'Accept',
  // The request content codings accepted, on a 415 for an unsupported Content-Encoding.
  'Accept-Encoding',
  'Accept-Patch',
  'API-Version',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
]

const DEFAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/** What other plugins' options bring to CORS. */
export interface CorsContext {
  /** Extra allowed request headers (the method-override header, say). */
  extraAllowedHeaders: readonly string[]
  /** Extra exposed response headers (those the conventions send, `Preference-Applied` say). */
  extraExposedHeaders: readonly string[]
  /**
   * The names the plugins' options give headers of `DEFAULT_EXPOSED_HEADERS`, keyed by the
   * default name in lower case (`x-total-count` → pagination's `totalHeader`), or false for a
   * header no plugin sends; a header not listed keeps its default name.
   */
  exposedHeaderNames: ReadonlyMap<string, string | false>
}

/** What the hook answers, decided once at registration. */
export interface CorsPlan {
  /** `Access-Control-Allow-Origin` for a request's `Origin`, or false: no CORS headers. */
  allowOrigin: (origin: string) => string | false
  /**
   * The answer depends on `Origin` (a list, a RegExp, reflection): `Vary: Origin`. False for
   * `'*'`, sent to every request then, and for `false` (RFC 9110 §12.5.5; Fetch, "CORS protocol
   * and HTTP caches").
   */
  varies: boolean
  /** Send `Access-Control-Allow-Credentials: true` with an allowed origin. */
  credentials: boolean
  /** `Access-Control-Expose-Headers`, joined once. */
  exposedHeaders: string
  /** The headers a preflight from an allowed origin gets. */
  preflightHeaders: Readonly<Record<string, string>>
}

/** The allowed-origin rule: `'*'`, one origin, a list, a RegExp, or `true` to reflect any. */
function originRule(origin: NonNullable<CorsSettings['origin']>): CorsPlan['allowOrigin'] {
  if (origin === '*' || (Array.isArray(origin) && origin.includes('*'))) return () => '*'
  if (origin === true) return (requested) => requested
  if (origin === false) return () => false
  if (origin instanceof RegExp) {
    return (requested) => {
      origin.lastIndex = 0
      return origin.test(requested) ? requested : false
    }
  }
  const listed = new Set(Array.isArray(origin) ? origin : [origin])
  return (requested) => (listed.has(requested) ? requested : false)
}

export function corsPlan(settings: CorsSettings, context: CorsContext): CorsPlan {
  const origin = settings.origin ?? '*'
  const credentials = settings.credentials ?? false
  // A list holding '*' allows any origin (`originRule` answers '*'), and a credentialed request
  // fails its CORS check when `Access-Control-Allow-Origin` is '*' (Fetch standard, CORS check).
  const anyOrigin =
    origin === '*' || origin === true || (Array.isArray(origin) && origin.includes('*'))
  if (credentials && anyOrigin) {
    throw new OptionsError(
      'restwell',
      'cors.origin',
      "must name the allowed origins when cors.credentials is true (not '*', true or a list holding '*': a browser refuses '*' with credentials, and reflecting every origin lets any site read a user's data)",
    )
  }
  const unique = (list: readonly string[]): string[] => [
    ...new Map(list.map((h) => [h.toLowerCase(), h])).values(),
  ]
  // A renamed header is exposed under its name, in the default's place; the default spelling
  // is kept when the name only differs in case (options lower-case the names they are given).
  const exposed = DEFAULT_EXPOSED_HEADERS.flatMap((name) => {
    const given = context.exposedHeaderNames.get(name.toLowerCase())
    if (given === undefined) return [name]
    if (given === false) return []
    return [given.toLowerCase() === name.toLowerCase() ? name : given]
  })
  return {
    allowOrigin: originRule(origin),
    varies: origin !== false && (!anyOrigin || origin === true),
    credentials,
    exposedHeaders: unique([
      ...exposed,
      ...context.extraExposedHeaders,
      ...(settings.exposedHeaders ?? []),
    ]).join(', '),
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

/** A CORS preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  )
}

/**
 * The headers of an actual CORS request from `origin`, when the plan allows it; returns what
 * `Access-Control-Allow-Origin` was set to, or false (no CORS header set).
 */
function allowActual(plan: CorsPlan, reply: FastifyReply, origin: string): string | false {
  const allowed = plan.allowOrigin(origin)
  if (allowed !== false) {
    reply.header('access-control-allow-origin', allowed)
    if (plan.credentials) reply.header('access-control-allow-credentials', 'true')
    reply.header('access-control-expose-headers', plan.exposedHeaders)
  }
  return allowed
}

/**
 * The request step, before rate limits and auth, on every answer (errors and 404/405 included).
 * With `origin: '*'` every answer gets `Access-Control-Allow-Origin: *` and `-Expose-Headers`
 * and no `Vary: Origin`; otherwise an allowed `Origin` gets them, and every answer says
 * `Vary: Origin` (Fetch, "CORS protocol and HTTP caches"). A preflight (OPTIONS with `Origin`
 * and `Access-Control-Request-Method`) is answered 200 here; a plain OPTIONS goes on to
 * `@restwell/methods`. A route with `config.cors: false` (read by `routeCors`) gets neither.
 */
export function corsStep(
  plan: CorsPlan,
  routeCors: (request: FastifyRequest) => unknown,
  preflightCors: (request: FastifyRequest) => boolean,
): RequestStep {
  const { preflightHeaders } = plan
  return function restwellCors(request, reply) {
    const origin = request.headers.origin
    const preflight = isPreflight(request)
    let allowed: string | false = false
    if (routeCors(request) !== false && (!preflight || preflightCors(request))) {
      if (plan.varies) appendVary(reply, 'Origin')
      if (origin !== undefined || !plan.varies) allowed = allowActual(plan, reply, origin ?? '')
    }
    if (!preflight) return undefined
    if (allowed !== false) reply.headers(preflightHeaders)
    // '*' for every origin: the preflight's answer depends on the method and headers asked only.
    if (plan.varies) appendVary(reply, 'Origin')
    appendVary(reply, 'Access-Control-Request-Method', 'Access-Control-Request-Headers')
    reply.code(200).header('content-length', '0').send()
    return true
  }
}

/**
 * The send step: keeps `Origin` in the final answer's `Vary` when a handler or an error replaced
 * the header, and gives the CORS headers to an answer made before the request step ran (a
 * request refused while the app closes, say), so a script sees the status, not a network error.
 */
export function corsSendStep(plan: CorsPlan): SendStep {
  return function restwellCorsVary(request, reply) {
    const vary = reply.getHeader('vary')
    if (
      plan.varies &&
      (typeof vary !== 'string' || (vary !== 'Origin' && !vary.startsWith('Origin,')))
    ) {
      appendVary(reply, 'Origin')
    }
    const origin = request.headers.origin
    if (
      (origin !== undefined || !plan.varies) &&
      !reply.hasHeader('access-control-allow-origin') &&
      !isPreflight(request)
    ) {
      allowActual(plan, reply, origin ?? '')
    }
    return undefined
  }
}
