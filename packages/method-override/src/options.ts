/** Options of `@restwell/method-override`. */
import { type Static, Type } from '@sinclair/typebox'

/** Methods an override may name. TRACE and CONNECT are not used by the interface (spec 4.1). */
export const OVERRIDABLE_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
] as const

export const DEFAULT_OVERRIDE_METHODS: readonly string[] = ['PUT', 'PATCH', 'DELETE']
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
 * @param methods Methods a POST may be turned into. [`['PUT', 'PATCH', 'DELETE']`]
 * @param header Request header carrying the method; `false` to ignore headers. [`x-http-method-override`]
 * @param query Query parameter carrying the method; `false` to ignore the query. [`_method`]
 */
export type MethodOverrideOptions = Static<typeof MethodOverrideOptionsSchema>

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
