/**
 * Routes registered before a plugin, which its `onRoute` hook never sees. Importing this module
 * records every instance's routes (via the `fastify.initialization` diagnostics channel) so a
 * plugin can run its `onRoute` hook over those added before it loaded, and check every route of
 * the app, whatever its scope, at ready.
 */
import { subscribe } from 'node:diagnostics_channel'
import type { FastifyInstance, FastifyRequest, onRouteHookHandler } from 'fastify'
import { asList } from './http.js'

/** The options of one route, as Fastify gives them to `onRoute` hooks. */
export type RouteEntry = Parameters<onRouteHookHandler>[0]

/** `Symbol.for`: the ESM and the CJS build of this package share one ledger per instance. */
const LEDGER = Symbol.for('restwell.routeLedger')
const BATCH = Symbol.for('restwell.routeBatch')
const SUBSCRIBED = Symbol.for('restwell.routeLedgerSubscribed')
const SNAPSHOTS = Symbol.for('restwell.routeSnapshots')
const SNAPSHOT_STORE = Symbol.for('restwell.routeSnapshotStore')
const SCOPE_DEFAULTS = Symbol.for('restwell.scopeRouteDefaults')

interface Recorded {
  /** The instance the route was added on (`this` of the `onRoute` hook). */
  readonly instance: FastifyInstance
  readonly route: RouteEntry
}

/** Every route added on the app's instances, kept until the app is ready. */
interface Ledger {
  readonly entries: Recorded[]
  /** Run over every route of the app once it is ready (`checkEveryRoute`). */
  readonly checks: Array<(routes: readonly RouteEntry[]) => void>
}

interface Holder {
  [LEDGER]?: Ledger
  [BATCH]?: true
  [SNAPSHOTS]?: true
}

/** Each route's options as its first `onRoute` hook saw them (shared by both builds). */
const store = globalThis as typeof globalThis & {
  [SNAPSHOT_STORE]?: WeakMap<RouteEntry, RouteEntry>
}
store[SNAPSHOT_STORE] ??= new WeakMap()
const snapshots = store[SNAPSHOT_STORE]

/**
 * Keeps a shallow copy of the options of every route added on `fastify` (and the instances
 * created under it) from now on, taken by an `onRoute` hook added now: see `initialOptions`.
 * Done when the instance is created if restwell was imported first; idempotent.
 */
export function snapshotRoutes(fastify: FastifyInstance): void {
  const holder = fastify as FastifyInstance & Holder
  if (holder[SNAPSHOTS] === true) return
  holder[SNAPSHOTS] = true
  fastify.addHook('onRoute', function restwellRouteSnapshot(this: FastifyInstance, route) {
    if (!snapshots.has(route)) {
      ;(this as FastifyInstance & { [SCOPE_DEFAULTS]?: ScopeDefaults })[SCOPE_DEFAULTS]?.(route)
      snapshots.set(route, { ...route })
    }
  })
}

/** What `setScopeRouteDefaults` applies to a route's options. */
export type ScopeDefaults = (route: RouteEntry) => void

/**
 * Has `apply` change the options of every route added in `scope` and the instances under it,
 * before any `onRoute` hook sees them (they are taken so into `initialOptions`): the scope's
 * routes are declared as if each had been given those options. Needs `snapshotRoutes` on the
 * root first (restwell imported before the instance was created, or a restwell plugin
 * registered before the scope).
 */
export function setScopeRouteDefaults(scope: FastifyInstance, apply: ScopeDefaults): void {
  scope.decorate(SCOPE_DEFAULTS as unknown as string, apply)
}

/**
 * The options of `route` as the first `onRoute` hook after `snapshotRoutes` saw them, before
 * the plugins' hooks added to them: what a twin of the route (as Fastify's own HEAD route of a
 * GET) is made from, so that every `onRoute` hook sets the twin up as a route of its own.
 */
export function initialOptions(route: RouteEntry): RouteEntry | undefined {
  return snapshots.get(route)
}

type AddHook = FastifyInstance['addHook']

/** Has `instance` (and the instances created under it from now on) record its routes. */
function recordOn(instance: FastifyInstance, ledger: Ledger): void {
  instance.addHook('onRoute', function restwellRouteLedger(this: FastifyInstance, route) {
    ledger.entries.push({ instance: this, route })
  })
}

