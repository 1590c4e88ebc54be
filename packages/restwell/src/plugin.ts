/** The umbrella plugin: registers every restwell convention in the right order. */
import {
  DEFAULT_REQUEST_ID_HEADER,
  errors,
  OptionsError,
  RoutesOutOfReachError,
  validateOptions,
} from '@restwell/errors'
import { type RouteEntry, routeName } from '@restwell/core'
import {
  adoptionBatch,
  asksForAuthentication,
  checkEveryRoute,
  onEveryRoute,
  routesOutOfReach,
  runWhenPlanned,
  snapshotRoutes,
} from '@restwell/core/internal'
import { auth } from '@restwell/auth'
import { cacheControl } from '@restwell/cache-control'
import { compress } from '@restwell/compress'
import { conditional } from '@restwell/conditional'
import { cors, DEFAULT_EXPOSED_HEADERS, type MethodOverrideReach } from '@restwell/cors'
import { digest } from '@restwell/digest'
import { idempotency } from '@restwell/idempotency'
import {
  DEFAULT_OVERRIDE_HEADER,
  DEFAULT_OVERRIDE_METHODS,
  DEFAULT_OVERRIDE_QUERY,
  methodOverride,
} from '@restwell/method-override'
import { methods } from '@restwell/methods'
import { naming } from '@restwell/naming'
import { negotiation } from '@restwell/negotiation'
import { overload } from '@restwell/overload'
import { DEFAULT_PASSTHROUGH, pagination } from '@restwell/pagination'
import { patch } from '@restwell/patch'
import { prefer } from '@restwell/prefer'
import { rateLimit } from '@restwell/rate-limit'
import { reroute } from '@restwell/reroute'
import { softDelete } from '@restwell/soft-delete'
import { versioning } from '@restwell/versioning'
import type { Contributions, SetupContext } from '@restwell/core'
import {
  type AnyConvention,
  type InstalledConvention,
  installConvention,
  installedConventions,
  installPipeline,
  mergeContributions,
  type Pipeline,
  routeDescriptionOf,
  routeResponseHeadersOf,
} from '@restwell/core/internal'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { installOpenapi, type OpenapiPlan, representationsOf } from './openapi.js'
import { type PluginKey, type RestwellOptions, RestwellOptionsSchema } from './options.js'
import { checkOverlaps } from './overlaps.js'
import { planNotFound, planRequest, planRoute } from './pipeline.js'
import { refuseConfigTypos } from './route-config.js'

/**
 * The query parameters the other plugins own, under the names their options give them:
 * pagination must take none for a filter nor refuse it as an unknown one. Its defaults are
 * kept (the plugins' default names); an explicit `pagination.passthrough` replaces the list.
 */
function ownedQueryParameters(options: RestwellOptions): string[] {
  const names = new Set(DEFAULT_PASSTHROUGH)
  const add = (name: string | false | undefined): void => {
    if (typeof name === 'string') names.add(name)
  }
  if (options.negotiation !== false) add(options.negotiation?.formatParam)
  if (options.versioning !== false) add(options.versioning?.queryParameter)
  if (options.methodOverride !== false) add(options.methodOverride?.query)
  if (options.softDelete !== false) {
    add(options.softDelete?.param)
    add(options.softDelete?.includeParam)
  }
  return [...names]
}

/** The request id header `@restwell/errors` reads and echoes (lower case), or false for none. */
function requestIdHeaderOf(options: RestwellOptions): string | false {
  if (options.errors === false) return false
  const header = options.errors?.requestIdHeader ?? DEFAULT_REQUEST_ID_HEADER
  return header === false ? false : header.toLowerCase()
}

/** How a POST may be overridden (method override's header, query parameter and methods), or false. */
function overrideOf(options: RestwellOptions): MethodOverrideReach | false {
  const override = options.methodOverride
  if (override === false) return false
  const header = override?.header ?? DEFAULT_OVERRIDE_HEADER
  return {
    header: header === false ? false : header.toLowerCase(),
    query: override?.query ?? DEFAULT_OVERRIDE_QUERY,
    methods: [...(override?.methods ?? DEFAULT_OVERRIDE_METHODS)],
  }
}

