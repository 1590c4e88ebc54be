/** Options of the umbrella: one key per plugin, each `false` (off) or that plugin's options. */
import type { ErrorsOptions } from '@restwell/errors'
import type { MethodsOptions } from '@restwell/methods'
import { type TSchema, Type } from '@sinclair/typebox'
import { type CorsSettings, CorsSettingsSchema } from './cors.js'
import { type UnderPressureSettings, UnderPressureSettingsSchema } from './overload.js'
import { type RateLimitSettings, RateLimitSettingsSchema } from './rate-limit.js'

/** The plugins the umbrella registers, in registration order (see the README for why). */
export const PLUGIN_KEYS = ['errors', 'cors', 'underPressure', 'rateLimit', 'methods'] as const
export type PluginKey = (typeof PLUGIN_KEYS)[number]

/** A restwell plugin's key takes `false` or an options object, which that plugin validates. */
const pluginSetting: TSchema = Type.Union([Type.Literal(false), Type.Object({})])
const off = <T extends TSchema>(schema: T): TSchema => Type.Union([Type.Literal(false), schema])

export const RestwellOptionsSchema: TSchema = Type.Object(
  {
    errors: Type.Optional(pluginSetting),
    methods: Type.Optional(pluginSetting),
    cors: Type.Optional(off(CorsSettingsSchema)),
    rateLimit: Type.Optional(off(RateLimitSettingsSchema)),
    underPressure: Type.Optional(off(UnderPressureSettingsSchema)),
  },
  { additionalProperties: false },
)

/**
 * @param errors `@restwell/errors` options, or false to keep Fastify's own error handling. [{}]
 * @param methods `@restwell/methods` options, or false. [{}]
 * @param cors `@fastify/cors`, configured for the spec, or false. [{}]
 * @param rateLimit `@fastify/rate-limit`, 429 in the error form, or false. [{}]
 * @param underPressure `@fastify/under-pressure`, 503 + Retry-After, or false. [{}]
 */
export interface RestwellOptions {
  errors?: ErrorsOptions | false
  methods?: MethodsOptions | false
  cors?: CorsSettings | false
  rateLimit?: RateLimitSettings | false
  underPressure?: UnderPressureSettings | false
}
