/** Options of `@restwell/cache-control` and of its per-route `config.cache`. */
import { type Static, type TObject, Type } from '@sinclair/typebox'
import { MAX_DELTA_SECONDS } from './directives.js'

const Seconds = Type.Integer({ minimum: 0, maximum: MAX_DELTA_SECONDS })

/** A request header name (RFC 9110 token) for `Vary`. */
const FieldName = Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", maxLength: 64 })

const directiveProperties = {
  public: Type.Optional(Type.Boolean()),
  private: Type.Optional(Type.Boolean()),
  noCache: Type.Optional(Type.Boolean()),
  noStore: Type.Optional(Type.Boolean()),
  maxAge: Type.Optional(Seconds),
  sMaxAge: Type.Optional(Seconds),
  staleWhileRevalidate: Type.Optional(Seconds),
  staleIfError: Type.Optional(Seconds),
  immutable: Type.Optional(Type.Boolean()),
  mustRevalidate: Type.Optional(Type.Boolean()),
  proxyRevalidate: Type.Optional(Type.Boolean()),
  noTransform: Type.Optional(Type.Boolean()),
}

/** The caching directives, as TypeBox properties. */
export const CacheDirectivesSchema: TObject<typeof directiveProperties> = Type.Object(
  directiveProperties,
  { additionalProperties: false },
)

const varyProperties = {
  vary: Type.Optional(Type.Array(FieldName, { maxItems: 32 })),
  varyAuthorization: Type.Optional(Type.Boolean()),
}

export const CacheControlOptionsSchema = Type.Object(
  {
    policy: Type.Optional(CacheDirectivesSchema),
    ...varyProperties,
  },
  { additionalProperties: false },
)

/**
 * @param policy Policy of successful (2xx/3xx) GET and HEAD responses on routes without their own. [`{}`: `no-cache`, `private, no-cache` where credentials matter]
 * @param vary Request headers added to `Vary` on every response of every route (e.g. a custom version header). [`[]`]
 * @param varyAuthorization Add `Vary: Authorization` to responses a cache may store (not `no-store`) of routes that authenticate (`@restwell/auth`'s guard, or `config.cache.authenticates`). [true]
 */
export type CacheControlOptions = Static<typeof CacheControlOptionsSchema>

export const CacheRouteConfigSchema = Type.Object(
  { ...directiveProperties, ...varyProperties, authenticates: Type.Optional(Type.Literal(true)) },
  { additionalProperties: false },
)

/** Plugin options with their defaults applied. */
export interface ResolvedCacheControlOptions {
  policy: Static<typeof CacheDirectivesSchema>
  vary: readonly string[]
  varyAuthorization: boolean
}

export function resolveCacheControlOptions(
  options: CacheControlOptions,
): ResolvedCacheControlOptions {
  return {
    policy: options.policy ?? {},
    vary: options.vary ?? [],
    varyAuthorization: options.varyAuthorization ?? true,
  }
}

/** A route's `config.cache`, validated. */
export type ValidCacheRouteConfig = Static<typeof CacheRouteConfigSchema>