/**
 * What the plugins not yet declared as conventions contribute, from their options (CORS reads
 * it): the request headers they read (the override header, the request id header), and the
 * response headers they send, under the names
 * their options give them (versioning's `responseHeader`, errors'
 * `requestIdHeader`; none when the option or the plugin is off), in `DEFAULT_EXPOSED_HEADERS`' order.
 */
function undeclaredContributions(
  options: RestwellOptions,
): Pick<Contributions, 'requestHeaders' | 'responseHeaders'> {
  const override = overrideOf(options)
  const requestIdHeader = requestIdHeaderOf(options)
  const { versioning } = options
  const renamed = new Map<string, string | false>([
    ['api-version', versioning === false ? false : (versioning?.responseHeader ?? 'api-version')],
    ['x-request-id', requestIdHeader],
    // Rate limits that send only the IETF fields contribute those instead.
    ...(options.rateLimit !== false && options.rateLimit?.headers === 'ietf'
      ? X_RATELIMIT_HEADERS.map((name) => [name, false] as const)
      : []),
  ])
  // The default spelling is kept when the name only differs in case.
  const responseHeaders = DEFAULT_EXPOSED_HEADERS.flatMap((name) => {
    const given = renamed.get(name.toLowerCase())
    if (given === undefined) return [name]
    if (given === false) return []
    return [given.toLowerCase() === name.toLowerCase() ? name : given]
  })
  return {
    requestHeaders: [
      ...(override === false || override.header === false ? [] : [override.header]),
      ...(requestIdHeader === false ? [] : [requestIdHeader]),
    ],
    responseHeaders,
  }
}

/**
 * The query parameter versioning reads the version from, or false when it reads none: the
 * item links of a collection (negotiation's HAL, JSON:API and Siren forms) keep it, so an item
 * link names the version the collection was fetched in.
 */
function versionQueryParameter(options: RestwellOptions): string | false {
  const versioning = options.versioning
  if (versioning === false || versioning?.carriers?.query === false) return false
  return versioning?.queryParameter ?? 'version'
}

const X_RATELIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']

/**
 * The places in `DEFAULT_EXPOSED_HEADERS` of headers a declared convention sends under a name its
 * options give (pagination's total): what it declares goes there, in the defaults' order.
 */
const PLACED_BY: ReadonlyMap<string, AnyConvention> = new Map([['x-total-count', pagination]])

/**
 * `defaults` with each place `PLACED_BY` names taken by the response headers its convention
 * declares that `defaults` do not hold (the default spelling kept for a name differing in case),
 * or by none when the convention is off or sends none there.
 */
function placeDeclared(
  defaults: readonly string[],
  installed: readonly InstalledConvention[],
): string[] {
  const held = new Set(defaults.map((name) => name.toLowerCase()))
  return defaults.flatMap((name) => {
    const owner = PLACED_BY.get(name.toLowerCase())
    if (owner === undefined) return [name]
    const entry = installed.find((candidate) => candidate.convention === owner)
    const sent = entry === undefined ? [] : mergeContributions([entry]).responseHeaders
    return sent.flatMap((header) => {
      if (header.toLowerCase() === name.toLowerCase()) return [name]
      return held.has(header.toLowerCase()) ? [] : [header]
    })
  })
}

/** `first`, then the names of `then` that `first` does not hold in any case. */
function withoutCaseTwins(first: readonly string[], then: readonly string[]): string[] {
  const held = new Set(first.map((name) => name.toLowerCase()))
  return [...first, ...then.filter((name) => !held.has(name.toLowerCase()))]
}

/**
 * The default response headers a route's answers may carry whoever sets them (a handler's
 * `Location` on a 201, its `Link`, its `ETag`): exposed on every route.
 */
const ANY_ROUTE: ReadonlySet<string> = new Set(['etag', 'location', 'link'])

/**
 * The default response headers of a convention, sent on no route when no convention installed
 * says it sends them (auth off: no `WWW-Authenticate`).
 */
const OWNED: ReadonlySet<string> = new Set(
  [
    ...X_RATELIMIT_HEADERS,
    'x-total-count',
    'retry-after',
    'x-request-id',
    'allow',
    'accept',
    'accept-patch',
    'api-version',
    'deprecation',
    'sunset',
    'www-authenticate',
  ].map((name) => name.toLowerCase()),
)

