/** The umbrella plugin: registers every restwell convention in the right order. */
import {
  DEFAULT_REQUEST_ID_HEADER,
  errors,
  OptionsError,
  RoutesOutOfReachError,
  validateOptions,
} from '@restwell/errors'
import {
  adoptionBatch,
  asksForAuthentication,
  checkEveryRoute,
  onEveryRoute,
  type RouteEntry,
  routesOutOfReach,
  runWhenPlanned,
  snapshotRoutes,
  routeName,
} from '@restwell/core'
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
import {
  type AnyConvention,
  type Contributions,
  type InstalledConvention,
  installConvention,
  installedConventions,
  installPipeline,
  mergeContributions,
  routeDescriptionOf,
  type SetupContext,
} from '@restwell/core'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { installOpenapi, representationsOf } from './openapi.js'
import { type RestwellOptions, RestwellOptionsSchema } from './options.js'
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

  // The plugins below hand their steps to the pipeline, which runs them in its order.
  const pipeline = installPipeline(fastify)
  const makeRequestPlan = planRequest(fastify, pipeline)
  const undeclared = undeclaredContributions(options)
  const context: SetupContext = {
    pipeline: true,
    umbrella: 'restwell',
    contributions: () => {
      const installed = installedConventions(pipeline)
      const declared = mergeContributions(installed)
      return {
        queryParameters: declared.queryParameters,
        requestHeaders: [...undeclared.requestHeaders, ...declared.requestHeaders],
        // A name the defaults hold keeps their place and spelling (`X-Request-Id`, `Allow`).
        responseHeaders: withoutCaseTwins(
          placeDeclared(undeclared.responseHeaders, installed),
          declared.responseHeaders,
        ),
      }
    },
  }

  // 1. errors first: every later plugin's errors, and Fastify's, go out in one form.
  if (options.errors !== false) {
    await installConvention(fastify, errors, options.errors ?? {}, context)
  }

  // 2. CORS: one onRequest hook adds the headers to every answer and answers a preflight
  //    before rate limits and auth see it. It runs before the override and versioning steps, so
  //    what they refuse (a bad override, a conflicting version) and versioning's moved-path 301
  //    carry the headers too.
  if (options.cors !== false) {
    const settings = { ...options.cors, methodOverride: overrideOf(options) }
    await installConvention(fastify, cors, settings, context)
  }

  // 3. method override (routed to a route's POST twin) sets the method, and versioning (routed
  //    to a `/v<N>` route's unprefixed twin) answers what its carriers refuse, before every
  //    other onRequest step but CORS's (limits and auth then see the method the request stands
  //    for) and before methods (which needs it). Twins are added once a route's plan is made
  //    (`runWhenPlanned` below).
  if (options.methodOverride !== false) {
    await installConvention(fastify, reroute, {}, context)
    await installConvention(fastify, methodOverride, options.methodOverride ?? {}, context)
  }
  if (options.versioning !== false) {
    await installConvention(fastify, versioning, options.versioning ?? {}, context)
  }

  // 4. overload: shed load before doing any other work. under-pressure samples the process
  //    in a scope of its own (its hook there sees no request); the pipeline's step asks it.
  if (options.underPressure !== false) {
    await installConvention(fastify, overload, options.underPressure ?? {}, context)
  }

  // 5. rate limits: a root step before auth and before the body is read; a route's own limit
  //    is a step of the route, before its auth guard.
  if (options.rateLimit !== false) {
    await installConvention(fastify, rateLimit, options.rateLimit ?? {}, context)
  }

  // 6. auth: after CORS (a 401 carries CORS headers, a preflight needs no token) and limits,
  //    before methods (an unknown path answers 401, not 404/405, to anonymous clients).
  if (options.auth !== undefined && options.auth !== false) {
    await installConvention(fastify, auth, options.auth, context)
  } else if (options.auth === undefined) {
    onEveryRoute(fastify, refuseUnguarded)
  }
  // Prefer and digest are off until given: a route's setting for one would be ignored.
  const offUntilGiven = (['prefer', 'digest'] as const).filter((key) => options[key] === undefined)
  if (offUntilGiven.length > 0) onEveryRoute(fastify, refuseUnread(offUntilGiven))

  // 7. methods: 405/OPTIONS/501 on the not-found path only.
  if (options.methods !== false) {
    await installConvention(fastify, methods, options.methods ?? {}, context)
  }

  // 8. negotiation: 406/415 before the handler, the representation chosen before conditional
  //    hashes its bytes (so JSON and XML get different ETags). Multipart is opt-in: its
  //    plugin adds global hooks every route would pay for.
  if (options.negotiation !== false) {
    await installConvention(
      fastify,
      negotiation,
      { multipart: false, versionParam: versionQueryParameter(options), ...options.negotiation },
      context,
    )
  }

  // 9. conditional before compress: it hashes the identity bytes and decides 304/412/206;
  //    compression then gives each content-coding its own ETag. Request bodies are decoded
  //    before they are read.
  if (options.conditional !== false) {
    await installConvention(fastify, conditional, options.conditional ?? {}, context)
  }
  if (options.compress !== false) {
    await installConvention(fastify, compress, options.compress ?? {}, context)
  }

  // Cache-Control on every response: its onSend hook reads the final status (after
  // conditional's 304/412 and compression) and never overwrites a policy already set.
  if (options.cacheControl !== false) {
    await installConvention(fastify, cacheControl, options.cacheControl ?? {}, context)
  }

  // 10. patch: its parsers and route setup; preconditions (conditional's preHandler) run first.
  if (options.patch !== false) {
    await installConvention(fastify, patch, options.patch ?? {}, context)
  }

  // 11. collections: pagination and soft delete set up the routes that ask for them.
  if (options.pagination !== false) {
    await installConvention(
      fastify,
      pagination,
      { passthrough: ownedQueryParameters(options), ...options.pagination },
      context,
    )
  }
  if (options.softDelete !== false) {
    await installConvention(fastify, softDelete, options.softDelete ?? {}, context)
  }
  if (options.idempotency !== false) {
    await installConvention(fastify, idempotency, options.idempotency ?? {}, context)
  }
  // Prefer and the digest fields are off unless given (each adds hooks to the routes it shapes).
  if (options.prefer !== undefined && options.prefer !== false) {
    const queryParameters = [
      ...ownedQueryParameters(options),
      ...(options.prefer.queryParameters ?? []),
    ]
    await installConvention(fastify, prefer, { ...options.prefer, queryParameters }, context)
  }
  if (options.digest !== undefined && options.digest !== false) {
    await installConvention(fastify, digest, options.digest, context)
  }

  // Every plugin that hands over send steps is registered: each route's plan is made from them.
  onEveryRoute(fastify, function restwellPlan(this: FastifyInstance, route) {
    planRoute(pipeline, this, route)
    ;(route as Planned)[PLANNED] = true
    // What waited for the plan (method override's twins of the route) is added now.
    runWhenPlanned(route)
  })
  planNotFound(fastify, pipeline)

  // 12. with @fastify/swagger registered, describe what restwell adds to every route: after
  //     every plugin that changes a route's schema (patch, pagination, soft delete), before
  //     jobs adds its status routes (described too).
  const authOptions =
    options.auth === undefined || options.auth === false ? undefined : options.auth
  const conditionalOptions = options.conditional === false ? undefined : options.conditional
  await installOpenapi(fastify, {
    errors: options.errors === false ? false : (options.errors?.format ?? 'structured'),
    auth: authOptions !== undefined,
    authByDefault: authOptions?.defaultProtected ?? true,
    hideRoutes: authOptions?.hideRoutes ?? authOptions?.defaultProtected ?? true,
    negotiation: options.negotiation !== false,
    conditional: options.conditional !== false,
    requirePrecondition: conditionalOptions?.requirePrecondition ?? false,
    underPressure: options.underPressure !== false,
    versioning: options.versioning !== false,
    patch:
      options.patch === false ? false : { everyPatchRoute: options.patch?.everyPatchRoute ?? true },
    softDelete: options.softDelete === false ? false : { gone: options.softDelete?.gone ?? false },
    representations: representationsOf(options.negotiation),
    autoOptions: options.methods !== false && (options.methods?.autoOptions ?? true),
    ...(options.jobs === undefined || options.jobs === false
      ? {}
      : { jobs: options.jobs.basePath ?? '/jobs' }),
    ...(options.openapi?.transform === undefined ? {} : { transform: options.openapi.transform }),
    conventions: (instance, route) =>
      installedConventions(pipeline).flatMap(
        (installed) => routeDescriptionOf(installed, instance, route) ?? [],
      ),
  })

  // 13. naming rules check every route added from here on; jobs adds its status routes.
  if (options.naming !== false) {
    await installConvention(fastify, naming, options.naming ?? {}, context)
  }
  if (options.jobs !== undefined && options.jobs !== false) {
    // Imported here, as batch below: off unless configured, so not loaded otherwise.
    const { jobs } = await import('@restwell/jobs')
    await installConvention(fastify, jobs, options.jobs, context)
  }
  // 14. batch: its operations are injected, so they pass every hook above, the rate limit
  //     included; they may not use this app's method override header or parameter.
  if (options.batch !== undefined && options.batch !== false) {
    const override = overrideOf(options)
    const header = override === false ? false : override.header
    const query = override === false ? false : override.query
    const { batch } = await import('@restwell/batch')
    const forbiddenHeaders = [
      ...(options.batch.forbiddenHeaders ?? []),
      ...(header ? [header] : []),
    ]
    const forbiddenQuery = [...(options.batch.forbiddenQuery ?? []), ...(query ? [query] : [])]
    await installConvention(
      fastify,
      batch,
      { ...options.batch, forbiddenHeaders, forbiddenQuery },
      context,
    )
  }
  // Every plugin that hands over request steps is registered: the root hook's plan is made.
  makeRequestPlan()
  pipeline.sealed = true
  adoptEarlierRoutes()
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
function refuseUnread(keys: readonly ('prefer' | 'digest')[]): (route: RouteEntry) => void {
  return function refuseUnreadConfig(route) {
    const config = route.config as Record<string, unknown> | undefined
    const key = keys.find((name) => config?.[name] !== undefined && config[name] !== false)
    if (key === undefined) return
    throw new OptionsError(
      'restwell',
      key,
      `is not given, and route ${routeName(route)} sets config.${key}, which nothing would read. Give restwell \`${key}: {}\` (see @restwell/${key}), or drop config.${key}`,
    )
  }
}
