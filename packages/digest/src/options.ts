/** Options of `@restwell/digest` and its per-route `config.digest`. */
import { type Static, Type } from '@sinclair/typebox'
import { ALGORITHMS, type Algorithm } from './algorithms.js'

const AlgorithmSchema = Type.Union([Type.Literal('sha-256'), Type.Literal('sha-512')])

const whenProperties = {
  repr: Type.Optional(Type.Boolean()),
  content: Type.Optional(Type.Boolean()),
  verify: Type.Optional(Type.Boolean()),
}

export const DigestOptionsSchema = Type.Object(
  {
    algorithms: Type.Optional(Type.Array(AlgorithmSchema, { minItems: 1, uniqueItems: true })),
    ...whenProperties,
  },
  { additionalProperties: false },
)

/**
 * Plugin-wide options; each one optional.
 * @param algorithms The algorithms the server digests with, most preferred first; the first is used where the client states no usable preference. [`['sha-256', 'sha-512']`]
 * @param repr Send `Repr-Digest` on every answer, asked for or not. [false: when `Want-Repr-Digest` asks]
 * @param content Send `Content-Digest` on every answer, asked for or not. [false: when `Want-Content-Digest` asks]
 * @param verify Check the `Content-Digest` and `Repr-Digest` of request bodies before the handler. [true]
 */
export type DigestOptions = Static<typeof DigestOptionsSchema>

export const DigestRouteConfigSchema = Type.Object(whenProperties, { additionalProperties: false })

/**
 * `config.digest` of one route: `repr`, `content`, `verify` over the plugin's; `false` turns the
 * plugin off for the route (no field sent, no request digest checked).
 */
export type DigestRouteConfig = Static<typeof DigestRouteConfigSchema>

/** The options with every default applied, and one route's settings. */
export interface DigestSettings {
  readonly algorithms: readonly Algorithm[]
  /** Send `Repr-Digest` whatever the client asks. */
  readonly repr: boolean
  /** Send `Content-Digest` whatever the client asks. */
  readonly content: boolean
  readonly verify: boolean
}

/** Applies the defaults. */
export function resolveDigestOptions(options: DigestOptions): DigestSettings {
  return {
    algorithms: options.algorithms ?? ALGORITHMS,
    repr: options.repr ?? false,
    content: options.content ?? false,
    verify: options.verify ?? true,
  }
}

/** One route's settings: its `config.digest` over the plugin's. */
export function routeSettings(
  options: DigestSettings,
  config: DigestRouteConfig | undefined,
): DigestSettings {
  if (config === undefined) return options
  return {
    algorithms: options.algorithms,
    repr: config.repr ?? options.repr,
    content: config.content ?? options.content,
    verify: config.verify ?? options.verify,
  }
}
