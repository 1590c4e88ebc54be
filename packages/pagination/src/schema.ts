/**
 * JSON schemas: the pagination parameters and headers added to a paginated route's schema (so
 * `@fastify/swagger` or any OpenAPI generator describes them), and TypeBox helpers for users.
 */
import { isPlainSchema, type SchemaAccess } from '@restwell/core/internal'
import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import type { FastifySchema } from 'fastify'
import { CURSOR_PARAM, LIMIT_PARAM, PAGE_PARAM, SORT_PARAM } from './query.js'
import { MAX_SORT_LENGTH } from './sort.js'

type JsonObject = Record<string | symbol, unknown>

/** What the route-schema additions are made from. */
export interface SchemaPlan {
  cursor: boolean
  defaultLimit: number
  maxLimit: number
  sortable: readonly string[]
  defaultSort: string | undefined
  /** Filter fields named in `config.pagination.filterable`. */
  filterable: readonly string[]
  totalHeader: string | false
}

/** The highest `page` a route takes: its last item's offset stays a safe integer. */
export function maxPageOf(maxLimit: number): number {
  return Math.floor(Number.MAX_SAFE_INTEGER / maxLimit)
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
}

/**
 * The `?sort=` values a route takes, as a pattern: a comma list of its sortable fields, each
 * with an optional `-` or `+` (spaces around a key allowed: an unencoded `+` arrives as one).
 * That a field is named once is checked by the plugin only.
 */
export function sortPattern(sortable: readonly string[]): string {
  const key = `\\s*[+-]?(?:${sortable.map(escapeRegex).join('|')})\\s*`
  return `^${key}(?:,${key})*$`
}

/** The querystring properties pagination reads, described for OpenAPI. */
export function paginationProperties(plan: SchemaPlan): Record<string, JsonObject> {
  const properties: Record<string, JsonObject> = {}
  if (plan.cursor) {
    properties[CURSOR_PARAM] = {
      type: 'string',
      description: 'Opaque cursor from a `Link` of a previous page; absent for the first page.',
    }
  } else {
    properties[PAGE_PARAM] = {
      type: 'integer',
      minimum: 1,
      maximum: maxPageOf(plan.maxLimit),
      default: 1,
      description: 'Page number, starting at 1.',
    }
  }
  properties[LIMIT_PARAM] = {
    type: 'integer',
    minimum: 1,
    maximum: plan.maxLimit,
    default: plan.defaultLimit,
    description: 'Items per page.',
  }
  if (plan.sortable.length > 0) {
    const sort: JsonObject = {
      type: 'string',
      maxLength: MAX_SORT_LENGTH,
      pattern: sortPattern(plan.sortable),
      description: `Comma-separated sort keys, \`-\` for descending. Fields: ${plan.sortable.join(', ')}.`,
    }
    if (plan.defaultSort !== undefined) sort.default = plan.defaultSort
    properties[SORT_PARAM] = sort
  }
  return properties
}

