/** The `@restwell/method-override` plugin: a POST turned into another method before routing. */
import type { IncomingMessage } from 'node:http'
import {
  initialOptions,
  keyedConstraintStore,
  OVERRIDE_TWIN,
  onEveryRoute,
  overrideTwinOf,
  type RouteEntry,
  registerOnce,
  snapshotRoutes,
  whenPlanned,
} from '@restwell/core'
import { type HttpError, validateOptions } from '@restwell/errors'
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
// The shared hook that sets the method a twin was reached for (package @restwell/reroute).
import { addRewriter, joinUrl, queryValues, splitUrl, withoutQueryParam } from '@restwell/reroute'
import type { RerouteTarget } from '@restwell/reroute'
import {
  type MethodOverrideOptions,
  MethodOverrideOptionsSchema,
  refuseHeadTarget,
  resolveMethodOverrideOptions,
} from './options.js'
import { type OverrideSource, overrideMethod } from './override.js'

/** Where method override runs among the rewriters: before versioning (20). */
export const METHOD_OVERRIDE_ORDER = 10

/** The routing constraint a twin is reached under: the method a POST's override names. */
export const OVERRIDE_CONSTRAINT = 'restwellMethodOverride'

/** What a POST's override names: the method (or the 400), and the URL without `_method`. */
interface Override {
  readonly method: string | HttpError
  /** The URL less the query parameter, when the query carried the override. */
  readonly url: string | undefined
}
/** The override read from a raw request, kept for the rewriter (`null`: none carried). */
const READ: unique symbol = Symbol.for('restwell.methodOverride.read') as typeof READ
type Marked = IncomingMessage & { [READ]?: Override | null }

/** `@fastify/swagger` leaves a twin out of the document: it is the route it stands for. */
const hideTwin = ({ schema, url }: { schema?: unknown; url: string }) => ({
  schema: { ...(schema as object | undefined), hide: true },
  url,
})

const plugin: FastifyPluginAsync<MethodOverrideOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/method-override', 'methodOverride')
  refuseHeadTarget(rawOptions)
  const { methods, header, query } = resolveMethodOverrideOptions(
    validateOptions('@restwell/method-override', MethodOverrideOptionsSchema, rawOptions),
  )
  const headerField = `headers/${header}`
  const queryField = `querystring/${query}`

  /** The override a POST carries, read once per request (routing, then the rewriter). */
  function read(raw: Marked): Override | null {
    const known = raw[READ]
    if (known !== undefined) return known
    const sources: OverrideSource[] = []
    if (header !== false) {
      const value = raw.headers[header]
      if (value !== undefined) {
        // Node joins a repeated header into one string; String() also joins an array (`a,b`).
        sources.push({ field: headerField, value: String(value) })
      }
    }
    const url = raw.url as string
    let rest: string | undefined
    if (query !== false) {
      const parts = splitUrl(url)
      // Parse the query only when the name (or an escape that could spell it) is there.
      if (parts.query !== undefined && (parts.query.includes(query) || parts.query.includes('%'))) {
        const values = queryValues(parts.query, query)
        if (values.length > 0) {
          for (const value of values) sources.push({ field: queryField, value })
          rest = joinUrl(parts.path, withoutQueryParam(parts.query, query))
        }
      }
    }
    const found =
      sources.length === 0 ? null : { method: overrideMethod(sources, methods), url: rest }
    raw[READ] = found
    return found
  }

  // The router reaches a twin when a POST names its method; with a method the path has no
  // twin for, nothing (not the path's own POST route): the not-found path answers for it.
  fastify.addConstraintStrategy({
    name: OVERRIDE_CONSTRAINT,
    mustMatchWhenDerived: true,
    // Routing asks with the method derived below.
    storage: () => keyedConstraintStore(() => null),
    deriveConstraint(req: IncomingMessage): string {
      // Only POST carries an override; any other request pays this one comparison.
      if (req.method !== 'POST') return undefined as unknown as string
      const found = read(req)
      const method = found?.method
      return (typeof method === 'string' && method !== 'POST' ? method : undefined) as string
    },
  })

  function rewrite(target: RerouteTarget): HttpError | undefined {
    if (target.method !== 'POST') return undefined
    const request = target.request
    const found = read(request.raw)
    if (found === null) return undefined
    if (typeof found.method !== 'string') return found.method
    target.method = found.method
    if (found.url !== undefined) {
      target.url = found.url
      delete (request.query as Record<string, unknown>)[query as string]
    }
    // Routed once: the request reached the twin of the route for that method, or, when the
    // path has none, the not-found path, which answers for that method (405 with Allow).
    return undefined
  }

  addRewriter(fastify, { name: '@restwell/method-override', order: METHOD_OVERRIDE_ORDER, rewrite })

  // A twin is made from the route's options as Fastify first gave them, as Fastify makes a GET's
  // HEAD route: every plugin's onRoute hook then sets it up as the route it stands for.
  snapshotRoutes(fastify)
  onEveryRoute(fastify, function methodOverrideTwins(this: FastifyInstance, route) {
    if (overrideTwinOf(route) !== undefined) return
    const targets = [route.method].flat().filter((m) => m !== 'POST' && methods.has(m))
    if (targets.length === 0) return
    const initial = initialOptions(route)
    /* c8 ignore next 6 -- every route is snapshotted: `snapshotRoutes` runs when an instance is
       created after restwell was imported, and earlier instances with routes are refused. */
    if (initial === undefined) {
      throw new Error(
        `@restwell/method-override: route ${targets.join(',')} ${route.url} was not seen as it was added; import @restwell/method-override (or restwell) before creating the Fastify instance`,
      )
    }
    whenPlanned(this, route, () => {
      for (const method of targets) this.route(twinOptions(initial, route, method))
    })
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

/**
 * Turns a POST carrying `X-HTTP-Method-Override: <METHOD>` or `?_method=<METHOD>` into that
 * method before routing, so the target route's schema, hooks and handler run.
 *
 * @param methods Methods a POST may be turned into. [`['PUT', 'PATCH', 'DELETE']`]
 * @param header Request header carrying the method, or `false`. [`x-http-method-override`]
 * @param query Query parameter carrying the method, or `false`. [`_method`]
 * @example
 * await app.register(restwellMethodOverride, { methods: ['PUT', 'PATCH', 'DELETE'] })
 */
export const restwellMethodOverride: FastifyPluginAsync<MethodOverrideOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/method-override',
})
