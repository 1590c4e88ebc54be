/**
 * What a POST's override names (`X-HTTP-Method-Override`, `?_method=`): read once per request,
 * by routing (which reaches the twin of the route for that method) and then by the rewriter
 * (which sets the method, and drops `_method` from the URL).
 */
import type { IncomingMessage } from 'node:http'
import { keyedConstraintStore } from '@restwell/core/internal'
import type { HttpError } from '@restwell/errors'
import {
  joinUrl,
  queryValues,
  type RerouteTarget,
  type Rewriter,
  splitUrl,
  withoutQueryParam,
} from '@restwell/reroute'
import type { FastifyInstance } from 'fastify'
import type { ResolvedMethodOverrideOptions } from './options.js'
import { type OverrideSource, overrideMethod } from './override.js'

/** Where method override runs among the rewriters: before versioning (20). */
export const METHOD_OVERRIDE_ORDER = 10

/** The routing constraint a twin is reached under: the method a POST's override names. */
export const OVERRIDE_CONSTRAINT = 'restwellMethodOverride'

/** The options, with where each carrier is named in an error's details. */
export interface OverrideSettings extends ResolvedMethodOverrideOptions {
  readonly headerField: string
  readonly queryField: string
}

/** What a POST's override names: the method (or the 400), and the URL without `_method`. */
interface Override {
  readonly method: string | HttpError
  /** The URL less the query parameter, when the query carried the override. */
  readonly url: string | undefined
}
/** The override read from a raw request, kept for the rewriter (`null`: none carried). */
const READ: unique symbol = Symbol.for('restwell.methodOverride.read') as typeof READ
type Marked = IncomingMessage & { [READ]?: Override | null }

/** The settings of `options`. */
export function overrideSettings(options: ResolvedMethodOverrideOptions): OverrideSettings {
  return {
    ...options,
    headerField: `headers/${options.header}`,
    queryField: `querystring/${options.query}`,
  }
}

/** The override a POST carries, read once per request (routing, then the rewriter). */
function readOverride(settings: OverrideSettings, raw: Marked): Override | null {
  const known = raw[READ]
  if (known !== undefined) return known
  const { header, query } = settings
  const sources: OverrideSource[] = []
  if (header !== false) {
    const value = raw.headers[header]
    // Node joins a repeated header into one string; String() also joins an array (`a,b`).
    if (value !== undefined) sources.push({ field: settings.headerField, value: String(value) })
  }
  let rest: string | undefined
  if (query !== false) {
    const parts = splitUrl(raw.url as string)
    // Parse the query only when the name (or an escape that could spell it) is there.
    if (parts.query !== undefined && (parts.query.includes(query) || parts.query.includes('%'))) {
      const values = queryValues(parts.query, query)
      if (values.length > 0) {
        for (const value of values) sources.push({ field: settings.queryField, value })
        rest = joinUrl(parts.path, withoutQueryParam(parts.query, query))
      }
    }
  }
  const found =
    sources.length === 0 ? null : { method: overrideMethod(sources, settings.methods), url: rest }
  raw[READ] = found
  return found
}

/**
 * The router reaches a twin when a POST names its method; with a method the path has no twin
 * for, nothing (not the path's own POST route): the not-found path answers for it.
 */
export function addOverrideConstraint(fastify: FastifyInstance, settings: OverrideSettings): void {
  fastify.addConstraintStrategy({
    name: OVERRIDE_CONSTRAINT,
    mustMatchWhenDerived: true,
    // Routing asks with the method derived below.
    storage: () => keyedConstraintStore(() => null),
    deriveConstraint(req: IncomingMessage): string {
      // Only POST carries an override; any other request pays this one comparison.
      if (req.method !== 'POST') return undefined as unknown as string
      const method = readOverride(settings, req)?.method
      return (typeof method === 'string' && method !== 'POST' ? method : undefined) as string
    },
  })
}

/**
 * The rewriter: a POST that reached the twin of the route for the method it names (or, when the
 * path has none, the not-found path, which answers for that method) becomes that method, less
 * `_method`; a bad override is its 400.
 */
export function overrideRewriter(settings: OverrideSettings): Rewriter {
  return function rewrite(target: RerouteTarget): HttpError | undefined {
    if (target.method !== 'POST') return undefined
    const request = target.request
    const found = readOverride(settings, request.raw)
    if (found === null) return undefined
    if (typeof found.method !== 'string') return found.method
    target.method = found.method
    if (found.url !== undefined) {
      target.url = found.url
      delete (request.query as Record<string, unknown>)[settings.query as string]
    }
    return undefined
  }
}
