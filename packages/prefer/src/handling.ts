/**
 * `handling=strict` and `handling=lenient` (RFC 7240 §4.4) on the parts of a request a route
 * declares: a query parameter or a top-level body member the route's schema does not name is a
 * 400 under strict and dropped under lenient; without the preference the route's default stays.
 */
import type { RouteEntry } from '@restwell/core'
import { isPlainSchema } from '@restwell/core/internal'
import { ErrorCode, type ErrorDetail, type HttpError, httpErrors } from '@restwell/errors'
import type { FastifyRequest } from 'fastify'

/** The names a schema part declares (`properties`), or undefined when it declares none we can read. */
export function declaredNames(schema: unknown): ReadonlySet<string> | undefined {
  if (!isPlainSchema(schema)) return undefined
  const properties = schema.properties
  if (!isPlainSchema(properties)) return undefined
  return new Set(Object.keys(properties))
}

/** What a route declares: its query parameters (its schema's, and every plugin's) and body members. */
export interface Declared {
  readonly query: ReadonlySet<string> | undefined
  readonly body: ReadonlySet<string> | undefined
}

/** The route's declared names, read once the route's schema is final (its first request). */
export function declaredOf(route: RouteEntry, readByPlugins: readonly string[]): Declared {
  const schema = route.schema as { querystring?: unknown; body?: unknown } | undefined
  const query = declaredNames(schema?.querystring)
  return {
    query: query === undefined ? undefined : new Set([...query, ...readByPlugins]),
    body: declaredNames(schema?.body),
  }
}

/** The members of `value` not in `known`. */
function unknownMembers(value: unknown, known: ReadonlySet<string>): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return []
  return Object.keys(value).filter((name) => !known.has(name))
}

function refusal(part: 'querystring' | 'body', names: readonly string[]): HttpError {
  const what = part === 'body' ? 'member of this route' : 'parameter of this route'
  const details: ErrorDetail[] = names.map((name) => ({
    field: `${part}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
    message: `is not a ${what} (Prefer: handling=strict)`,
    code: 'ADDITIONALPROPERTIES',
  }))
  return httpErrors.badRequest(
    `The request has ${names.length === 1 ? 'a' : names.length} ${part === 'body' ? 'body member' : 'query parameter'}${names.length === 1 ? '' : 's'} the route does not know`,
    {
      code: ErrorCode.VALIDATION_ERROR,
      details,
    },
  )
}

/**
 * Applies the request's `handling` to one part (`request.query` or `request.body`, before it is
 * validated): the 400 to answer under strict, nothing otherwise (under lenient the unknown
 * members are deleted). Records the preference as applied.
 */
export function applyHandling(
  request: FastifyRequest,
  part: 'querystring' | 'body',
  known: ReadonlySet<string> | undefined,
): HttpError | undefined {
  const prefer = request.prefer
  const handling = prefer?.handling
  if (prefer === null || prefer === undefined || handling === undefined || known === undefined) {
    return undefined
  }
  const value = part === 'body' ? request.body : request.query
  const unknown = unknownMembers(value, known)
  prefer.apply('handling', handling)
  if (unknown.length === 0) return undefined
  if (handling === 'strict') return refusal(part, unknown)
  for (const name of unknown) delete (value as Record<string, unknown>)[name]
  return undefined
}
