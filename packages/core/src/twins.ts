/**
 * Method-override twins: a POST route added beside a route for each method an override may name
 * (`@restwell/method-override`), reached under a routing constraint when a POST carries that
 * override, so the request is routed once. A twin is set up as the route it stands for.
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

/** `METHOD[,METHOD] url`, as messages name a route: a twin by the method it stands for. */
export function routeName(route: RouteShape): string {
  return `${servedMethods(route).join(',')} ${route.url}`
}
