/** The `@restwell/pagination` plugin: `request.pagination`, `reply.paginate()`, per route. */
import { validateOptions } from '@restwell/errors'
import {
  appendLink,
  asList,
  declareState,
  onEveryRoute,
  PAGE,
  publicUrl,
  type SerializeStep,
  schemaAccess,
  useRouteStep,
  registerOnce,
  routeName,
} from '@restwell/core'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onRouteHookHandler,
  preValidationHookHandler,
  RouteOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import { cursorExpiry } from './cursor.js'
import { filterSpecOf, type FilterSpec } from './filters.js'
import { formatLinkHeader } from './links.js'
import {
  type PaginationOptions,
  PaginationOptionsSchema,
  type ResolvedPaginationOptions,
  type RoutePaginationConfig,
  RouteConfigSchema,
  resolvePaginationOptions,
} from './options.js'
import { buildPage, type CursorSigning } from './page.js'
import { OWN_PARAMS, readPagination, type RoutePlan } from './query.js'
import { augmentRouteSchema, declaredProperties, maxPageOf } from './schema.js'
import { parseSort } from './sort.js'
import type { PaginateOptions } from './types.js'

const PLUGIN = '@restwell/pagination'
/** Where a paginated request keeps its route's plan (set by the route's own hook). */
const PLAN: unique symbol = Symbol('restwell.pagination.plan')

type Planned = FastifyRequest & { [PLAN]?: RoutePlan }

/** `GET /books`: the route a request reached, as a developer wrote it. */
const routeOf = (request: FastifyRequest): string =>
  `${request.method} ${request.routeOptions.url ?? request.url}`

/**
 * A paginated route whose handler sent a plain array: no page, no `Link`, no total. Refused,
 * not paginated here: the array may be the whole collection or a page the handler already cut
 * with `request.pagination` (cutting that again would serve page 2 empty).
 */
const notAPage = (request: FastifyRequest): Error =>
  new Error(
    `${PLUGIN}: route ${routeOf(request)} has config.pagination, but its handler sent a plain array (no Link, no total): send the page with reply.paginate(items, { total }); for a whole collection held in memory, cut the page first: const { items, ...page } = applyPagination(all, request.pagination); return reply.paginate(items, page)`,
  )

/** Fails a paginated route's reply whose payload is a plain array (see `notAPage`). */
const onlyPages: SerializeStep = function onlyPages(request, _reply, payload) {
  if (Array.isArray(payload)) throw notAPage(request)
  return undefined
}

/** Reads `config.pagination` of a route and decides everything once, at registration. */
function planRoute(
  routeOptions: RouteOptions,
  config: RoutePaginationConfig,
  options: ResolvedPaginationOptions,
): RoutePlan {
  const where = `${PLUGIN}: route ${routeName(routeOptions)}`
  const maxLimit = config.maxLimit ?? options.maxLimit
  // An implicit default never exceeds the route's maximum; an explicit one must not.
  const defaultLimit = config.defaultLimit ?? Math.min(options.defaultLimit, maxLimit)
  if (defaultLimit > maxLimit) {
    throw new TypeError(`${where}: defaultLimit ${defaultLimit} is above maxLimit ${maxLimit}`)
  }
  const cursor = config.cursor ?? false
  if (cursor && options.cursorSecrets.length === 0) {
    throw new TypeError(`${where}: cursor pagination needs the plugin option "cursorSecret"`)
  }
  const sortable = new Set(config.sortable ?? [])
  let defaultSort: RoutePlan['defaultSort'] = []
  if (config.defaultSort !== undefined) {
    const parsed = parseSort(config.defaultSort, sortable)
    if ('problem' in parsed) throw new TypeError(`${where}: defaultSort ${parsed.problem}`)
    defaultSort = parsed.sort
  }
  const declared = declaredProperties(routeOptions.schema?.querystring)
  // Derived from the schema: every declared property but pagination's and passthrough ones.
  const names =
    config.filterable ??
    Object.keys(declared).filter(
      (name) => !OWN_PARAMS.includes(name) && !options.passthrough.has(name),
    )
  const filters = new Map<string, FilterSpec>()
  for (const name of names) {
    if (OWN_PARAMS.includes(name)) throw new TypeError(`${where}: "${name}" cannot be a filter`)
    filters.set(name, filterSpecOf(declared[name]))
  }
  return {
    route: routeOptions.url,
    defaultLimit,
    maxLimit,
    maxPage: maxPageOf(maxLimit),
    clamp: config.clamp ?? options.clamp,
    cursor,
    sortable,
    defaultSort,
    tiebreaker: options.cursorTiebreaker,
    filters,
    allowed: new Set([...options.passthrough, ...Object.keys(declared)]),
    unknownFilters: config.unknownFilters ?? options.unknownFilters,
    cursorSecrets: options.cursorSecrets,
  }
}

