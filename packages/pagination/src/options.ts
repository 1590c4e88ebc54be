/** Options of `@restwell/pagination`: plugin-wide defaults and the per-route `config.pagination`. */
import { type Static, Type } from '@sinclair/typebox'

/** Default page size when the client sends no `limit`. */
export const DEFAULT_LIMIT = 20
/** Largest `limit` a client may ask for. */
export const DEFAULT_MAX_LIMIT = 100
/** Lifetime of a cursor, in seconds (one day). */
export const DEFAULT_CURSOR_TTL = 86_400
/** Field appended to the sort of a cursor route so that the order is total. */
export const DEFAULT_CURSOR_TIEBREAKER = 'id'
/** Shortest accepted cursor secret (256 bits as characters). */
export const MIN_SECRET_LENGTH = 32
/**
 * Query parameters owned by other restwell plugins (or common conventions) that are never
 * treated as filters nor rejected as unknown: `?format=` (negotiation), `?version=`
 * (versioning), `?_method=` (method override), `?deleted=` and `?include=` (soft delete).
 */
export const DEFAULT_PASSTHROUGH: readonly string[] = [
  'format',
  'version',
  '_method',
  'deleted',
  'include',
]

const Limit = Type.Integer({ minimum: 1, maximum: 1_000_000 })
const UnknownFilters = Type.Union([Type.Literal('reject'), Type.Literal('ignore')])
const FieldName = Type.String({ minLength: 1, maxLength: 128, pattern: '^[^,\\s]+$' })
const Secret = Type.String({ minLength: MIN_SECRET_LENGTH })

export const PaginationOptionsSchema = Type.Object(
  {
    defaultLimit: Type.Optional(Limit),
    maxLimit: Type.Optional(Limit),
    clamp: Type.Optional(Type.Boolean()),
    unknownFilters: Type.Optional(UnknownFilters),
    passthrough: Type.Optional(Type.Array(FieldName, { maxItems: 256 })),
    totalHeader: Type.Optional(
      Type.Union([Type.String({ pattern: '^[A-Za-z0-9-]+$' }), Type.Literal(false)]),
    ),
    cursorSecret: Type.Optional(
      Type.Union([Secret, Type.Array(Secret, { minItems: 1, maxItems: 16 })]),
    ),
    cursorTtl: Type.Optional(Type.Integer({ minimum: 0 })),
    cursorTiebreaker: Type.Optional(FieldName),
  },
  { additionalProperties: false },
)

/**
 * Plugin-wide options; each one optional.
 * @param defaultLimit Page size when `?limit=` is absent. [20]
 * @param maxLimit Largest accepted `?limit=`. [100]
 * @param clamp Clamp out-of-range `page`/`limit` into range instead of answering 400. [false]
 * @param unknownFilters Query parameters that are neither pagination, filters nor passthrough: `reject` (400) or `ignore`. [`reject`]
 * @param passthrough Query parameters never treated as filters nor rejected. [`format`, `version`, `_method`, `deleted`, `include`]
 * @param totalHeader Header carrying the total count, or `false`. [`x-total-count`]
 * @param cursorSecret HMAC-SHA256 key(s) for cursors, at least 32 characters; the first signs, all verify. [none: cursor routes refused]
 * @param cursorTtl Cursor lifetime in seconds; 0 for no expiry. [86400]
 * @param cursorTiebreaker Unique field appended to a cursor route's sort. [`id`]
 */
export type PaginationOptions = Static<typeof PaginationOptionsSchema>

export const RouteConfigSchema = Type.Object(
  {
    defaultLimit: Type.Optional(Limit),
    maxLimit: Type.Optional(Limit),
    clamp: Type.Optional(Type.Boolean()),
    sortable: Type.Optional(Type.Array(FieldName, { maxItems: 64 })),
    defaultSort: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    filterable: Type.Optional(Type.Array(FieldName, { maxItems: 256 })),
    unknownFilters: Type.Optional(UnknownFilters),
    cursor: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

/**
 * `config.pagination` of one route: `true` for the plugin's defaults, `false` (or absent) for a
 * route that is not paginated, or an object.
 * @param defaultLimit Page size when `?limit=` is absent. [plugin's]
 * @param maxLimit Largest accepted `?limit=`. [plugin's]
 * @param clamp Clamp out-of-range values instead of 400. [plugin's]
 * @param sortable Fields `?sort=` may name. [none: `?sort=` refused]
 * @param defaultSort Sort used when `?sort=` is absent, e.g. `-createdAt,id`. [none]
 * @param filterable Fields usable as `?<field>=<value>`. [the route's querystring schema properties]
 * @param unknownFilters `reject` or `ignore` unknown parameters. [plugin's]
 * @param cursor Cursor pagination (`?cursor=`) instead of `?page=`. [false]
 */
export type RoutePaginationConfig = Static<typeof RouteConfigSchema>

/** The plugin-wide options with every default applied. */
export interface ResolvedPaginationOptions {
  defaultLimit: number
  maxLimit: number
  clamp: boolean
  unknownFilters: 'reject' | 'ignore'
  passthrough: ReadonlySet<string>
  totalHeader: string | false
  cursorSecrets: readonly string[]
  cursorTtl: number
  cursorTiebreaker: string
}

export function resolvePaginationOptions(options: PaginationOptions): ResolvedPaginationOptions {
  const secret = options.cursorSecret
  const maxLimit = options.maxLimit ?? DEFAULT_MAX_LIMIT
  return {
    defaultLimit: options.defaultLimit ?? Math.min(DEFAULT_LIMIT, maxLimit),
    maxLimit,
    clamp: options.clamp ?? false,
    unknownFilters: options.unknownFilters ?? 'reject',
    passthrough: new Set(options.passthrough ?? DEFAULT_PASSTHROUGH),
    totalHeader:
      options.totalHeader === false
        ? false
        : (options.totalHeader ?? 'x-total-count').toLowerCase(),
    cursorSecrets: secret === undefined ? [] : typeof secret === 'string' ? [secret] : secret,
    cursorTtl: options.cursorTtl ?? DEFAULT_CURSOR_TTL,
    cursorTiebreaker: options.cursorTiebreaker ?? DEFAULT_CURSOR_TIEBREAKER,
  }
}
