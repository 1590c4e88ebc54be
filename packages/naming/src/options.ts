/** Options of `@restwell/naming`. */
import { type Static, Type } from '@sinclair/typebox'

export const NamingOptionsSchema = Type.Object(
  {
    mode: Type.Optional(
      Type.Union([Type.Literal('warn'), Type.Literal('error'), Type.Literal('off')]),
    ),
    maxDepth: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
    prefixes: Type.Optional(Type.Array(Type.String({ pattern: '^/[^\\s]*$' }))),
    exclude: Type.Optional(Type.Array(Type.String({ pattern: '^/[^\\s]*$' }))),
    versionPrefix: Type.Optional(Type.Boolean()),
    apiPrefix: Type.Optional(Type.Boolean()),
    allow: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
)

/**
 * @param mode `warn` (through the Fastify logger), `error` (registration fails) or `off`. [`warn`]
 * @param maxDepth Most collections in one path (spec 2: `/{collection}/{id}/{sub-collection}/{sub_id}`, 3 levels). [3]
 * @param prefixes Leading path prefixes that are not resource names, stripped before the checks (`/api`). [`[]`]
 * @param exclude Path prefixes whose routes are not checked at all (`/docs`); `/.well-known` always is. [`[]`]
 * @param versionPrefix Strip a leading `/v<N>` segment before the checks. [true]
 * @param apiPrefix Strip a leading `/api` segment before the checks: it names the API, not a collection. [true]
 * @param allow Collection names accepted whatever their number (`me`, `search`, `status`). [`[]`]
 */
export type NamingOptions = Static<typeof NamingOptionsSchema>

export interface ResolvedNamingOptions {
  mode: 'warn' | 'error' | 'off'
  maxDepth: number
  prefixes: string[]
  exclude: string[]
  versionPrefix: boolean
  apiPrefix: boolean
  allow: ReadonlySet<string>
}

/** Always excluded: well-known URIs (RFC 8615 §3), named by their specifications. */
export const WELL_KNOWN = '/.well-known'

const strip = (p: string): string => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p)

export function resolveNamingOptions(options: NamingOptions): ResolvedNamingOptions {
  return {
    mode: options.mode ?? 'warn',
    maxDepth: options.maxDepth ?? 3,
    // Longest first, so `/api/v2` is stripped before `/api`.
    prefixes: (options.prefixes ?? []).map(strip).sort((a, b) => b.length - a.length),
    // RFC 8615: names under /.well-known/ come from IANA's registry, not from the API.
    exclude: [WELL_KNOWN, ...(options.exclude ?? []).map(strip)],
    versionPrefix: options.versionPrefix ?? true,
    apiPrefix: options.apiPrefix ?? true,
    allow: new Set((options.allow ?? []).map((word) => word.toLowerCase())),
  }
}
