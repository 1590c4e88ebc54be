/** Options of the umbrella: one key per plugin, each `false` (off) or that plugin's options. */
import type { ErrorsOptions } from '@restwell/errors'
import type { MethodsOptions } from '@restwell/methods'
import { type TSchema, Type } from '@sinclair/typebox'

/** The plugins the umbrella registers, in registration order. */
export const PLUGIN_KEYS = ['errors', 'methods'] as const
export type PluginKey = (typeof PLUGIN_KEYS)[number]

/** Each plugin's key takes `false` or an options object, which that plugin validates itself. */
const pluginSetting: TSchema = Type.Union([Type.Literal(false), Type.Object({})])

export const RestwellOptionsSchema: TSchema = Type.Object(
  Object.fromEntries(PLUGIN_KEYS.map((key) => [key, Type.Optional(pluginSetting)])),
  { additionalProperties: false },
)

/**
 * @param errors `@restwell/errors` options, or false to keep Fastify's own error handling. [{}]
 * @param methods `@restwell/methods` options, or false. [{}]
 */
export interface RestwellOptions {
  errors?: ErrorsOptions | false
  methods?: MethodsOptions | false
}
