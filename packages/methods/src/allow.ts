/** The `Allow` header: which methods a path supports, asked of Fastify's own router. */
import type { FastifyInstance } from 'fastify'

/** Methods never routed: the spec does not use them (4.1), and TRACE echoes credentials. */
export const REFUSED_METHODS: ReadonlySet<string> = new Set(['TRACE', 'CONNECT'])

/** Order in which `Allow` lists methods; others follow alphabetically. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

function rank(method: string): number {
  const i = ORDER.indexOf(method)
  return i === -1 ? ORDER.length : i
}

/** Sorts methods in the conventional order (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, ...). */
export function sortMethods(methods: Iterable<string>): string[] {
  return [...methods].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
}

/**
 * The methods that have a route for this URL (query string ignored), as Fastify would route
 * them: parametric and wildcard routes count. OPTIONS routes alone never make a path exist
 * (`@fastify/cors` adds an `OPTIONS *` catch-all); OPTIONS is listed when `withOptions` and the
 * path has some other route. Routes behind constraints (version, host) are not seen.
 */
export function allowedMethods(
  fastify: FastifyInstance,
  url: string,
  withOptions: boolean,
): string[] {
  const found = new Set<string>()
  for (const method of fastify.supportedMethods) {
    if (
      method !== 'OPTIONS' &&
      !REFUSED_METHODS.has(method) &&
      fastify.findRoute({ method, url }) !== null
    ) {
      found.add(method)
    }
  }
  if (found.size > 0 && withOptions) found.add('OPTIONS')
  return sortMethods(found)
}
