/**
 * A `/v<N>` route declared with the version in its own URL gets an unprefixed twin: the same
 * route at the path without `/v<N>`, reached under the version constraint (`versioned()` makes
 * its pairs itself). A twin is made from the route's options as Fastify first gave them, as
 * Fastify makes a GET's HEAD route, so that every plugin's `onRoute` hook sets it up as the route
 * it stands for.
 */
import { type RouteEntry, routeName } from '@restwell/core'
import {
  initialOptions,
  overrideTwinOf,
  servedMethods,
  VERSION_PAIR,
  type VersionPair,
  whenPlanned,
} from '@restwell/core/internal'
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { ResolvedVersioningOptions } from './options.js'
import { PLUGIN } from './options.js'
import { VERSION_CONSTRAINT, versionTwinDescription } from './pair.js'

/** The twins one registration of versioning has added. */
export interface TwinLedger {
  /** What serves an unprefixed URL by version (empty: no route gets a twin). */
  readonly carriers: readonly string[]
  /** Whether Fastify adds a HEAD route beside each GET route (so beside each GET twin). */
  readonly exposeHeads: boolean
  /** `<method> <url> <version>` of every twin added: a GET's twin brings its HEAD one. */
  readonly keys: Set<string>
}

/** An empty ledger for `fastify`, whose twins `options` asks for. */
export function createTwinLedger(
  fastify: FastifyInstance,
  options: ResolvedVersioningOptions,
): TwinLedger {
  return {
    carriers: [
      options.accept ? 'Accept' : '',
      options.query === false ? '' : `?${options.query}=`,
      options.routeToDefault ? 'the default version' : '',
    ].filter((name) => name !== ''),
    exposeHeads:
      (fastify.initialConfig as { exposeHeadRoutes?: boolean }).exposeHeadRoutes !== false,
    keys: new Set(),
  }
}

/**
 * Adds the unprefixed twin of `route`, a route at `/v<version>` + the rest (`prefixLength` is the
 * prefix's), for the methods not twinned yet, once its plan is made. Nothing when no carrier
 * serves an unprefixed URL, or for a method-override twin (its route's version twin gets a POST
 * twin of its own). A route in a plugin registered with the prefix is refused: no unprefixed
 * request could reach it.
 */
export function addVersionTwin(
  ledger: TwinLedger,
  instance: FastifyInstance,
  route: RouteEntry,
  version: number,
  prefixLength: number,
): void {
  if (ledger.carriers.length === 0 || overrideTwinOf(route) !== undefined) return
  if (route.prefix !== '') {
    throw new Error(
      `${PLUGIN}: route ${routeName(route)} is in a plugin registered with prefix '${route.prefix}', where an unprefixed request (${ledger.carriers.join(', ')}) cannot reach it; register the plugin with app.register(versioned(${version}, plugin)) instead of app.register(plugin, { prefix: '/v${version}' })`,
    )
  }
  const rest = route.url.slice(prefixLength)
  const url = rest === '' ? '/' : rest
  const methods = servedMethods(route).filter((m) => !ledger.keys.has(`${m} ${url} ${version}`))
  if (methods.length === 0) return
  for (const method of methods) ledger.keys.add(`${method} ${url} ${version}`)
  if (methods.includes('GET') && ledger.exposeHeads && route.exposeHeadRoute !== false) {
    ledger.keys.add(`HEAD ${url} ${version}`)
  }
  const initial = initialOptions(route)
  /* c8 ignore next 6 -- every route is snapshotted: `snapshotRoutes` runs when an instance is
     created after restwell was imported, and earlier instances with routes are refused. */
  if (initial === undefined) {
    throw new Error(
      `${PLUGIN}: route ${route.url} was not seen as it was added; import @restwell/versioning (or restwell) before creating the Fastify instance`,
    )
  }
  whenPlanned(instance, route, () => {
    instance.route(twinOptions(initial, route, version, url, methods))
  })
}

/**
 * The unprefixed twin of the `/v<N>` route `of` (for `methods`, those not twinned yet): its
 * options as first given, at `url`, reached under the version constraint, marked in its config
 * and left out of the OpenAPI document (its `/v<N>` route is described).
 */
function twinOptions(
  initial: RouteEntry,
  of: RouteEntry,
  version: number,
  url: string,
  methods: readonly string[],
): RouteOptions {
  const { url: _url, path: _path, routePath: _routePath, prefix: _prefix, ...rest } = initial
  const pair: VersionPair = { version, prefixed: false, of }
  return {
    ...rest,
    method: methods.length === 1 ? methods[0] : methods,
    url,
    constraints: { ...initial.constraints, [VERSION_CONSTRAINT]: String(version) },
    config: {
      ...(initial.config as object | undefined),
      [VERSION_PAIR]: pair,
      swaggerTransform: versionTwinDescription,
    },
  } as unknown as RouteOptions
}