/** A ledger for the app whose root instance is `root`, given up when the app is ready. */
function newLedger(root: FastifyInstance): Ledger {
  const ledger: Ledger = { entries: [], checks: [] }
  ;(root as FastifyInstance & Holder)[LEDGER] = ledger
  root.addHook('onReady', async function restwellRouteLedgerDone() {
    const routes: RouteEntry[] = []
    for (const { route } of ledger.entries) if (added(root, route)) routes.push(route)
    // No route can be added once the instance is ready: let the options go.
    ledger.entries.length = 0
    for (const check of ledger.checks) check(routes)
  })
  return ledger
}

/**
 * Whether `route` is in the router: an `onRoute` hook that throws (a bad route config) refuses
 * the route after the ledger recorded it.
 */
function added(fastify: FastifyInstance, route: RouteEntry): boolean {
  const { url, constraints } = route
  return asList(route.method).every((method) => fastify.hasRoute({ url, method, constraints }))
}

function record(fastify: FastifyInstance): void {
  snapshotRoutes(fastify)
  recordOn(fastify, newLedger(fastify))
}

const scope = globalThis as typeof globalThis & { [SUBSCRIBED]?: true }
if (scope[SUBSCRIBED] === undefined) {
  scope[SUBSCRIBED] = true
  subscribe('fastify.initialization', (message) => {
    record((message as { fastify: FastifyInstance }).fastify)
  })
}

/** Thrown when routes exist that were added before this module was loaded. */
export class EarlierRoutesError extends Error {
  override readonly name: string = 'EarlierRoutesError'
  readonly code: string = 'RESTWELL_EARLIER_ROUTES'
}

/**
 * The options of the routes added on `fastify` itself (a child instance's routes excluded)
 * before now. Throws when the instance was created before restwell was imported and already
 * has routes, since those cannot be known.
 */
export function routesBefore(fastify: FastifyInstance): RouteEntry[] {
  const ledger = (fastify as FastifyInstance & Holder)[LEDGER]
  if (ledger === undefined) {
    if (fastify.printRoutes().includes('(empty tree)')) return []
    throw earlierRoutes()
  }
  const routes: RouteEntry[] = []
  for (const entry of ledger.entries) if (entry.instance === fastify) routes.push(entry.route)
  return routes
}

function earlierRoutes(): EarlierRoutesError {
  return new EarlierRoutesError(
    'restwell: this Fastify instance was created before restwell was imported and already has routes, which restwell cannot see; import restwell (or @restwell/errors) before creating the instance',
  )
}

/**
 * The ledger of `fastify`'s app. Made now when restwell was imported after the root instance
 * was created (`@fastify/autoload` imports `plugins/*.js` then): every instance from the root
 * down to `fastify`, each a parent of the next (the root's parent is `Object.prototype`), and
 * every instance created under them from now on, records its routes. An app that has routes
 * already cannot be known: `EarlierRoutesError`.
 */
function ledgerOf(fastify: FastifyInstance): Ledger {
  const found = (fastify as FastifyInstance & Holder)[LEDGER]
  if (found !== undefined) return found
  if (!fastify.printRoutes().includes('(empty tree)')) throw earlierRoutes()
  const chain: FastifyInstance[] = []
  for (
    let at: object = fastify;
    at !== Object.prototype;
    at = Object.getPrototypeOf(at) as object
  ) {
    chain.push(at as FastifyInstance)
  }
  const ledger = newLedger(chain.at(-1) as FastifyInstance)
  for (const instance of chain) recordOn(instance, ledger)
  return ledger
}

/**
 * Runs `check` over the options of every route of `fastify`'s app (its root instance and every
 * instance under it, whatever the scope) once the app is ready: what it throws fails `ready()`.
 * For a plugin that must reach every route, or that reads what others set on them.
 */
export function checkEveryRoute(
  fastify: FastifyInstance,
  check: (routes: readonly RouteEntry[]) => void,
): void {
  ledgerOf(fastify).checks.push(check)
}

/**
 * Routes added before now in encapsulated plugins under `fastify` (children created before
 * the plugin loaded): Fastify gave them their hooks and error handler when they were created,
 * so nothing a later plugin adds reaches them.
 */
export function routesOutOfReach(fastify: FastifyInstance): RouteEntry[] {
  const ledger = (fastify as FastifyInstance & Holder)[LEDGER]
  const routes: RouteEntry[] = []
  for (const entry of ledger?.entries ?? []) {
    if (
      entry.instance !== fastify &&
      Object.prototype.isPrototypeOf.call(fastify, entry.instance)
    ) {
      routes.push(entry.route)
    }
  }
  return routes
}

/**
 * Adds `hook` as an `onRoute` hook and runs it over the routes added on `fastify` before now,
 * so routes registered before or after the plugin are set up alike. Inside an
 * {@link adoptionBatch} only the hook is added; the batch runs it with the others.
 */
