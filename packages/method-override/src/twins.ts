/**
 * Each route for an overridable method gets a POST twin on its URL, reached only under the
 * override constraint. A twin is made from the route's options as Fastify first gave them, as
 * Fastify makes a GET's HEAD route, so that every plugin's `onRoute` hook sets it up as the
 * route it stands for; it is added once every convention has seen its route.
 */
import type { RouteEntry } from '@restwell/core'
import {
  initialOptions,
  OVERRIDE_TWIN,
  overrideTwinOf,
  servedMethods,
  whenPlanned,
} from '@restwell/core/internal'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { OVERRIDE_CONSTRAINT } from './carriers.js'
import { PLUGIN } from './options.js'

/** `@fastify/swagger` leaves a twin out of the document: it is the route it stands for. */
const hideTwin = ({ schema, url }: { schema?: unknown; url: string }) => ({
  schema: { ...(schema as object | undefined), hide: true },
  url,
})

/** Adds the POST twins of `route` for each overridable method it serves, once it is planned. */
export function addOverrideTwins(
  methods: ReadonlySet<string>,
  instance: FastifyInstance,
  route: RouteEntry,
): void {
  if (overrideTwinOf(route) !== undefined) return
  const targets = servedMethods(route).filter((m) => m !== 'POST' && methods.has(m))
  if (targets.length === 0) return
  const initial = initialOptions(route)
  /* c8 ignore next 6 -- every route is snapshotted: `snapshotRoutes` runs when an instance is
     created after restwell was imported, and earlier instances with routes are refused. */
  if (initial === undefined) {
    throw new Error(
      `${PLUGIN}: route ${targets.join(',')} ${route.url} was not seen as it was added; import @restwell/method-override (or restwell) before creating the Fastify instance`,
    )
  }
  whenPlanned(instance, route, () => {
    for (const method of targets) instance.route(twinOptions(initial, route, method))
  })
}

/**
 * The POST twin of `of` for `method`: its options as first given, on the same URL (a prefixed
 * plugin's root route at both `/prefix` and `/prefix/`, as `/` gives it), reached under the
 * override constraint, marked in its config, with no HEAD route and no place in the document.
 */
function twinOptions(initial: RouteEntry, of: RouteEntry, method: string): RouteOptions {
  const { url: _url, path: _path, routePath, prefix, ...rest } = initial
  return {
    ...rest,
    method: 'POST',
    url: routePath === '' && prefix !== '' ? '/' : routePath,
    exposeHeadRoute: false,
    constraints: { ...initial.constraints, [OVERRIDE_CONSTRAINT]: method },
    config: {
      ...(initial.config as object | undefined),
      [OVERRIDE_TWIN]: { method, of },
      swaggerTransform: hideTwin,
    },
  } as unknown as RouteOptions
}
