/** Options of `@restwell/prefer` and its per-route `config.prefer`. */
import { type Static, Type } from '@sinclair/typebox'

/** The longest a request waits for its job (seconds), whatever `wait` it gives. */
export const DEFAULT_MAX_WAIT = 10

const Seconds = Type.Integer({ minimum: 0, maximum: 3600 })
const ParamName = Type.String({ minLength: 1, maxLength: 64 })

export const PreferOptionsSchema = Type.Object(
  {
    maxWait: Type.Optional(Seconds),
    queryParameters: Type.Optional(Type.Array(ParamName, { maxItems: 256 })),
  },
  { additionalProperties: false },
)

/**
 * Plugin-wide options; each one optional.
 * @param maxWait The longest, in seconds, an asynchronous route waits for its job before it answers 202, whatever `wait` asks. [10]
 * @param queryParameters Query parameters every route reads besides those of its schema (another plugin's), never unknown to `handling`. [`[]`; the umbrella names its plugins']
 */
export type PreferOptions = Static<typeof PreferOptionsSchema>

const AsyncSchema = Type.Object(
  {
    job: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,100}$' }),
    payload: Type.Optional(Type.Function([Type.Unknown()], Type.Unknown())),
    maxWait: Type.Optional(Seconds),
  },
  { additionalProperties: false },
)

export const PreferRouteConfigSchema = Type.Object(
  {
    return: Type.Optional(Type.Boolean()),
    handling: Type.Optional(Type.Boolean()),
    async: Type.Optional(AsyncSchema),
  },
  { additionalProperties: false },
)

/**
 * The asynchronous form of a route (`config.prefer.async`): the job of `@restwell/jobs` that
 * does its work when the client prefers `respond-async`.
 * @param job The job's name (defined with `app.jobs.define`).
 * @param payload The job's payload, from the request. [`request.body`]
 * @param maxWait The longest, in seconds, the request waits for the job. [the plugin's `maxWait`]
 */
export interface AsyncForm {
  job: string
  payload?: (request: import('fastify').FastifyRequest) => unknown
  maxWait?: number
}

/**
 * `config.prefer` of one route; `false` turns the plugin off there.
 * @param return Honour `return=minimal` on this route's writes. [true]
 * @param handling Honour `handling=strict|lenient` on this route. [true]
 * @param async The route's asynchronous form, for `respond-async`. [none]
 */
export interface PreferRouteConfig {
  return?: boolean
  handling?: boolean
  async?: AsyncForm
}

/** The options with every default applied. */
export interface PreferSettings {
  readonly maxWait: number
  readonly queryParameters: readonly string[]
}

/** Applies the defaults. */
export function resolvePreferOptions(options: PreferOptions): PreferSettings {
  return {
    maxWait: options.maxWait ?? DEFAULT_MAX_WAIT,
    queryParameters: options.queryParameters ?? [],
  }
}