export function onEveryRoute(fastify: FastifyInstance, hook: onRouteHookHandler): void {
  fastify.addHook('onRoute', hook)
  if ((fastify as FastifyInstance & Holder)[BATCH] === true) return
  adopt(fastify, routesBefore(fastify), [hook])
}

/**
 * A reader of `config[key]` of the request's route, for a root hook (a step of every request).
 * Fastify rebuilds `request.routeOptions` on every read, so it is read only once some route of
 * `fastify`, added before or after, sets `key`.
 *
 * @param fastify the instance whose routes are watched (`onEveryRoute`)
 * @param key the route config key
 * @example
 * const routeCors = routeConfigReader(fastify, 'cors')
 * const optedOut = (request: FastifyRequest) => routeCors(request) === false
 */
export function routeConfigReader(
  fastify: FastifyInstance,
  key: string,
): (request: FastifyRequest) => unknown {
  let set = false
  onEveryRoute(fastify, (route) => {
    if ((route.config as Record<string, unknown> | undefined)?.[key] !== undefined) set = true
  })
  return (request) =>
    set ? (request.routeOptions.config as unknown as Record<string, unknown>)[key] : undefined
}

/**
 * Runs the hooks over routes Fastify has already added. A route added without a schema keeps
 * none: Fastify compiles the schema it was given, and would fail at ready on a schema that
 * appeared later (one with a schema keeps it; a new object only changes what documentation
 * tools read from the options).
 */
function adopt(
  fastify: FastifyInstance,
  routes: readonly RouteEntry[],
  hooks: readonly onRouteHookHandler[],
): void {
  for (const route of routes) {
    const hadSchema = route.schema !== undefined
    for (const hook of hooks) hook.call(fastify, route)
    if (!hadSchema) route.schema = undefined
  }
}

/**
 * Which parts of a route's schema a plugin may add JSON Schema to (for `@fastify/swagger`):
 * only those compiled by Fastify's own compilers, as a type provider's (Zod...) would fail on it.
 */
export interface SchemaAccess {
  /** `querystring`, `body`, `params`, `headers`: the route is validated by Fastify's default. */
  readonly validation: boolean
  /** `response`: the route is serialized by Fastify's default. */
  readonly response: boolean
}

/**
 * The parts of `route`'s schema a plugin may add to (see {@link SchemaAccess}), for an
 * `onRoute` hook: `instance` is the hook's `this`. Compilers set after the route was added, or
 * through `schemaController.compilersFactory`, are not seen.
 */
export function schemaAccess(instance: FastifyInstance, route: RouteEntry): SchemaAccess {
  return {
    validation: route.validatorCompiler === undefined && instance.validatorCompiler === undefined,
    response: route.serializerCompiler === undefined && instance.serializerCompiler === undefined,
  }
}

/**
 * A schema object a plugin may copy and extend (`{ ...schema, properties }`): a plain object,
 * whose prototype is `Object.prototype` or `null`. Anything else (a Zod or Valibot schema, a
 * class instance) would lose its prototype, and with it the methods its compiler calls, in a
 * copy: leave it as it is.
 */
export function isPlainSchema(value: unknown): value is Record<string | symbol, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Starts a batch for a plugin that registers several plugins (the umbrella): every `onRoute`
 * hook added on `fastify` until the returned function is called, by restwell's plugins or by
 * others (`@fastify/compress`), is run over the earlier routes then, in the order the hooks
 * were added, all hooks for one route before the next route, as Fastify runs them for a new
 * route. It returns the earlier routes it set up.
 */
export function adoptionBatch(fastify: FastifyInstance): () => RouteEntry[] {
  const holder = fastify as FastifyInstance & Holder
  const earlier = routesBefore(fastify)
  const hooks: onRouteHookHandler[] = []
  const own = Object.getOwnPropertyDescriptor(fastify, 'addHook')
  const addHook = fastify.addHook
  const capture = function (this: FastifyInstance, name: string, hook: unknown) {
    // A child instance (it inherits this function) keeps its hooks to its own routes.
    if (name === 'onRoute' && this === fastify) hooks.push(hook as onRouteHookHandler)
    return (addHook as (name: string, hook: unknown) => FastifyInstance).call(this, name, hook)
  }
  Object.defineProperty(fastify, 'addHook', { value: capture, configurable: true, writable: true })
  holder[BATCH] = true
  return () => {
    delete holder[BATCH]
    if (own === undefined) delete (fastify as Partial<Record<'addHook', AddHook>>).addHook
    else Object.defineProperty(fastify, 'addHook', own)
    adopt(fastify, earlier, hooks)
    return earlier
  }
}
