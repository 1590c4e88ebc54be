/** Options of `@restwell/versioning`. */
import { OptionsError } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'
import { deprecationValue, linkValue, sunsetValue, toDate } from './lifecycle.js'
import { compileMoved, type MovedPath } from './moved.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/versioning'
const Version = Type.Integer({ minimum: 0, maximum: 999_999_999 })
const DateLike = Type.Union([Type.String({ minLength: 1 }), Type.Date()])
/**
 * An absolute path: `/`, or `/` then a first character that is not another `/` or `\`. A path
 * starting with `//` is a network-path reference (RFC 3986 §4.2: its first segment is a host),
 * and browsers read `/\` the same way, so a `moved` target `//evil.example/x` would redirect
 * clients to another site.
 */
const PATH_PATTERN = '^/(?:[^\\s?#/\\\\][^\\s?#]*)?$'
const Path = Type.String({ pattern: PATH_PATTERN })

export const RetiredVersionSchema = Type.Object(
  {
    deprecation: DateLike,
    sunset: Type.Optional(DateLike),
    successor: Type.Optional(Version),
    link: Type.Optional(Type.String({ pattern: '^[^\\s<>]+$' })),
  },
  { additionalProperties: false },
)

export const VersioningOptionsSchema = Type.Object(
  {
    versions: Type.Optional(Type.Array(Version, { minItems: 1, uniqueItems: true })),
    defaultVersion: Type.Optional(Version),
    carriers: Type.Optional(
      Type.Object(
        {
          prefix: Type.Optional(Type.Boolean()),
          accept: Type.Optional(Type.Boolean()),
          query: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    queryParameter: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]+$' })),
    responseHeader: Type.Optional(
      Type.Union([Type.String({ pattern: '^[A-Za-z0-9-]+$' }), Type.Literal(false)]),
    ),
    routeToDefault: Type.Optional(Type.Boolean()),
    moved: Type.Optional(
      Type.Record(Type.String({ pattern: PATH_PATTERN }), Path, { additionalProperties: false }),
    ),
    retired: Type.Optional(
      Type.Record(Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$' }), RetiredVersionSchema, {
        additionalProperties: false,
      }),
    ),
  },
  { additionalProperties: false },
)

/**
 * @param versions Supported versions. [the `N` of every `/v<N>` route prefix]
 * @param defaultVersion Version served to requests that carry none. [the highest supported]
 * @param carriers Which carriers are read: `{ prefix, accept, query }`, each a boolean. [all true]
 * @param queryParameter Query parameter carrying the version. [`version`]
 * @param responseHeader Response header stating the served version; `false` for none. [`api-version`]
 * @param routeToDefault Route an unprefixed path that matches no route to the default version. [true]
 * @param moved Old path prefix → new path prefix; answers 301 (GET, HEAD) or 308. [`{}`]
 * @param retired Version → `{ deprecation, sunset?, successor?, link? }` for `Deprecation`, `Sunset` and `Link`. [`{}`]
 */
export type VersioningOptions = Static<typeof VersioningOptionsSchema>

/** The headers a retired version's responses carry, computed once. */
export interface RetiredHeaders {
  deprecation: string
  sunset: string | undefined
  successor: number | undefined
  /** `Link` value for the deprecation policy (`rel="deprecation"`), if any. */
  policyLink: string | undefined
}

export interface ResolvedVersioningOptions {
  versions: ReadonlySet<number> | undefined
  defaultVersion: number | undefined
  prefix: boolean
  accept: boolean
  query: string | false
  /** Lower case, as the step sets it; false: none. */
  responseHeader: string | false
  /** As the app spelt it (`API-Version` by default): how the convention names it to others. */
  responseHeaderName: string | false
  routeToDefault: boolean
  moved: MovedPath[]
  retired: ReadonlyMap<number, RetiredHeaders>
}

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000)

function date(value: string | Date, option: string): Date {
  const parsed = toDate(value)
  if (parsed === undefined)
    throw new OptionsError(PLUGIN, option, `is not a date: ${String(value)}`)
  return parsed
}

