/** Options of `@restwell/method-override`. */
import { OptionsError } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/method-override'

/**
 * Methods an override may name. TRACE and CONNECT are not used by the interface (spec 4.1);
 * HEAD cannot be reached by override (see `HEAD_TARGET_PROBLEM`).
 */
export const OVERRIDABLE_METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'QUERY',
] as const

/**
 * Why HEAD is never an override target: Node framed the response for the POST the client sent
 * (it has a body), so a HEAD handler's response announces `Content-Length: N` and sends no
 * body, and the client waits for bytes that never come (RFC 9110 §9.3.2, §8.6).
 */
export const HEAD_TARGET_PROBLEM =
  'the response to the POST would announce a Content-Length and send no body, and the client would wait for it; send a real HEAD, or override to GET'

/** QUERY too: a client or proxy that knows no QUERY sends the POST it stands in for (RFC 10008). */
export const DEFAULT_OVERRIDE_METHODS: readonly string[] = ['PUT', 'PATCH', 'DELETE', 'QUERY']
export const DEFAULT_OVERRIDE_HEADER = 'x-http-method-override'
export const DEFAULT_OVERRIDE_QUERY = '_method'

export const MethodOverrideOptionsSchema = Type.Object(
  {
    methods: Type.Optional(
      Type.Array(Type.Union(OVERRIDABLE_METHODS.map((m) => Type.Literal(m))), {
        minItems: 1,
        uniqueItems: true,
      }),
    ),
    header: Type.Optional(
      Type.Union([Type.String({ pattern: '^[A-Za-z0-9-]+$' }), Type.Literal(false)]),
    ),
    query: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, pattern: '^[A-Za-z0-9_.-]+$' }),
        Type.Literal(false),
      ]),
    ),
  },
  { additionalProperties: false },
)

/**
 * @param methods Methods a POST may be turned into. [`['PUT', 'PATCH', 'DELETE', 'QUERY']`]
 * @param header Request header carrying the method; `false` to ignore headers. [`x-http-method-override`]
 * @param query Query parameter carrying the method; `false` to ignore the query. [`_method`]
 */
export type MethodOverrideOptions = Static<typeof MethodOverrideOptionsSchema>

/**
 * Refuses `HEAD` in `methods` with a message that says why, before the schema would refuse it
 * with a bare "expected union value".
 */
export function refuseHeadTarget(options: unknown): void {
  const methods = (options as { methods?: unknown } | null | undefined)?.methods
  if (!Array.isArray(methods)) return
  methods.forEach((method, index) => {
    if (typeof method === 'string' && method.trim().toUpperCase() === 'HEAD') {
      throw new OptionsError(PLUGIN, `methods.${index}`, `may not be HEAD: ${HEAD_TARGET_PROBLEM}`)
    }
  })
}

export interface ResolvedMethodOverrideOptions {
  methods: ReadonlySet<string>
  /** Lower case, or false. */
  header: string | false
  query: string | false
}

export function resolveMethodOverrideOptions(
  options: MethodOverrideOptions,
): ResolvedMethodOverrideOptions {
  return {
    methods: new Set(options.methods ?? DEFAULT_OVERRIDE_METHODS),
    header:
      options.header === false ? false : (options.header ?? DEFAULT_OVERRIDE_HEADER).toLowerCase(),
    query: options.query ?? DEFAULT_OVERRIDE_QUERY,
  }
}
