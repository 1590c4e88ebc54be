// Bare Fastify: the same routes with response schemas (fast-json-stringify) and nothing else.
// A JSON parser for application/merge-patch+json is the one line any Fastify app taking merge
// patches needs. No ETag, no compression, no 405, no method override: the output says so.
import Fastify from 'fastify'
import {
  ITEM_BY_ID,
  ITEM_SCHEMA,
  mergePatch,
  PAGE_SCHEMA,
  pageBody,
  pageLink,
  readPageQuery,
} from '../data.mjs'

const STACK = 'not in this stack'

export async function build() {
  const app = Fastify()
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
      return item ? mergePatch(item, request.body) : notFound(reply)
    },
  )
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
      patch: { status: 200, note: `If-Match not checked: ${STACK}` },
      405: { status: 404, note: `Fastify answers 404, no 405: ${STACK}` },
      override: { status: 404, note: `no method override: ${STACK}` },
    },
  }
}