export function resolveVersioningOptions(options: VersioningOptions): ResolvedVersioningOptions {
  const versions = options.versions === undefined ? undefined : new Set(options.versions)
  if (
    versions !== undefined &&
    options.defaultVersion !== undefined &&
    !versions.has(options.defaultVersion)
  ) {
    throw new OptionsError(
      PLUGIN,
      'defaultVersion',
      `must be one of versions, got ${options.defaultVersion}`,
    )
  }
  const retired = new Map<number, RetiredHeaders>()
  for (const [key, entry] of Object.entries(options.retired ?? {})) {
    const deprecation = date(entry.deprecation, `retired.${key}.deprecation`)
    const sunset =
      entry.sunset === undefined ? undefined : date(entry.sunset, `retired.${key}.sunset`)
    // RFC 9745 §4: the Sunset timestamp MUST NOT be earlier than the Deprecation one (compared
    // in whole seconds, as both headers carry them).
    if (sunset !== undefined && seconds(sunset) < seconds(deprecation)) {
      throw new OptionsError(
        PLUGIN,
        `retired.${key}.sunset`,
        `(${sunset.toISOString()}) is earlier than its deprecation (${deprecation.toISOString()}); RFC 9745 §4: Sunset must not be earlier than Deprecation`,
      )
    }
    if (entry.successor === Number(key)) {
      throw new OptionsError(
        PLUGIN,
        `retired.${key}.successor`,
        `must be another version than ${key} itself (its successor-version link would point to itself)`,
      )
    }
    retired.set(Number(key), {
      deprecation: deprecationValue(deprecation),
      sunset: sunset === undefined ? undefined : sunsetValue(sunset),
      successor: entry.successor,
      policyLink: entry.link === undefined ? undefined : linkValue(entry.link, 'deprecation'),
    })
  }
  const carriers = options.carriers ?? {}
  const responseHeaderName =
    options.responseHeader === false ? false : (options.responseHeader ?? 'API-Version')
  return {
    versions,
    defaultVersion: options.defaultVersion,
    prefix: carriers.prefix ?? true,
    accept: carriers.accept ?? true,
    query: (carriers.query ?? true) ? (options.queryParameter ?? 'version') : false,
    responseHeader: responseHeaderName === false ? false : responseHeaderName.toLowerCase(),
    responseHeaderName,
    routeToDefault: options.routeToDefault ?? true,
    moved: compileMoved(options.moved ?? {}),
    retired,
  }
}

/**
 * Checks, when the routes are known (at ready), what only the routes can tell: the default
 * version (configured or the highest supported) and every retired version's successor must be
 * versions with `/v<N>` routes. `served`: the supported versions that have routes.
 */
export function checkServedVersions(
  options: ResolvedVersioningOptions,
  served: ReadonlySet<number>,
  defaultVersion: number | undefined,
): void {
  const list = [...served].sort((a, b) => a - b).join(', ') || 'none'
  if (defaultVersion !== undefined && !served.has(defaultVersion)) {
    throw new OptionsError(
      PLUGIN,
      options.defaultVersion === undefined ? 'versions' : 'defaultVersion',
      options.defaultVersion === undefined
        ? `makes ${defaultVersion} (the highest) the default version, but it has no /v${defaultVersion} routes: a request carrying no version would be routed there and answer 404; set defaultVersion or add /v${defaultVersion} routes (versions with routes: ${list})`
        : `${defaultVersion} has no /v${defaultVersion} routes: a request carrying no version would be routed there and answer 404 (versions with routes: ${list})`,
    )
  }
  for (const [version, { successor }] of options.retired) {
    if (successor !== undefined && !served.has(successor)) {
      throw new OptionsError(
        PLUGIN,
        `retired.${version}.successor`,
        `${successor} is not a served version (no /v${successor} routes): its successor-version link would be a 404 (versions with routes: ${list})`,
      )
    }
  }
}
