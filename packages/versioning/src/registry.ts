/**
 * The versions an app serves: those `versions` lists, or else every `N` its `/v<N>` routes name,
 * learnt as routes are added and fixed once the app is ready (the sorted list, the default).
 */
import { type RouteEntry, routeName } from '@restwell/core'
import { versionPairOf } from '@restwell/core/internal'
import { PLUGIN } from './options.js'
import { prefixVersion } from './version.js'

/** The versions of one registration of versioning. */
export interface VersionRegistry {
  /** `versions` as configured; undefined: every version a route serves is supported. */
  readonly configured: ReadonlySet<number> | undefined
  /** The supported versions some route serves. */
  readonly served: Set<number>
  /** The supported versions, ascending (set when ready). */
  list: readonly number[]
  /** The same, as a set: what a request no version answers may be answered in. */
  all: ReadonlySet<number>
  /** `{N}` per version, made once: what a request version N answers may be answered in. */
  readonly single: Map<number, ReadonlySet<number>>
  /** The routing-constraint value of the default version's twins (set when ready). */
  defaultKey: string | undefined
}

/** An empty registry of the versions `configured` lists (undefined: those routes serve). */
export function createRegistry(configured: ReadonlySet<number> | undefined): VersionRegistry {
  return {
    configured,
    served: new Set(),
    list: [],
    all: new Set(),
    single: new Map(),
    defaultKey: undefined,
  }
}

/** Whether `version` is supported: listed in `versions`, or served by a route when none are. */
export function isSupported(registry: VersionRegistry, version: number): boolean {
  return registry.configured === undefined
    ? registry.served.has(version)
    : registry.configured.has(version)
}

/** The version a route serves. */
export interface ServedVersion {
  readonly version: number
  /** At its `/v<N>` URL, reached by its path; false: an unprefixed twin. */
  readonly prefixed: boolean
  /** One of a pair already (`versioned()`'s, or a twin): it gets no twin. */
  readonly paired: boolean
}

/**
 * The version `route` serves: the one `versioned()` (or a twin) marked it with, or the `N` of its
 * `/v<N>` URL when that version is supported; undefined for any other route.
 */
export function versionOfRoute(
  registry: VersionRegistry,
  route: RouteEntry,
): ServedVersion | undefined {
  const pair = versionPairOf(route)
  if (pair !== undefined) return { version: pair.version, prefixed: pair.prefixed, paired: true }
  const prefix = prefixVersion(route.url)
  if (prefix === undefined) return undefined
  if (registry.configured !== undefined && !registry.configured.has(prefix.version)) {
    return undefined
  }
  return { version: prefix.version, prefixed: true, paired: false }
}

/** Records that `route` serves `version`; a `versioned()` route of a version not listed is refused. */
export function serveVersion(registry: VersionRegistry, version: number, route: RouteEntry): void {
  if (registry.configured !== undefined && !registry.configured.has(version)) {
    throw new Error(
      `${PLUGIN}: route ${routeName(route)} serves version ${version}, which \`versions\` does not list; add it there, or register the plugin without versioned()`,
    )
  }
  registry.served.add(version)
}

/**
 * Fixes the list of versions once every route is known, and the default one: `configured`, or
 * the highest supported. Returns the default version (undefined: the app serves none).
 */
export function sealRegistry(
  registry: VersionRegistry,
  configured: number | undefined,
): number | undefined {
  registry.list = [...(registry.configured ?? registry.served)].sort((a, b) => a - b)
  registry.all = new Set(registry.list)
  const chosen = configured ?? registry.list[registry.list.length - 1]
  registry.defaultKey = chosen === undefined ? undefined : String(chosen)
  return chosen
}

/** The versions a request `version` serves may be answered in (undefined: every supported one). */
export function answerableIn(
  registry: VersionRegistry,
  version: number | undefined,
): ReadonlySet<number> {
  if (version === undefined) return registry.all
  let set = registry.single.get(version)
  if (set === undefined) {
    set = new Set([version])
    registry.single.set(version, set)
  }
  return set
}
