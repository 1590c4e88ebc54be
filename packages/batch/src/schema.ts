/** The JSON schemas of the batch endpoint, for `@fastify/swagger` and the 207's serializer. */
import { MAX_ID_LENGTH, MAX_URL_LENGTH, METHODS } from './parse.js'

type Json = Record<string, unknown>

/** The request body (the parser checks it; the route's validator does not, see the README). */
export function batchRequestSchema(maxOperations: number): Json {
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
        maxItems: maxOperations,
        items: {
          type: 'object',
          required: ['id', 'method', 'url'],
          additionalProperties: false,
          properties: {
            id: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
            method: { type: 'string', enum: [...METHODS] },
            url: {
              type: 'string',
              maxLength: MAX_URL_LENGTH,
              pattern: '^/',
              description: 'A path on this API, with its query',
            },
            headers: { type: 'object', additionalProperties: { type: 'string' } },
            body: {
              description: 'JSON (sent as `application/json`), or a string sent as it is',
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
export function batchRouteSchema(maxOperations: number): Json {
  return {
    summary: 'Run several operations in one request',
    description:
      'Each operation is served by the API as if sent alone; the answer lists their statuses (207 Multi-Status).',
    body: batchRequestSchema(maxOperations),
    response: { 207: BATCH_RESPONSE_SCHEMA },
  }
}
