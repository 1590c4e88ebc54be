/** The JSON schemas of the batch endpoint, for `@fastify/swagger` and the 207's serializer. */
import { READ_METHODS } from '@restwell/core/internal'
import { MAX_ID_LENGTH, MAX_URL_LENGTH, METHODS, type ParseLimits } from './parse.js'

type Json = Record<string, unknown>

/** What the parser refuses beside the shape, for the schema to say it too. */
export type SchemaLimits = Pick<
  ParseLimits,
  'maxOperations' | 'batchPath' | 'forbiddenHeaders' | 'forbiddenQuery'
>

/** The methods whose operation may carry a body. */
const BODY_METHODS = [...METHODS].filter((method) => !READ_METHODS.has(method))

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
}

/** `text` matched in any case (a JSON Schema pattern has no flags). */
function anyCase(text: string): string {
  let out = ''
  for (const c of text) {
    const lower = c.toLowerCase()
    const upper = c.toUpperCase()
    out += lower === upper ? escapeRegex(c) : `[${lower}${upper}]`
  }
  return out
}

/**
 * The `url` an operation may have, as the parser checks it: origin-form (one leading `/`, no
 * scheme, host, fragment or space), not the batch route itself, no method override parameter.
 */
export function operationUrlPattern(limits: SchemaLimits): string {
  const batch = `(?!${anyCase(limits.batchPath.replace(/^\//, ''))}/*(?:\\?|$))`
  const query = [...limits.forbiddenQuery]
    .map((name) => `(?![^?]*\\?(?:[^&]*&)*${escapeRegex(name)}(?:[=&]|$))`)
    .join('')
  return `^/(?!/)${batch}${query}[^\\s#\\\\]*$`
}

/** The request body (the parser checks it; the route's validator does not, see the README). */
export function batchRequestSchema(limits: SchemaLimits): Json {
  const forbidden: Json = {}
  for (const name of limits.forbiddenHeaders) {
    forbidden[name] = { not: {}, description: 'May not be set by an operation (in any case)' }
  }
  return {
    type: 'object',
    required: ['requests'],
    additionalProperties: false,
    properties: {
      atomic: {
        type: 'boolean',
        description: 'Run every operation in one transaction: all or nothing',
      },
      requests: {
        type: 'array',
        minItems: 1,
        maxItems: limits.maxOperations,
        items: {
          type: 'object',
          required: ['id', 'method', 'url'],
          additionalProperties: false,
          // GET and HEAD carry no body.
          anyOf: [
            { properties: { method: { enum: BODY_METHODS } } },
            { not: { required: ['body'] } },
          ],
          properties: {
            id: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
            method: { type: 'string', enum: [...METHODS] },
            url: {
              type: 'string',
              minLength: 1,
              maxLength: MAX_URL_LENGTH,
              pattern: operationUrlPattern(limits),
              description: `A path on this API, with its query; not \`${limits.batchPath}\` (batches do not nest), no ${[...limits.forbiddenQuery].map((q) => `\`${q}\``).join(', ')}`,
            },
            headers: {
              type: 'object',
              properties: forbidden,
              additionalProperties: { type: 'string', pattern: '^[\\t\\x20-\\x7e\\x80-\\xff]*$' },
              description:
                'Header names to values; no method override, hop-by-hop or forwarding header',
            },
            body: {
              description:
                'JSON (sent as `application/json`), or a string sent as it is; not with GET or HEAD',
            },
            dependsOn: {
              type: 'array',
              items: { type: 'string' },
              description: 'Ids of the operations to wait for; 424 when one failed',
            },
          },
        },
      },
    },
  }
}

/** The 207 body: one answer per operation, in request order. */
export const BATCH_RESPONSE_SCHEMA: Json = {
  description: 'Multi-Status: one answer per operation, in request order',
  type: 'object',
  required: ['responses'],
  properties: {
    responses: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'status', 'headers'],
        properties: {
          id: { type: 'string' },
          status: { type: 'integer' },
          headers: { type: 'object', additionalProperties: true },
          body: { description: 'JSON as parsed, text as a string, other bytes in base64' },
          sameAs: {
            type: 'string',
            description: '208: the id of the earlier identical operation',
          },
          rolledBack: {
            type: 'boolean',
            description: 'Atomic batch: it succeeded, then the whole batch was rolled back',
          },
        },
      },
    },
  },
}

/** The route schema: body, 207, and the batch's own 400 and 413. */
export function batchRouteSchema(limits: SchemaLimits): Json {
  return {
    summary: 'Run several operations in one request',
    description:
      'Each operation is served by the API as if sent alone; the answer lists their statuses (207 Multi-Status).',
    body: batchRequestSchema(limits),
    response: { 207: BATCH_RESPONSE_SCHEMA },
  }
}
