/** The `?deleted=` parameter added to a soft-delete GET route's schema, for OpenAPI generators. */
import { isPlainSchema } from '@restwell/core/internal'
import type { FastifySchema } from 'fastify'
import { INCLUSION_VALUES } from './inclusion.js'

type JsonObject = Record<string | symbol, unknown>

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Returns a copy of a route schema whose querystring declares `param` (a declared property of
 * the same name wins). A querystring that is not a plain object schema (a `$ref`, a
 * combinator, a schema object of another kind such as a Zod schema) is left alone, and so is a
 * whole schema of another kind; the given schema is never mutated. Call it only for a route
 * that Fastify's own validator checks (`schemaAccess(...).validation` from `@restwell/errors`).
 */
export function withInclusionParam(
  schema: FastifySchema | undefined,
  param: string,
): FastifySchema {
  if (schema !== undefined && !isPlainSchema(schema)) return schema
  const property = {
    type: 'string',
    enum: Object.keys(INCLUSION_VALUES),
    description:
      'Which items to show: `exclude` soft-deleted ones (default), `include` them, or `only` them.',
  }
  const result: JsonObject = { ...(schema as JsonObject | undefined) }
  const querystring = result.querystring
  if (querystring === undefined) {
    result.querystring = { type: 'object', properties: { [param]: property } }
  } else if (
    isPlainSchema(querystring) &&
    querystring.$ref === undefined &&
    (querystring.type === 'object' || isObject(querystring.properties))
  ) {
    const declared = isObject(querystring.properties) ? querystring.properties : {}
    result.querystring = { ...querystring, properties: { [param]: property, ...declared } }
  }
  return result as FastifySchema
}
