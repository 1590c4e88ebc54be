// Fastify + the official plugins a user would assemble by hand: @fastify/sensible,
// @fastify/cors, @fastify/rate-limit, @fastify/etag, @fastify/compress. What the plugins do
// not cover is written in the handlers the way a user would (the item's ETag from its
// version, If-Match -> 412, a POST's Idempotency-Key: the same by-hand store as raw node's,
// looked up in the handler, the answer kept by the route's onSend hook). The hashed items get their ETag from @fastify/etag alone (a sha1
// of the bytes, 304 on If-None-Match). Neither 405 nor method override exists among them.
import fastifyCompress from '@fastify/compress'
import fastifyCors from '@fastify/cors'
import fastifyEtag from '@fastify/etag'
import fastifyRateLimit from '@fastify/rate-limit'
import fastifySensible from '@fastify/sensible'
import Fastify from 'fastify'
import {
  CREATED_ITEM,
  CREATED_LOCATION,
  etagListHas,
  HASHED_ITEMS,
  ITEM_BY_ID,
  ITEM_SCHEMA,
  itemEtag,
  mergePatch,
  PAGE_SCHEMA,
  pageBody,
  pageLink,
  QUERY_RESULT_SCHEMA,
  QUERY_SCHEMA,
  queryResult,
  readPageQuery,
} from '../data.mjs'
import { fingerprintOf, KEY_HEADER, lookUpKey, REPLAYED, settleKey } from './by-hand.mjs'
import { RATE_LIMIT_MAX } from './limits.mjs'

const STACK = 'not in this stack'

export async function build() {
  const app = Fastify()
  await app.register(fastifySensible)
  await app.register(fastifyCors, { origin: '*', maxAge: 86400 })
  await app.register(fastifyRateLimit, { max: RATE_LIMIT_MAX, timeWindow: '1 minute' })
  // etag before compress: its onSend hook then hashes the identity bytes and answers 304
  // before anything is compressed.
  await app.register(fastifyEtag)
  await app.register(fastifyCompress)
  app.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  )

  app.get('/items/:id', { schema: { response: { 200: ITEM_SCHEMA } } }, async (request, reply) => {
    const item = ITEM_BY_ID.get(request.params.id)
    if (!item) throw app.httpErrors.notFound()
    reply.header('etag', itemEtag(item))
    return item
  })
  app.get(
    `${HASHED_ITEMS}/:id`,
    { schema: { response: { 200: ITEM_SCHEMA } } },
    async (request) => {
      const item = ITEM_BY_ID.get(request.params.id)
      if (!item) throw app.httpErrors.notFound()
      return item
    },
  )
  app.get('/items', { schema: { response: { 200: PAGE_SCHEMA } } }, async (request, reply) => {
    const { page, limit } = readPageQuery(request.query)
    const body = pageBody(page, limit)
    reply.header('link', pageLink(body))
    return body
  })
  // @fastify/etag hashes a QUERY's bytes and answers 304 as for a GET (it looks at no method).
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
      if (!item) throw app.httpErrors.notFound()
      const etag = itemEtag(item)
      const ifMatch = request.headers['if-match']
      if (ifMatch !== undefined && !etagListHas(ifMatch, etag, false)) {
        throw app.httpErrors.preconditionFailed()
      }
      reply.header('etag', etag)
      return mergePatch(item, request.body)
    },
  )
  const claims = new WeakMap()
  app.post(
    '/items',
    {
      schema: { response: { 201: ITEM_SCHEMA } },
      onSend: async (_request, reply, payload) => {
        const claim = claims.get(reply)
        if (claim === undefined) return payload
        const stored = [['content-type', reply.getHeader('content-type')]]
        const location = reply.getHeader('location')
        if (location !== undefined) stored.push(['location', location])
        settleKey(claim, reply.statusCode, stored, payload)
        return payload
      },
    },
    async (request, reply) => {
      const value = request.headers[KEY_HEADER]
      if (value !== undefined) {
        const fingerprint = fingerprintOf('POST', request.url, JSON.stringify(request.body))
        const held = lookUpKey(value, request.ip, 'POST', '/items', fingerprint)
        if (held.error !== undefined) {
          const [status, code, message] = held.error
          throw app.httpErrors.createError(status, message, { code })
        }
        if (held.replay !== undefined) {
          const { status, headers, body } = held.replay
          reply.code(status)
          for (const [name, v] of headers) reply.header(name, v)
          return reply.header(REPLAYED, 'true').send(body)
        }
        claims.set(reply, held.claim)
      }
      reply.code(201).header('location', CREATED_LOCATION)
      return { ...CREATED_ITEM, ...request.body }
    },
  )
  app.put('/items/:id', { schema: { response: { 200: ITEM_SCHEMA } } }, async (request) => {
    const item = ITEM_BY_ID.get(request.params.id)
    if (!item) throw app.httpErrors.notFound()
    return { ...request.body, id: item.id }
  })

  return {
    listen: async () => {
      await app.listen({ port: 0, host: '127.0.0.1' })
      return app.server.address().port
    },
    close: () => app.close(),
    expect: {
      405: { status: 404, note: `@fastify/sensible has no 405: ${STACK}` },
      override: { status: 404, note: `no method override: ${STACK}` },
    },
  }
}
