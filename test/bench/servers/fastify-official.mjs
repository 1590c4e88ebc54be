// Fastify + the official plugins a user would assemble by hand: @fastify/sensible,
// @fastify/cors, @fastify/rate-limit, @fastify/etag, @fastify/compress. What the plugins do
// not cover is written in the handlers the way a user would (the item's ETag from its
// version, If-Match -> 412). The hashed items get their ETag from @fastify/etag alone (a sha1
// of the bytes, 304 on If-None-Match). Neither 405 nor method override exists among them.
import fastifyCompress from '@fastify/compress'
import fastifyCors from '@fastify/cors'
import fastifyEtag from '@fastify/etag'
import fastifyRateLimit from '@fastify/rate-limit'
import fastifySensible from '@fastify/sensible'
import Fastify from 'fastify'
import {
  etagListHas,
  HASHED_ITEMS,
  ITEM_BY_ID,
  ITEM_SCHEMA,
  itemEtag,
  mergePatch,
  PAGE_SCHEMA,
  pageBody,
  pageLink,
  readPageQuery,
} from '../data.mjs'
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
