/** The pagination convention: `?page=&limit=&sort=` and filters, cursors, `Link`, page envelopes. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import {
  type PaginationOptions,
  type ResolvedPaginationOptions,
  PaginationOptionsSchema,
  type RoutePaginationConfig,
  RouteConfigSchema,
  resolvePaginationOptions,
} from './options.js'
import { OWN_PARAMS } from './query.js'
import { paginationRoute } from './route.js'
import { setupPagination } from './setup.js'
import { PLUGIN } from './steps.js'

/**
 * Pagination of the routes that ask for it (`config.pagination`: `true` or an object):
 * `request.pagination` read from the query (400 naming the parameter), `reply.paginate()`
 * sending one page with its RFC 8288 `Link` and total; a plain array is refused.
 */
export const pagination = defineConvention({
  name: 'pagination',
  plugin: PLUGIN,
  phases: ['beforeBody', 'serialize'],
  options: (raw: PaginationOptions) =>
    resolvePaginationOptions(validateOptions(PLUGIN, PaginationOptionsSchema, raw)),
  routeConfig: (raw: unknown, where: string): RoutePaginationConfig =>
    raw === true ? {} : validateOptions(where, RouteConfigSchema, raw),
  setup: setupPagination,
  route: paginationRoute,
  contributes: (options) => ({
    queryParameters: [...OWN_PARAMS],
    responseHeaders: sentHeaders(options),
  }),
  // Only the routes that ask for pagination send a page's headers.
  routeResponseHeaders: ({ config }, options) => (config === undefined ? [] : sentHeaders(options)),
  // Alone, the array is refused before the route's own preSerialization hooks turn it to text.
  alone: { serialize: 'first' },
})

/** The headers of a page. */
function sentHeaders(options: ResolvedPaginationOptions): string[] {
  return options.totalHeader === false ? ['Link'] : ['Link', options.totalHeader]
}