/**
 * The names of `exposed` (the app's response headers) the answers of `route` may carry: those a
 * convention that applies there sends on it (`routeResponseHeadersOf`), the defaults anyone may
 * set (`ANY_ROUTE`), and the defaults no convention claims (`Content-Range`, `Accept-Ranges`…).
 */
function routeResponseHeaders(
  pipeline: Pipeline,
  exposed: readonly string[],
  instance: FastifyInstance,
  route: RouteEntry,
): string[] {
  const claimed = new Set<string>(OWNED)
  const sent = new Set<string>(ANY_ROUTE)
  for (const installed of installedConventions(pipeline)) {
    for (const name of mergeContributions([installed]).responseHeaders) {
      claimed.add(name.toLowerCase())
    }
    for (const name of routeResponseHeadersOf(installed, instance, route)) {
      sent.add(name.toLowerCase())
    }
  }
  return exposed.filter((name) => {
    const key = name.toLowerCase()
    return sent.has(key) || !claimed.has(key)
  })
}

/** An option of the umbrella as given, when it is not `false`. */
type Given<K extends PluginKey> = Exclude<RestwellOptions[K], false | undefined>

/** How the umbrella installs one convention from its option `key`. */
type Install = {
  [K in PluginKey]: {
    readonly key: K
    /** The convention, or its import (off until configured: not loaded otherwise). */
    readonly convention: AnyConvention | (() => Promise<AnyConvention>)
    /**
     * Off until given, rather than on unless `false`. `refuse` then checks each route while the
     * option is not given: a route setting what nothing would read fails, named with the fix.
     */
    readonly untilGiven?: { readonly refuse?: (route: RouteEntry) => void }
    /** The convention's options from the umbrella's (default: the option as given, or `{}`). */
    readonly options?: (given: Given<K> | undefined, options: RestwellOptions) => object
  }
}[PluginKey]

/**
 * The conventions that hand steps to the pipeline, in the order the umbrella installs them.
 * The order of a request is `pipeline.ts`'s; this order is the one their setups need (what an
 * earlier one decorates or contributes, a later one reads).
 */
const INSTALLS: readonly Install[] = [
  // Every later plugin's errors, and Fastify's, go out in one form.
  { key: 'errors', convention: errors },
  // CORS knows how a POST may be overridden: its preflight allows the override header.
  {
    key: 'cors',
    convention: cors,
    options: (given, options) => ({ ...given, methodOverride: overrideOf(options) }),
  },
  // Method override routes to a route's POST twin, versioning to a `/v<N>` route's unprefixed
  // twin; the twins are added once a route's plan is made (`runWhenPlanned`).
  { key: 'methodOverride', convention: reroute, options: () => ({}) },
  { key: 'methodOverride', convention: methodOverride },
  { key: 'versioning', convention: versioning },
  // under-pressure samples the process in a scope of its own; the pipeline's step asks it.
  { key: 'underPressure', convention: overload },
  { key: 'rateLimit', convention: rateLimit },
  // Off until given; until then a route asking for authentication would be public.
  { key: 'auth', convention: auth, untilGiven: { refuse: refuseUnguarded } },
  { key: 'methods', convention: methods },
  // Multipart is opt-in: its plugin adds global hooks every route would pay for. Item links of
  // a collection keep the version's query parameter.
  {
    key: 'negotiation',
    convention: negotiation,
    options: (given, options) => ({
      multipart: false,
      versionParam: versionQueryParameter(options),
      ...given,
    }),
  },
  { key: 'conditional', convention: conditional },
  { key: 'compress', convention: compress },
  { key: 'cacheControl', convention: cacheControl },
  { key: 'patch', convention: patch },
  // Pagination takes for a filter no query parameter another convention reads.
  {
    key: 'pagination',
    convention: pagination,
    options: (given, options) => ({ passthrough: ownedQueryParameters(options), ...given }),
  },
  { key: 'softDelete', convention: softDelete },
  { key: 'idempotency', convention: idempotency },
  // Prefer and the digest fields are off until given (each adds hooks to the routes it shapes).
  {
    key: 'prefer',
    convention: prefer,
    untilGiven: { refuse: refuseUnread('prefer') },
    options: (given, options) => ({
      ...given,
      queryParameters: [...ownedQueryParameters(options), ...(given?.queryParameters ?? [])],
    }),
  },
  { key: 'digest', convention: digest, untilGiven: { refuse: refuseUnread('digest') } },
]

