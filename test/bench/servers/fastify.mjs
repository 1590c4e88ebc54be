// Bare Fastify: the same routes with response schemas (fast-json-stringify) and nothing else.
// A JSON parser for application/merge-patch+json is the one line any Fastify app taking merge
// patches needs. No ETag, no compression, no 405, no method override, no Idempotency-Key (a
// retried POST runs again): the output says so.
import { randomUUID } from 'node:crypto'
import Fastify from 'fastify'
import {
  CREATED_ITEM,
  CREATED_LOCATION,
  HASHED_ITEMS,
  ITEM_BY_ID,
  ITEM_SCHEMA,
  mergePatch,
  PAGE_SCHEMA,
  pageBody,
  pageLink,
  QUERY_RESULT_SCHEMA,
  QUERY_SCHEMA,
  queryResult,
  readPageQuery,
} from '../data.mjs'

const STACK = 'not in this stack'

/**
 * The response headers the restwell umbrella adds to a 1 KB GET (request id, rate limit,
 * validators, Vary, Cache-Control), with the same sizes, for the `fastify-headers` variant: bare
 * Fastify sending them from one hook and computing nothing, to show what the bytes alone cost.
 */
const RESTWELL_HEADERS = {
  'x-ratelimit-limit': '1000000000',
  'x-ratelimit-remaining': '999999999',
  'x-ratelimit-reset': '60',
  etag: '"7"',
  vary: 'Origin, Accept, accept-encoding',
  'accept-ranges': 'bytes',
  'cache-control': 'private, no-cache',
}

export async function build(variant) {
  const app = Fastify()
  if (variant === 'headers') {
    app.addHook('onRequest', (_request, reply, done) => {
      reply.header('x-request-id', randomUUID()).headers(RESTWELL_HEADERS)
      done()
    })
  }
  app.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  )

  const notFound = (reply) => reply.code(404).send({ error: 'Not found' })

  app.get('/items/:id', { schema: { response: { 200: ITEM_SCHEMA } } }, async (request, reply) => {
    const item = ITEM_BY_ID.get(request.params.id)
    return item ?? notFound(reply)
  })
  // The route restwell's one-line default serves (an ETag hashed from the bytes): plain here.
  app.get(
    `${HASHED_ITEMS}/:id`,
    { schema: { response: { 200: ITEM_SCHEMA } } },
    async (request, reply) => ITEM_BY_ID.get(request.params.id) ?? notFound(reply),
  )
  app.get('/items', { schema: { response: { 200: PAGE_SCHEMA } } }, async (request, reply) => {
    const { page, limit } = readPageQuery(request.query)
    const body = pageBody(page, limit)
    reply.header('link', pageLink(body))
    return body
  })
  app.route({
    method: 'QUERY',
    url: '/items',
    schema: { body: QUERY_SCHEMA, response: { 200: QUERY_RESULT_SCHEMA } },
    handler: async (request) => queryResult(request.body),
  })
  app.patch(
    '/items/:id',
    { schema: { response: { 200: ITEM_SCHEMA } } },
    async (request, reply) => {
      const item = ITEM_BY_ID.get(request.params.id)
      return item ? mergePatch(item, request.body) : notFound(reply)
    },
  )
  app.post('/items', { schema: { response: { 201: ITEM_SCHEMA } } }, async (request, reply) => {
    reply.code(201).header('location', CREATED_LOCATION)
    return { ...CREATED_ITEM, ...request.body }
  })
  app.put('/items/:id', { schema: { response: { 200: ITEM_SCHEMA } } }, async (request, reply) => {
    const item = ITEM_BY_ID.get(request.params.id)
    return item ? { ...request.body, id: item.id } : notFound(reply)
  })

  return {
    listen: async () => {
      await app.listen({ port: 0, host: '127.0.0.1' })
      return app.server.address().port
    },
    close: () => app.close(),
    expect: {
      'page-gzip': { status: 200, gzip: false, note: `no compression: ${STACK}` },
      'page-304': { status: 200, note: `no ETag/304: ${STACK}` },
      'get1k-hashed-304': { status: 200, note: `no ETag/304: ${STACK}` },
      'query-304': { status: 200, note: `no ETag/304: ${STACK}` },
      patch: { status: 200, note: `If-Match not checked: ${STACK}` },
      405: { status: 404, note: `Fastify answers 404, no 405: ${STACK}` },
      override: { status: 404, note: `no method override: ${STACK}` },
      'post-replay': { status: 201, replay: false, note: `no replay, the handler runs: ${STACK}` },
    },
  }
}