const plugin: FastifyPluginAsync<PaginationOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/pagination', 'pagination')
  const options = resolvePaginationOptions(
    validateOptions(PLUGIN, PaginationOptionsSchema, rawOptions),
  )
  const signer = options.cursorSecrets[0]

  fastify.decorateRequest('pagination', null)
  declareState(fastify, 'request', PLAN)
  declareState(fastify, 'reply', PAGE)

  fastify.decorateReply(
    'paginate',
    function paginate(
      this: FastifyReply,
      items: readonly unknown[],
      given: PaginateOptions = {},
    ): FastifyReply {
      const request = this.request as Planned
      const pagination = request.pagination
      const plan = request[PLAN]
      if (pagination === null || plan === undefined) {
        throw new Error(
          `${PLUGIN}: reply.paginate() needs a route with config.pagination, and route ${routeOf(request)} has none: add config: { pagination: true } (or its settings) to it`,
        )
      }
      let signing: CursorSigning | undefined
      if (plan.cursor) {
        signing = {
          route: plan.route,
          // A cursor route exists only when a secret is configured (checked in planRoute).
          secret: signer as string,
          // Rounded to a step of the TTL: an unchanged page keeps its bytes and its ETag.
          expiresAt: cursorExpiry(Math.floor(Date.now() / 1000), options.cursorTtl),
        }
      }
      const page = buildPage(publicUrl(request), pagination, items, given, signing)
      // Added to a Link the route set earlier (a hook, the handler): RFC 8288 §3, many links.
      appendLink(this, formatLinkHeader(page.links))
      if (options.totalHeader !== false && page.meta.total !== undefined) {
        this.header(options.totalHeader, page.meta.total)
      }
      ;(this as FastifyReply & { [PAGE]?: unknown })[PAGE] = page
      return this.send({ data: page.items, meta: page.meta, links: page.links })
    },
  )

  const onRoute: onRouteHookHandler = function (this: FastifyInstance, routeOptions) {
    const raw = routeOptions.config?.pagination
    if (raw === undefined || raw === false) return
    const config =
      raw === true
        ? {}
        : validateOptions(
            `${PLUGIN} (config.pagination of ${routeName(routeOptions)})`,
            RouteConfigSchema,
            raw,
          )
    const plan = planRoute(routeOptions, config, options)
    // Only into the parts Fastify's own compilers read: a Zod or other type provider's
    // compilers would be handed this JSON Schema and fail on every request.
    routeOptions.schema = augmentRouteSchema(
      routeOptions.schema,
      {
        cursor: plan.cursor,
        defaultLimit: plan.defaultLimit,
        maxLimit: plan.maxLimit,
        sortable: [...plan.sortable],
        defaultSort: config.defaultSort,
        filterable: config.filterable ?? [],
        totalHeader: options.totalHeader,
      },
      schemaAccess(this, routeOptions),
    )
    const defaultSort = config.defaultSort
    const readPage: preValidationHookHandler = (request, _reply, done) => {
      ;(request as Planned)[PLAN] = plan
      const query = request.query as Record<string, unknown>
      request.pagination = readPagination(query, plan, Math.floor(Date.now() / 1000))
      // The default sort in `request.query` too, as page and limit: set here, not by the
      // `default` of the schema's `sort` (Fastify's validator applies it, another does not).
      if (defaultSort !== undefined && query.sort === undefined) query.sort = defaultSort
      done()
    }
    routeOptions.preValidation = [readPage, ...asList(routeOptions.preValidation)]
    // Before the route's other hooks: an array is refused before a serializer turns it to text.
    useRouteStep(this, routeOptions, 'preSerialization', 'pagination', onlyPages, {
      where: 'first',
    })
  }
  onEveryRoute(fastify, onRoute)
}

/** The `@restwell/pagination` plugin. */
export const restwellPagination: FastifyPluginAsync<PaginationOptions> = fp(plugin, {
  fastify: '5.x',
  name: PLUGIN,
})
