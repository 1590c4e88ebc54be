/** Options of the umbrella: one key per plugin, each `false` (off) or that plugin's options. */
import type { AuthOptions } from '@restwell/auth'
import type { BatchOptions } from '@restwell/batch'
import type { CacheControlOptions } from '@restwell/cache-control'
import { type CompressSettings, CompressSettingsSchema } from '@restwell/compress'
import { type CorsOptions, CorsOptionsSchema } from '@restwell/cors'
import type { ConditionalOptions } from '@restwell/conditional'
import type { DigestOptions } from '@restwell/digest'
import type { ErrorsOptions } from '@restwell/errors'
import type { IdempotencyOptions } from '@restwell/idempotency'
import type { JobsOptions } from '@restwell/jobs'
import type { MethodOverrideOptions } from '@restwell/method-override'
import type { MethodsOptions } from '@restwell/methods'
import type { NamingOptions } from '@restwell/naming'
import type { NegotiationOptions } from '@restwell/negotiation'
import { type OverloadOptions, OverloadOptionsSchema } from '@restwell/overload'
import type { PaginationOptions } from '@restwell/pagination'
import type { PatchOptions } from '@restwell/patch'
import type { PreferOptions } from '@restwell/prefer'
import { type RateLimitOptions, RateLimitOptionsSchema } from '@restwell/rate-limit'
import type { SoftDeleteOptions } from '@restwell/soft-delete'
import type { VersioningOptions } from '@restwell/versioning'
import { type TSchema, Type } from '@sinclair/typebox'
import type { OpenapiPlan } from './openapi.js'

/** The options of the umbrella that turn a convention on or off (the order they install in is `INSTALLS`, plugin.ts). */
export const PLUGIN_KEYS = [
  'errors',
  'methodOverride',
  'versioning',
  'cors',
  'underPressure',
  'rateLimit',
  'auth',
  'methods',
  'negotiation',
  'conditional',
  'compress',
  'cacheControl',
  'patch',
  'pagination',
  'softDelete',
  'idempotency',
  'prefer',
  'digest',
  'naming',
  'jobs',
  'batch',
] as const
export type PluginKey = (typeof PLUGIN_KEYS)[number]

/** A restwell plugin's key takes `false` or an options object, which that plugin validates. */
const pluginSetting: TSchema = Type.Union([Type.Literal(false), Type.Object({})])
const off = <T extends TSchema>(schema: T): TSchema => Type.Union([Type.Literal(false), schema])

export const RestwellOptionsSchema: TSchema = Type.Object(
  {
    errors: Type.Optional(pluginSetting),
    methodOverride: Type.Optional(pluginSetting),
    versioning: Type.Optional(pluginSetting),
    // The method override CORS reads is the umbrella's `methodOverride`.
    cors: Type.Optional(off(Type.Omit(CorsOptionsSchema, ['methodOverride']))),
    underPressure: Type.Optional(off(OverloadOptionsSchema)),
    rateLimit: Type.Optional(off(RateLimitOptionsSchema)),
    auth: Type.Optional(pluginSetting),
    methods: Type.Optional(pluginSetting),
    negotiation: Type.Optional(pluginSetting),
    conditional: Type.Optional(pluginSetting),
    compress: Type.Optional(off(CompressSettingsSchema)),
    cacheControl: Type.Optional(pluginSetting),
    patch: Type.Optional(pluginSetting),
    pagination: Type.Optional(pluginSetting),
    softDelete: Type.Optional(pluginSetting),
    idempotency: Type.Optional(pluginSetting),
    prefer: Type.Optional(pluginSetting),
    digest: Type.Optional(pluginSetting),
    naming: Type.Optional(pluginSetting),
    jobs: Type.Optional(pluginSetting),
    batch: Type.Optional(pluginSetting),
    openapi: Type.Optional(
      Type.Object(
        { transform: Type.Optional(Type.Unsafe<OpenapiSettings['transform']>(Type.Any())) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

/**
 * What restwell adds to the OpenAPI document when `@fastify/swagger` is registered.
 * @param transform The app's global `transform` of `@fastify/swagger` (e.g.
 *   fastify-type-provider-zod's `jsonSchemaTransform`): it runs first on every route restwell
 *   describes, whose own transform takes the global one's place. [none]
 */
export interface OpenapiSettings {
  transform?: OpenapiPlan['transform']
}

/**
 * @param errors `@restwell/errors` options, or false to keep Fastify's own error handling. [{}]
 * @param methodOverride `@restwell/method-override` options, or false. [{}]
 * @param versioning `@restwell/versioning` options, or false. [{}]
 * @param cors `@restwell/cors` options (its `methodOverride` follows this one's), or false. [{}]
 * @param underPressure `@restwell/overload` options (`@fastify/under-pressure`), 503 + Retry-After, or false. [{}]
 * @param rateLimit `@restwell/rate-limit` options (`@fastify/rate-limit`), 429 in the error form, or false. [{}]
 * @param auth `@restwell/auth` options (`verify` is required); off unless given. [off]
 * @param methods `@restwell/methods` options, or false. [{}]
 * @param negotiation `@restwell/negotiation` options, or false. [{ multipart: false }]
 * @param conditional `@restwell/conditional` options, or false. [{}]
 * @param compress Response compression settings (request bodies are decoded too), or false. [{}]
 * @param cacheControl `@restwell/cache-control` options, or false. [{}]
 * @param patch `@restwell/patch` options, or false. [{}]
 * @param pagination `@restwell/pagination` options, or false. [{}]
 * @param softDelete `@restwell/soft-delete` options, or false. [{}]
 * @param idempotency `@restwell/idempotency` options, or false (routes take a key where `config.idempotency` says). [{}]
 * @param prefer `@restwell/prefer` options (RFC 7240); off unless given. [off]
 * @param digest `@restwell/digest` options (RFC 9530); off unless given. [off]
 * @param naming `@restwell/naming` options, or false. [{ mode: 'warn' }]
 * @param jobs `@restwell/jobs` options; off unless given (it adds the job status routes). [off]
 * @param batch `@restwell/batch` options; off unless given (it adds `POST /batch`). [off]
 * @param openapi The OpenAPI description's settings (see `OpenapiSettings`). [{}]
 */
export interface RestwellOptions {
  errors?: ErrorsOptions | false
  methodOverride?: MethodOverrideOptions | false
  versioning?: VersioningOptions | false
  cors?: Omit<CorsOptions, 'methodOverride'> | false
  underPressure?: OverloadOptions | false
  rateLimit?: RateLimitOptions | false
  auth?: AuthOptions | false
  methods?: MethodsOptions | false
  negotiation?: NegotiationOptions | false
  conditional?: ConditionalOptions | false
  compress?: CompressSettings | false
  cacheControl?: CacheControlOptions | false
  patch?: PatchOptions | false
  pagination?: PaginationOptions | false
  softDelete?: SoftDeleteOptions | false
  idempotency?: IdempotencyOptions | false
  prefer?: PreferOptions | false
  digest?: DigestOptions | false
  naming?: NamingOptions | false
  jobs?: JobsOptions | false
  batch?: BatchOptions | false
  openapi?: OpenapiSettings
}
