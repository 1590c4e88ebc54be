/** Options of `@restwell/soft-delete`: plugin-wide defaults and the per-route `config.softDelete`. */
import { OptionsError } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'

/** Query parameter choosing which items a collection shows: `exclude`, `include` or `only`. */
export const DEFAULT_PARAM = 'deleted'
/** Comma-list parameter whose `deleted` token also shows deleted items (`?include=deleted`). */
export const DEFAULT_INCLUDE_PARAM = 'include'

const ParamName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.~-]+$' })
const Mode = Type.Union([Type.Literal('soft'), Type.Literal('hard')])

export const SoftDeleteOptionsSchema = Type.Object(
  {
    mode: Type.Optional(Mode),
    gone: Type.Optional(Type.Boolean()),
    param: Type.Optional(ParamName),
    includeParam: Type.Optional(Type.Union([ParamName, Type.Literal(false)])),
    filterArrays: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/**
 * Plugin-wide options; each one optional.
 * @param mode What DELETE does on an opted-in route: `soft` (200 + resource) or `hard` (204). [`soft`]
 * @param gone GET/HEAD of a soft-deleted item answers 410 Gone instead of 200 with its fields. [false]
 * @param param Query parameter choosing `exclude` (default), `include` or `only` deleted items. [`deleted`]
 * @param includeParam Comma-list parameter whose `deleted` token means `include`; `false` for none. [`include`]
 * @param filterArrays Drop hidden items from a plain array a GET, HEAD or QUERY handler returns. [true]
 */
export type SoftDeleteOptions = Static<typeof SoftDeleteOptionsSchema>

export const RouteConfigSchema = Type.Object(
  {
    mode: Type.Optional(Mode),
    gone: Type.Optional(Type.Boolean()),
    filterArrays: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/**
 * `config.softDelete` of one route: `true` for the plugin's defaults, `false` (or absent) for a
 * route the plugin leaves alone, or an object overriding `mode`, `gone`, `filterArrays`.
 */
export type RouteSoftDeleteConfig = Static<typeof RouteConfigSchema>

/** The plugin-wide options with every default applied. */
export interface ResolvedSoftDeleteOptions {
  mode: 'soft' | 'hard'
  gone: boolean
  param: string
  includeParam: string | false
  filterArrays: boolean
}

/**
 * Applies the defaults. Throws an `OptionsError` when `param` and `includeParam` are the same
 * name: `param` would take the parameter, so `?include=deleted` would be a 400.
 */
export function resolveSoftDeleteOptions(options: SoftDeleteOptions): ResolvedSoftDeleteOptions {
  const param = options.param ?? DEFAULT_PARAM
  const includeParam = options.includeParam ?? DEFAULT_INCLUDE_PARAM
  if (param === includeParam) {
    // Name the option that was given (the other may be its default).
    const [option, other] =
      options.includeParam === undefined ? ['param', 'includeParam'] : ['includeParam', 'param']
    throw new OptionsError(
      '@restwell/soft-delete',
      option,
      `must differ from "${other}" (both "${param}"): "param" would take the parameter and ?${param}=deleted would be a 400; choose another name, or set "includeParam" to false`,
    )
  }
  return {
    mode: options.mode ?? 'soft',
    gone: options.gone ?? false,
    param,
    includeParam,
    filterArrays: options.filterArrays ?? true,
  }
}
