/**
 * Which version an unprefixed request is routed to: the one its carriers name, or the default one
 * when they name none and no route of the app's own serves the path. Routing decides, once,
 * through the version constraint of the twins.
 */
import type { IncomingMessage } from 'node:http'
import type { RouteEntry } from '@restwell/core'
import { keyedConstraintStore, shareLookupConstraint, versionPairOf } from '@restwell/core/internal'
import { splitUrl } from '@restwell/reroute'
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify'
import { type CarryingRequest, carriedBy } from './carriers.js'
import { movedLocation } from './moved.js'
import { VERSION_CONSTRAINT } from './pair.js'
import { isSupported } from './registry.js'
import type { VersioningState } from './state.js'
import { prefixVersion } from './version.js'

/** What routing knows of the app's own unprefixed routes. */
export interface UnprefixedRouting {
  /** The instance whose router is asked whether the app serves a path itself. */
  readonly fastify: FastifyInstance
  /** Whether the router tells `/Books` from `/books`. */
  readonly caseSensitive: boolean
  /** First path segments of the app's own unprefixed routes (lower case unless case-sensitive). */
  readonly ownFirst: Set<string>
  /** Some own route starts with a parameter or a wildcard: any path may be its. */
  ownAnyFirst: boolean
  /** The methods that can make a resource (set when ready: `supportedMethods` is a new array per read). */
  resourceMethods: HTTPMethods[]
  /** Whether the 405's lookup counts the twins of the version asked for (once the first exists). */
  lookupShared: boolean
}

/** The version an unprefixed request is routed by (`null`: none), decided at its first twin. */
const ROUTED: unique symbol = Symbol.for('restwell.versioning.routed') as typeof ROUTED
type RoutedRequest = CarryingRequest & { [ROUTED]?: string | null }

/** What routing knows of `fastify`'s routes before any is added. */
export function createRouting(fastify: FastifyInstance): UnprefixedRouting {
  return {
    fastify,
    caseSensitive: (fastify.initialConfig as { caseSensitive?: boolean }).caseSensitive !== false,
    ownFirst: new Set(),
    ownAnyFirst: false,
    resourceMethods: [],
    lookupShared: false,
  }
}

/** A path's first segment, up to `/` or `;` (which the router may read as a delimiter). */
function firstSegment(routing: UnprefixedRouting, path: string): string {
  let end = 1
  while (end < path.length && path[end] !== '/' && path[end] !== ';') end++
  const segment = path.slice(1, end)
  return routing.caseSensitive ? segment : segment.toLowerCase()
}

/** Notes an unprefixed route of the app's own: an unprefixed request for its path is its. */
export function noteOwnRoute(routing: UnprefixedRouting, route: RouteEntry): void {
  if ([route.method].flat().every((m) => m === 'OPTIONS')) return
  const first = firstSegment(routing, route.url)
  if (first.includes(':') || first.includes('*') || first.includes('(')) routing.ownAnyFirst = true
  else routing.ownFirst.add(first)
}

/** Whether some own route of the app could match `path` (its first segment tells). */
function mayBeServed(routing: UnprefixedRouting, path: string): boolean {
  if (routing.ownAnyFirst) return true
  const first = firstSegment(routing, path)
  return first.includes('%') || routing.ownFirst.has(first)
}

/**
 * An unprefixed path some route of the app answers for any method: the request is that
 * resource's (its own route, or its 405), not the default version's. OPTIONS does not count:
 * a catch-all `OPTIONS *` (as `@fastify/cors` adds) makes no resource.
 */
function servedUnprefixed(routing: UnprefixedRouting, path: string): boolean {
  for (const method of routing.resourceMethods) {
    if (routing.fastify.findRoute({ method, url: path }) !== null) return true
  }
  return false
}

/** Whether an unprefixed request that carries no version goes to the default version. */
function toDefault(state: VersioningState, raw: IncomingMessage): boolean {
  const { options, routing } = state
  if (!options.routeToDefault || state.versions.defaultKey === undefined) return false
  const path = splitUrl(raw.url as string).path
  if (options.moved.length > 0 && movedLocation(options.moved, path) !== undefined) return false
  return !(mayBeServed(routing, path) && servedUnprefixed(routing, path))
}

/**
 * The version (a constraint value) an unprefixed request is routed by: the one its carriers
 * name, or the default one when it names none and the app has no route of its own for the
 * path; null for none. Decided at the first twin routing meets, then kept.
 */
function routedVersion(state: VersioningState, raw: RoutedRequest): string | null {
  const known = raw[ROUTED]
  if (known !== undefined) return known
  const carried = carriedBy(state, raw)
  const routed =
    carried.explicit !== undefined
      ? String(carried.explicit)
      : carried.error === undefined && toDefault(state, raw)
        ? (state.versions.defaultKey as string)
        : null
  raw[ROUTED] = routed
  return routed
}

/**
 * Adds the version constraint: an unprefixed request reaches a version's twin when its carriers
 * name that version, or it names none and the twin is the default version's.
 */
export function addVersionConstraint(fastify: FastifyInstance, state: VersioningState): void {
  fastify.addConstraintStrategy({
    name: VERSION_CONSTRAINT,
    mustMatchWhenDerived: false,
    // Routing asks with the request (derived below), and the version is decided then.
    storage: () => keyedConstraintStore((asked) => routedVersion(state, asked as RoutedRequest)),
    // The request itself: what it carries is read only where routing meets a version's twin.
    // A prefixed URL is routed by its path alone.
    deriveConstraint: (req: IncomingMessage) =>
      (prefixVersion(req.url as string) === undefined ? req : undefined) as unknown as string,
  })
}

/**
 * Has the 405's `Allow` count the twins of the version the request is routed by: shared once the
 * first twin exists (an app without versions asks the router as it is).
 */
export function shareVersionLookup(routing: UnprefixedRouting): void {
  if (routing.lookupShared) return
  routing.lookupShared = true
  shareLookupConstraint(routing.fastify, VERSION_CONSTRAINT, (raw) =>
    prefixVersion(raw.url as string) === undefined ? raw : undefined,
  )
}

/**
 * The version serving `request` (`request.apiVersion`): its supported `/v<N>` prefix, or, on an
 * unprefixed URL, the version of the twin routing chose; undefined on an unversioned route.
 */
export function servedVersion(state: VersioningState, request: FastifyRequest): number | undefined {
  const prefix = prefixVersion(request.url)
  if (prefix !== undefined) {
    return isSupported(state.versions, prefix.version) ? prefix.version : undefined
  }
  // Unprefixed: a version's twin answers only where routing chose a version.
  const routed = (request.raw as RoutedRequest)[ROUTED]
  if (routed === undefined || routed === null) return undefined
  return versionPairOf(request.routeOptions)?.version
}