/** The response headers of a page, described for OpenAPI. */
export function pageHeaders(plan: SchemaPlan): Record<string, JsonObject> {
  const headers: Record<string, JsonObject> = {
    link: {
      type: 'string',
      description: 'RFC 8288 links to the first, prev, next and last pages (those that exist).',
    },
  }
  if (plan.totalHeader !== false) {
    headers[plan.totalHeader] = {
      type: 'integer',
      minimum: 0,
      description: 'Total number of items matching the filters, when known.',
    }
  }
  return headers
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * An object querystring schema we can extend: a plain JSON Schema object (not a `$ref`, a
 * boolean, a combinator, or a schema object of another kind, such as a Zod schema).
 */
function extensible(schema: unknown): schema is JsonObject {
  return (
    isPlainSchema(schema) &&
    (schema.type === 'object' || isObject(schema.properties)) &&
    schema.$ref === undefined
  )
}

/** The properties an object querystring schema declares (empty for one we cannot read). */
export function declaredProperties(schema: unknown): Record<string, unknown> {
  return extensible(schema) && isObject(schema.properties)
    ? (schema.properties as Record<string, unknown>)
    : {}
}

/** Both parts: what `augmentRouteSchema` adds to when not told otherwise. */
const EVERY_PART: SchemaAccess = { validation: true, response: true }

/**
 * Returns a copy of a route schema (shared schemas are never mutated) with the pagination
 * parameters in its querystring (the route's own properties win) and `Link` and the total header
 * on its success responses. Only the parts `access` allows are changed; non-JSON-Schema objects
 * are left as they are.
 */
export function augmentRouteSchema(
  schema: FastifySchema,
  plan: SchemaPlan,
  access?: SchemaAccess,
): FastifySchema
export function augmentRouteSchema(
  schema: FastifySchema | undefined,
  plan: SchemaPlan,
  access?: SchemaAccess,
): FastifySchema | undefined
export function augmentRouteSchema(
  schema: FastifySchema | undefined,
  plan: SchemaPlan,
  access: SchemaAccess = EVERY_PART,
): FastifySchema | undefined {
  if ((!access.validation && !access.response) || (schema !== undefined && !isPlainSchema(schema)))
    return schema
  const result: JsonObject = { ...(schema as JsonObject | undefined) }
  if (access.validation) {
    const ours = paginationProperties(plan)
    for (const field of plan.filterable) ours[field] = { type: 'string' }
    const querystring = result.querystring
    if (querystring === undefined) {
      result.querystring = { type: 'object', properties: ours }
    } else if (extensible(querystring)) {
      result.querystring = {
        ...querystring,
        properties: { ...ours, ...declaredProperties(querystring) },
      }
    }
  }
  if (access.response && (result.response === undefined || isPlainSchema(result.response))) {
    result.response = withPageHeaders(result.response, pageHeaders(plan))
  }
  return result as FastifySchema
}

/** A copy of a plain response map with the page headers on its success entries. */
function withPageHeaders(
  given: JsonObject | undefined,
  headers: Record<string, JsonObject>,
): JsonObject {
  const response: JsonObject = { ...given }
  let present = false
  for (const key of ['200', '2xx', 'default']) {
    const entry = response[key]
    if (entry === undefined) continue
    present = true
    // Another kind of schema object (Zod) is kept whole: a copy would lose its methods.
    if (!isPlainSchema(entry)) continue
    response[key] = {
      ...entry,
      headers: { ...headers, ...(isObject(entry.headers) ? entry.headers : {}) },
    }
  }
  if (!present) {
    response['200'] = { description: 'One page of the collection.', headers }
  }
  return response
}

/**
 * The pagination querystring properties as TypeBox, to spread into a route's own querystring
 * schema: `Type.Object({ ...PaginationQuery().properties, status: Type.String() })`.
 * Pagination adds them itself when the route's querystring is a plain object schema.
 */
export function PaginationQuery(options: { maxLimit?: number; cursor?: boolean } = {}): TObject {
  const limit = Type.Optional(Type.Integer({ minimum: 1, maximum: options.maxLimit ?? 100 }))
  const sort = Type.Optional(Type.String())
  return options.cursor === true
    ? Type.Object({ cursor: Type.Optional(Type.String()), limit, sort })
    : Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })), limit, sort })
}

/**
 * The schema of the plain JSON page envelope `{ data, meta, links }`, for a route's response
 * schema: `response: { 200: PageSchema(Book) }`.
 */
export function PageSchema(item: TSchema): TObject {
  const link = Type.Optional(Type.String())
  return Type.Object({
    data: Type.Array(item),
    meta: Type.Object({
      page: Type.Optional(Type.Integer({ minimum: 1 })),
      limit: Type.Integer({ minimum: 1 }),
      total: Type.Optional(Type.Integer({ minimum: 0 })),
      totalPages: Type.Optional(Type.Integer({ minimum: 0 })),
    }),
    links: Type.Object({ self: Type.String(), first: link, prev: link, next: link, last: link }),
  })
}
