/**
 * Integer path parameters in one form: decimal digits, as the API writes them. Fastify's Ajv
 * converts a path's text with `Number()`, so `/books/1e0`, `/books/%201` and `/books/01` would
 * all name book 1; each is a 400 naming the parameter instead.
 */
import type { onRouteHookHandler, preValidationHookHandler } from 'fastify'
import { validationError } from 'restwell'

/** An integer as the API writes it: decimal digits, `-` for a negative one, nothing else. */
const CANONICAL_INTEGER = /^-?(?:0|[1-9][0-9]*)$/

/** The names of the integer properties of a route's `schema.params`. */
function integerParams(schema: unknown): string[] {
  const properties = (schema as { params?: { properties?: unknown } } | undefined)?.params
    ?.properties
  if (typeof properties !== 'object' || properties === null) return []
  return Object.entries(properties)
    .filter(([, property]) => (property as { type?: unknown } | null)?.type === 'integer')
    .map(([name]) => name)
}

/**
 * An `onRoute` hook: a route whose `schema.params` has integer parameters checks their text
 * before Fastify's validator converts it (a `preValidation` hook sees the path's text).
 */
export const canonicalIntegerParams: onRouteHookHandler = (route) => {
  const names = integerParams(route.schema)
  if (names.length === 0) return
  const check: preValidationHookHandler = async function canonicalIds(request) {
    const params = request.params as Record<string, string>
    const wrong = names.filter((name) => !CANONICAL_INTEGER.test(params[name] ?? ''))
    if (wrong.length === 0) return
    throw validationError(
      wrong.map((name) => ({
        instancePath: `/${name}`,
        keyword: 'pattern',
        message:
          'must be an integer in decimal digits: no leading zero, plus sign, exponent or space',
      })),
      'params',
    )
  }
  const own = route.preValidation
  route.preValidation = [check, ...(own === undefined ? [] : [own].flat())]
}
