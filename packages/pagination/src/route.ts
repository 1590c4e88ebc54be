/** A paginated route, decided once when it is added: its plan, its schema, its steps. */
import type { RouteContext, RouteEntry } from '@restwell/core'
import { schemaAccess } from '@restwell/core/internal'
import { filterSpecOf, type FilterSpec } from './filters.js'
import type { ResolvedPaginationOptions, RoutePaginationConfig } from './options.js'
import { OWN_PARAMS, type RoutePlan } from './query.js'
import { augmentRouteSchema, declaredProperties, maxPageOf } from './schema.js'
import { parseSort } from './sort.js'
import { onlyPages, PLUGIN, readPage } from './steps.js'

/** Reads `config.pagination` of a route against the plugin's options; a bad one names the route. */
export function planRoute(
  route: RouteEntry,
  config: RoutePaginationConfig,
  options: ResolvedPaginationOptions,
  name: string,
): RoutePlan {
  const where = `${PLUGIN}: route ${name}`
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
  const declared = declaredProperties(route.schema?.querystring)
  // Derived from the schema: every declared property but pagination's and passthrough ones.
  const names =
    config.filterable ??
    Object.keys(declared).filter(
      (field) => !OWN_PARAMS.includes(field) && !options.passthrough.has(field),
    )
  const filters = new Map<string, FilterSpec>()
  for (const field of names) {
    if (OWN_PARAMS.includes(field)) throw new TypeError(`${where}: "${field}" cannot be a filter`)
    filters.set(field, filterSpecOf(declared[field]))
  }
  return {
    route: route.url,
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

/**
 * The steps of a route with `config.pagination` (none without): its query read before the body,
 * a plain array refused before serialization. Its schema gains the pagination parameters and
 * the page headers, described for OpenAPI.
 */
export function paginationRoute(
  { route, instance, config, name }: RouteContext<RoutePaginationConfig>,
  options: ResolvedPaginationOptions,
) {
  if (config === undefined) return undefined
  const plan = planRoute(route, config, options, name)
  // Only into the parts Fastify's own compilers read: a Zod or other type provider's
  // compilers would be handed this JSON Schema and fail on every request.
  route.schema = augmentRouteSchema(
    route.schema,
    {
      cursor: plan.cursor,
      defaultLimit: plan.defaultLimit,
      maxLimit: plan.maxLimit,
      sortable: [...plan.sortable],
      defaultSort: config.defaultSort,
      filterable: config.filterable ?? [],
      totalHeader: options.totalHeader,
    },
    schemaAccess(instance, route),
  )
  const paged = {
    plan,
    defaultSort: config.defaultSort,
    totalHeader: options.totalHeader,
    cursorTtl: options.cursorTtl,
  }
  return { beforeBody: readPage(paged), serialize: onlyPages }
}
