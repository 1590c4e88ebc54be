/** The `Allow` header: which methods a path supports, asked of Fastify's own router. */
import { REFUSED_METHODS, STANDARD_METHODS } from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'

function rank(method: string): number {
  // `Allow` lists the standard methods in their order, then others alphabetically.
  const i = STANDARD_METHODS.indexOf(method)
  return i === -1 ? STANDARD_METHODS.length : i
}

/**
 * The methods that can make a path exist: supported, not refused, not OPTIONS. Pass
 * `routedMethods(fastify)` (computed once the app is ready) to ask only about methods that
 * have routes at all.
 */
function routableMethods(fastify: FastifyInstance): string[] {
  return fastify.supportedMethods.filter((m) => m !== 'OPTIONS' && !REFUSED_METHODS.has(m))
}

/**
 * The methods some route of the app answers (OPTIONS and refused methods aside), from Fastify's
 * route tree, in `Allow` order: the 405 path asks the router about these only.
 */
export function routedMethods(fastify: FastifyInstance): string[] {
  return sortMethods(
    routableMethods(fastify).filter(
      (method) => !fastify.printRoutes({ method, commonPrefix: false }).includes('(empty tree)'),
    ),
  )
}

/** Sorts methods in the conventional order (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, ...). */
export function sortMethods(methods: Iterable<string>): string[] {
  return [...methods].sort(compareMethods)
}

/**
 * The methods that have a route for this URL (query string ignored), as Fastify would route
 * them: parametric and wildcard routes count. OPTIONS routes alone never make a path exist
 * (`@fastify/cors` adds an `OPTIONS *` catch-all); OPTIONS is listed when `withOptions` and the
 * path has some other route. Routes behind constraints (version, host) are seen only under the
 * `constraints` given (as routing derived them for the request).
 */
export function allowedMethods(
  fastify: FastifyInstance,
  url: string,
  withOptions: boolean,
  candidates: readonly string[] = routableMethods(fastify),
  constraints?: Record<string, unknown>,
): string[] {
  const found: string[] = []
  for (const method of inOrder(candidates)) {
    if (found[found.length - 1] === method) continue
    if (fastify.findRoute({ method, url, constraints }) !== null) found.push(method)
  }
  if (found.length > 0 && withOptions && !found.includes('OPTIONS')) {
    let at = 0
    while (at < found.length && rank(found[at]!) < OPTIONS_RANK) at++
    found.splice(at, 0, 'OPTIONS')
  }
  return found
}

const OPTIONS_RANK = rank('OPTIONS')

function compareMethods(a: string, b: string): number {
  return rank(a) - rank(b) || a.localeCompare(b)
}

/** The candidates in `Allow` order: sorted only when they are not already (`routedMethods` is). */
function inOrder(candidates: readonly string[]): readonly string[] {
  for (let i = 1; i < candidates.length; i++) {
    if (compareMethods(candidates[i - 1]!, candidates[i]!) > 0) return sortMethods(candidates)
  }
  return candidates
}
