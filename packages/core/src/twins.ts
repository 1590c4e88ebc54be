/**
 * Twin routes, each reached under a routing constraint so that a request is routed once:
 * method-override twins, a POST route beside a route for each method an override may name
 * (`@restwell/method-override`), and version twins, an unprefixed route beside each `/v<N>` one
 * (`@restwell/versioning`). A twin is set up as the route it stands for.
 */
import type { RouteEntry } from './routes.js'

/** What `servedMethods` and `routeName` read of a route's options. */
export interface RouteShape {
  readonly method: string | readonly string[]
  readonly url: string
  readonly config?: unknown
}

/** The key, in a twin's `config`, of what it stands for (`Symbol.for`: both builds share it). */
export const OVERRIDE_TWIN: unique symbol = Symbol.for(
  'restwell.overrideTwin',
) as typeof OVERRIDE_TWIN

/** What a twin stands for: the method an override names, on the route `of`. */
export interface OverrideTwin {
  /** The method the twin serves for an overridden POST (upper case). */
  readonly method: string
  /** The options of the route it is the twin of. */
  readonly of: RouteEntry
}

/** What `route` (its options, or `request.routeOptions`) is the override twin of, if it is one. */
export function overrideTwinOf(route: { readonly config?: unknown }): OverrideTwin | undefined {
  const config = route.config as { [OVERRIDE_TWIN]?: OverrideTwin } | undefined
  return config?.[OVERRIDE_TWIN]
}

/**
 * The methods a route is set up for: its own, or, for an override twin (which Fastify routes as
 * POST), the method it stands for.
 */
export function servedMethods(route: RouteShape): string[] {
  const twin = overrideTwinOf(route)
  if (twin !== undefined) return [twin.method]
  return typeof route.method === 'string' ? [route.method] : [...route.method]
}

/**
 * `METHOD[,METHOD] url`, as messages name a route: a twin by the method it stands for.
 *
 * @param route a route's options (`RouteContext.route`), or `request.routeOptions`
 * @example
 * routeName({ method: ['GET', 'HEAD'], url: '/books/:id' }) // 'GET,HEAD /books/:id'
 */
export function routeName(route: RouteShape): string {
  return `${servedMethods(route).join(',')} ${route.url}`
}

/**
 * The key, in a route's `config`, of the API version it serves as one of a pair
 * (`@restwell/versioning`): a `/v<N>` route and its unprefixed twin, reached under the version
 * constraint, so that a version carried by `Accept` or `?version=`, or the default one, is
 * routed once.
 */
export const VERSION_PAIR: unique symbol = Symbol.for('restwell.versionPair') as typeof VERSION_PAIR

/** Which version a route serves, and which of its pair it is. */
export interface VersionPair {
  readonly version: number
  /** At `/v<N>/…`, reached by its path; false: unprefixed, reached under the version constraint. */
  readonly prefixed: boolean
  /** The route it was made from: the `/v<N>` route of a twin versioning or `versioned()` made. */
  readonly of?: RouteEntry
}

/** What version `route` (its options, or `request.routeOptions`) serves as a version's pair. */
export function versionPairOf(route: { readonly config?: unknown }): VersionPair | undefined {
  const config = route.config as { [VERSION_PAIR]?: VersionPair } | undefined
  return config?.[VERSION_PAIR]
}

/**
 * The route a twin was made from (a method-override twin, or a version's twin), whose state a
 * twin shares (its rate-limit counter): undefined for any other route.
 */
export function twinSourceOf(route: { readonly config?: unknown }): RouteEntry | undefined {
  return overrideTwinOf(route)?.of ?? versionPairOf(route)?.of
}

/** What find-my-way keeps per routing-constraint value of a node (`addConstraintStrategy`). */
export interface ConstraintStore {
  get(asked: unknown): never
  set(key: string, value: unknown): void
}

/**
 * The store of a routing constraint whose routes carry string values: find-my-way asks it with
 * those strings while building it, and routing with what the strategy derived, which `keyOf`
 * turns into the value it reaches (null: none). A derived string is its own key.
 */
export function keyedConstraintStore(keyOf: (asked: unknown) => string | null): ConstraintStore {
  const values = new Map<string, unknown>()
  return {
    get: (asked) => {
      const key = typeof asked === 'string' ? asked : keyOf(asked)
      return (key === null ? null : (values.get(key) ?? null)) as never
    },
    set: (key, value) => {
      values.set(key, value)
    },
  }
}
