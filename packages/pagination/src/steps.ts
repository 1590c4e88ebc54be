/**
 * The steps of pagination on one route: the query read before the body, a plain array refused
 * before serialization; and `reply.paginate()`, which sends one page of it.
 */
import { appendLink, type RequestStep, type SendStep } from '@restwell/core'
import { PAGE, publicUrl } from '@restwell/core/internal'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { cursorExpiry } from './cursor.js'
import { formatLinkHeader } from './links.js'
import { buildPage, type CursorSigning } from './page.js'
import { readPagination, type RoutePlan } from './query.js'
import type { PaginateOptions } from './types.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/pagination'

/** What a paginated route decided once: how its query is read and how its pages are sent. */
export interface PagedRoute {
  /** How `?page=`, `?limit=`, `?sort=`, the filters and `?cursor=` are read. */
  readonly plan: RoutePlan
  /** `config.pagination.defaultSort` as written, set into `request.query` without `?sort=`. */
  readonly defaultSort: string | undefined
  /** The header carrying the total, or `false`. */
  readonly totalHeader: string | false
  /** Cursor lifetime in seconds; 0 for no expiry. */
  readonly cursorTtl: number
}

/** Where a paginated request keeps its route's settings (set by `readPage`). */
export const ROUTE: unique symbol = Symbol('restwell.pagination.route')

type Paged = FastifyRequest & { [ROUTE]?: PagedRoute }

/** `GET /books`: the route a request reached, as a developer wrote it. */
const routeOf = (request: FastifyRequest): string =>
  `${request.method} ${request.routeOptions.url ?? request.url}`

/** Reads `request.pagination` from the query (a 400 naming the parameter) before it is validated. */
export function readPage(route: PagedRoute): RequestStep {
  return function readPage(request) {
    ;(request as Paged)[ROUTE] = route
    const query = request.query as Record<string, unknown>
    request.pagination = readPagination(query, route.plan, Math.floor(Date.now() / 1000))
    // The default sort in `request.query` too, as page and limit: set here, not by the
    // `default` of the schema's `sort` (Fastify's validator applies it, another does not).
    if (route.defaultSort !== undefined && query.sort === undefined) query.sort = route.defaultSort
    return undefined
  }
}

/**
 * Fails a paginated route's reply whose payload is a plain array: no page, no `Link`, no total.
 * Refused, not paginated here: the array may be the whole collection or a page the handler
 * already cut with `request.pagination` (cutting that again would serve page 2 empty).
 */
export const onlyPages: SendStep = function onlyPages(request, _reply, payload) {
  if (!Array.isArray(payload)) return undefined
  return new Error(
    `${PLUGIN}: route ${routeOf(request)} has config.pagination, but its handler sent a plain array (no Link, no total): send the page with reply.paginate(items, { total }); for a whole collection held in memory, cut the page first: const { items, ...page } = applyPagination(all, request.pagination); return reply.paginate(items, page)`,
  )
}

/**
 * Where a page's links point. A QUERY answer names its GET-able equivalent in `Location` (RFC
 * 10008 §2): links under that path can be followed with GET. Without one they are the QUERY's
 * own URL, to be sent as QUERY with the same content; a GET there would lose the query.
 */
function linkBase(request: FastifyRequest, reply: FastifyReply): string {
  if (request.method === 'QUERY') {
    const location = reply.getHeader('location')
    if (typeof location === 'string' && location.startsWith('/') && !location.startsWith('//')) {
      return location
    }
  }
  return publicUrl(request)
}

/**
 * `reply.paginate(items, { total?, hasMore? })`: appends the page's links to `Link`, sets the
 * total header, leaves the page on `reply[PAGE]` and sends `{ data, meta, links }`.
 */
export function paginate(
  this: FastifyReply,
  items: readonly unknown[],
  given: PaginateOptions = {},
): FastifyReply {
  const request = this.request as Paged
  const pagination = request.pagination
  const route = request[ROUTE]
  if (pagination === null || route === undefined) {
    throw new Error(
      `${PLUGIN}: reply.paginate() needs a route with config.pagination, and route ${routeOf(request)} has none: add config: { pagination: true } (or its settings) to it`,
    )
  }
  let signing: CursorSigning | undefined
  if (route.plan.cursor) {
    signing = {
      route: route.plan.route,
      // A cursor route exists only when a secret is configured (checked in planRoute).
      secret: route.plan.cursorSecrets[0] as string,
      // Rounded to a step of the TTL: an unchanged page keeps its bytes and its ETag.
      expiresAt: cursorExpiry(Math.floor(Date.now() / 1000), route.cursorTtl),
    }
  }
  const page = buildPage(linkBase(request, this), pagination, items, given, signing)
  // Added to a Link the route set earlier (a hook, the handler): RFC 8288 §3, many links.
  appendLink(this, formatLinkHeader(page.links))
  if (route.totalHeader !== false && page.meta.total !== undefined) {
    this.header(route.totalHeader, page.meta.total)
  }
  ;(this as FastifyReply & { [PAGE]?: unknown })[PAGE] = page
  return this.send({ data: page.items, meta: page.meta, links: page.links })
}