/**
 * The conventions installed once every route's plan is set up and OpenAPI describes the
 * routes: naming checks every route added from then on; jobs and batch add routes of their
 * own (described too). A batch's operations are injected, so they pass every step above.
 */
const AFTER_PLAN: readonly Install[] = [
  { key: 'naming', convention: naming },
  {
    key: 'jobs',
    convention: async () => (await import('@restwell/jobs')).jobs,
    untilGiven: {},
  },
  {
    key: 'batch',
    convention: async () => (await import('@restwell/batch')).batch,
    untilGiven: {},
    // Operations may not use this app's method override header or parameter.
    options: (given, options) => {
      const override = overrideOf(options)
      const header = override === false ? false : override.header
      const query = override === false ? false : override.query
      return {
        ...given,
        forbiddenHeaders: [...(given?.forbiddenHeaders ?? []), ...(header ? [header] : [])],
        forbiddenQuery: [...(given?.forbiddenQuery ?? []), ...(query ? [query] : [])],
      }
    },
  },
]

/** Installs each convention of `installs` its option turns on, in order. */
async function installAll(
  fastify: FastifyInstance,
  installs: readonly Install[],
  options: RestwellOptions,
  context: SetupContext,
): Promise<void> {
  for (const install of installs) {
    const given = options[install.key]
    if (given === false) continue
    if (given === undefined && install.untilGiven !== undefined) {
      const refuse = install.untilGiven.refuse
      if (refuse !== undefined) onEveryRoute(fastify, refuse)
      continue
    }
    const { convention } = install
    const value = typeof convention === 'function' ? await convention() : convention
    const settings = install.options as
      | ((given: object | undefined, options: RestwellOptions) => object)
      | undefined
    await installConvention(fastify, value, settings?.(given, options) ?? given ?? {}, context)
  }
}

const plugin: FastifyPluginAsync<RestwellOptions> = async (fastify, rawOptions) => {
  const options = validateOptions('restwell', RestwellOptionsSchema, rawOptions) as RestwellOptions
  // Registered once, and alone: no official plugin doing a job restwell does is there too.
  checkOverlaps(fastify, options)
  // Twins of routes (method override's) are made from the routes' options as first given.
  snapshotRoutes(fastify)

  // Routes added before restwell loaded (`app.register(restwell)` without await, then routes)
  // never reached the plugins' onRoute hooks: every onRoute hook added from here on, by
  // restwell's plugins and by @fastify/rate-limit, runs over them at the end, as Fastify would
  // have run them had restwell been registered first.
  const adoptEarlierRoutes = adoptionBatch(fastify)
  // A near miss of a restwell route config key (`paginaton`) would leave its route as if unset.
  onEveryRoute(fastify, refuseConfigTypos)
  // Routes in encapsulated plugins that loaded earlier are out of reach: never a silent partial.
  const outOfReach = routesOutOfReach(fastify)
  if (outOfReach.length > 0) throw new RoutesOutOfReachError('restwell', outOfReach)
  // So are routes outside the scope restwell is registered in (an encapsulated plugin), added
  // before or after it: every route of the app is planned by a restwell, or `ready()` fails.
  checkEveryRoute(fastify, refuseUnplanned)

  // The conventions hand their steps to the pipeline, which runs them in its order.
  const pipeline = installPipeline(fastify)
  const makeRequestPlan = planRequest(fastify, pipeline)
  const context = umbrellaContext(pipeline, undeclaredContributions(options))
  await installAll(fastify, INSTALLS, options, context)

  // Every convention that hands over route steps is installed: each route's plan is made.
  onEveryRoute(fastify, function restwellPlan(this: FastifyInstance, route) {
    planRoute(pipeline, this, route)
    ;(route as Planned)[PLANNED] = true
    // What waited for the plan (method override's twins of the route) is added now.
    runWhenPlanned(route)
  })
  planNotFound(fastify, pipeline)
  // With @fastify/swagger registered, describe what restwell adds to every route: after every
  // convention that changes a route's schema (patch, pagination, soft delete).
  await installOpenapi(fastify, openapiPlan(options, pipeline))
  await installAll(fastify, AFTER_PLAN, options, context)

  // Every convention that hands over request steps is installed: the root hook's plan is made.
  makeRequestPlan()
  pipeline.sealed = true
  adoptEarlierRoutes()
}

