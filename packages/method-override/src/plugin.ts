/** The `@restwell/method-override` plugin: a POST turned into another method before routing. */
import { registerOnce } from '@restwell/core'
import { type HttpError, validateOptions } from '@restwell/errors'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
// The shared before-routing mechanism (package @restwell/reroute).
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

const plugin: FastifyPluginAsync<MethodOverrideOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/method-override', 'methodOverride')
  refuseHeadTarget(rawOptions)
  const { methods, header, query } = resolveMethodOverrideOptions(
    validateOptions('@restwell/method-override', MethodOverrideOptionsSchema, rawOptions),
  )
  const headerField = `headers/${header}`
  const queryField = `querystring/${query}`

  function rewrite(target: RerouteTarget): HttpError | undefined {
    // Only POST carries an override; any other request pays this one comparison.
    if (target.method !== 'POST') return undefined
    const sources: OverrideSource[] = []
    if (header !== false) {
      const value = target.request.headers[header]
      if (value !== undefined) {
        // Node joins a repeated header into one string; String() also joins an array (`a,b`).
        sources.push({ field: headerField, value: String(value) })
      }
    }
    let path = target.url
    let rest: string | undefined
    if (query !== false) {
      const parts = splitUrl(target.url)
      // Parse the query only when the name (or an escape that could spell it) is there.
      if (parts.query !== undefined && (parts.query.includes(query) || parts.query.includes('%'))) {
        const values = queryValues(parts.query, query)
        if (values.length > 0) {
          for (const value of values) sources.push({ field: queryField, value })
          path = parts.path
          rest = withoutQueryParam(parts.query, query)
        }
      }
    }
    if (sources.length === 0) return undefined
    const method = overrideMethod(sources, methods)
    if (method instanceof Error) return method
    target.method = method
    if (rest !== undefined) target.url = joinUrl(path, rest)
    return undefined
  }

  addRewriter(fastify, { name: '@restwell/method-override', order: METHOD_OVERRIDE_ORDER, rewrite })
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