/**
 * What the umbrella's conventions may ask of it: what every convention contributes, with the
 * defaults' place and spelling for a name they hold (`X-Request-Id`, `Allow`).
 */
function umbrellaContext(
  pipeline: Pipeline,
  undeclared: Pick<Contributions, 'requestHeaders' | 'responseHeaders'>,
): SetupContext {
  const context: SetupContext = {
    pipeline: true,
    umbrella: 'restwell',
    contributions: () => {
      const installed = installedConventions(pipeline)
      const declared = mergeContributions(installed)
      return {
        queryParameters: declared.queryParameters,
        requestHeaders: [...undeclared.requestHeaders, ...declared.requestHeaders],
        responseHeaders: withoutCaseTwins(
          placeDeclared(undeclared.responseHeaders, installed),
          declared.responseHeaders,
        ),
      }
    },
    routeResponseHeaders: (instance, route) =>
      routeResponseHeaders(pipeline, context.contributions().responseHeaders, instance, route),
  }
  return context
}

/** What the OpenAPI descriptions need to know of the umbrella's options and conventions. */
function openapiPlan(options: RestwellOptions, pipeline: Pipeline): OpenapiPlan {
  const authOptions =
    options.auth === undefined || options.auth === false ? undefined : options.auth
  return {
    errors: options.errors === false ? false : (options.errors?.format ?? 'structured'),
    auth: authOptions !== undefined,
    authByDefault: authOptions?.defaultProtected ?? true,
    hideRoutes: authOptions?.hideRoutes ?? authOptions?.defaultProtected ?? true,
    negotiation: options.negotiation !== false,
    versioning: options.versioning !== false,
    representations: representationsOf(options.negotiation),
    autoOptions: options.methods !== false && (options.methods?.autoOptions ?? true),
    ...(options.openapi?.transform === undefined ? {} : { transform: options.openapi.transform }),
    conventions: (instance, route) =>
      installedConventions(pipeline).flatMap(
        (installed) => routeDescriptionOf(installed, instance, route) ?? [],
      ),
  }
}

/** Set on each route restwell planned (`Symbol.for`: by the ESM or the CJS build). */
const PLANNED = Symbol.for('restwell.planned')
type Planned = { [PLANNED]?: true }

/** Fails `ready()` on the routes of the app no restwell planned, named with the fix. */
function refuseUnplanned(routes: readonly RouteEntry[]): void {
  const unplanned = routes.filter((route) => (route as Planned)[PLANNED] !== true)
  if (unplanned.length > 0) throw new RoutesOutOfReachError('restwell', unplanned, 'outside')
}

/** Registers every restwell plugin with the spec's defaults; `{ <plugin>: false }` turns one off. */
export const restwell: FastifyPluginAsync<RestwellOptions> = fp(plugin, {
  fastify: '5.x',
  name: 'restwell',
})

/**
 * A route whose `config.auth` asks for authentication (`true` or a requirement: what only
 * `@restwell/auth` checks) while restwell was given no `auth` (it is off until given): nothing
 * would check it, so the route would be public. An app that means to serve every route without
 * authentication says so with `auth: false`.
 */
function refuseUnguarded(route: RouteEntry): void {
  if (!asksForAuthentication(route)) return
  throw new OptionsError(
    'restwell',
    'auth',
    `is not given, and route ${routeName(route)} sets config.auth, which nothing would check, so the route would be public. Give restwell \`auth: { verify }\` (see @restwell/auth), or drop config.auth (a route that checks credentials itself tells cache-control with \`config.cache: { authenticates: true }\`); \`auth: false\` serves every route without authentication, on purpose`,
  )
}

/**
 * A route whose `config.prefer` or `config.digest` sets what only that convention reads while
 * restwell was given no such option (both are off until given): the setting would be ignored.
 */
function refuseUnread(key: 'prefer' | 'digest'): (route: RouteEntry) => void {
  return function refuseUnreadConfig(route) {
    const config = route.config as Record<string, unknown> | undefined
    if (config?.[key] === undefined || config[key] === false) return
    throw new OptionsError(
      'restwell',
      key,
      `is not given, and route ${routeName(route)} sets config.${key}, which nothing would read. Give restwell \`${key}: {}\` (see @restwell/${key}), or drop config.${key}`,
    )
  }
}
