/** QUERY (RFC 10008): validators, 304 and preconditions as for GET, keyed by the content too. */
import { REPRESENTATION } from '@restwell/core/internal'
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import { conditionalQueryRequests } from '../../../test/helpers/hono-query.js'
import { restwellConditional } from '../src/index.js'

const BOOKS = [
  { id: 1, title: 'Dune', version: 3 },
  { id: 2, title: 'Emma', version: 1 },
]
const UPDATED = 'Wed, 01 May 2024 10:00:00 GMT'

type Search = { title?: string; fields?: string[] }

/** The books a search selects, with the fields it asks for. */
function search(body: unknown): unknown[] {
  const { title, fields } = (body ?? {}) as Search
  return BOOKS.filter((book) => title === undefined || book.title === title).map((book) =>
    fields === undefined
      ? book
      : Object.fromEntries(Object.entries(book).filter(([key]) => fields.includes(key))),
  )
}

async function build(): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional, { ranges: true })
  app.route({ method: 'QUERY', url: '/books', handler: async (request) => search(request.body) })
  app.get('/books', async () => BOOKS)
  app.route({
    method: 'QUERY',
    url: '/versioned',
    handler: async (request, reply) => {
      reply.etag(7).lastModified(UPDATED)
      return search(request.body)
    },
  })
  app.route({
    method: 'QUERY',
    url: '/items',
    config: { conditional: { etagField: 'version' } },
    handler: async (request) => ({ data: search(request.body) }),
  })
  app.route({
    method: 'QUERY',
    url: '/stored',
    config: {
      conditional: {
        getValidator: (request: FastifyRequest) =>
          (request.body as Search | undefined)?.title === 'gone' ? null : { etag: 'v9' },
      },
    },
    handler: async (request) => search(request.body),
  })
  return app
}

const query = (app: FastifyInstance, url: string, body: unknown, headers = {}) =>
  app.inject({ method: 'QUERY', url, payload: body as object, headers })

test('a QUERY answer gets an ETag; two queries never share one', async (t) => {
  const app = await build()
  for (const url of ['/books', '/versioned', '/items']) {
    const a = await query(app, url, { title: 'Dune' })
    const again = await query(app, url, { title: 'Dune' })
    const b = await query(app, url, { title: 'Emma' })
    // Same items, other fields: the bytes differ, and so must the tags.
    const fields = await query(app, url, { title: 'Dune', fields: ['id', 'version'] })
    t.equal(a.statusCode, 200, url)
    t.type(a.headers.etag, 'string')
    t.equal(again.headers.etag, a.headers.etag, `${url}: the same query, the same tag`)
    t.not(b.headers.etag, a.headers.etag, `${url}: another query, another tag`)
    t.not(fields.headers.etag, a.headers.etag, `${url}: other fields, another tag`)
  }
  const get = await app.inject({ method: 'GET', url: '/versioned' })
  t.equal(get.statusCode, 404, 'no GET route there')
  const plainGet = await app.inject({ method: 'GET', url: '/books' })
  const all = await query(app, '/books', {})
  t.not(all.headers.etag, plainGet.headers.etag, 'a QUERY for everything is no GET')
})

test("If-None-Match: the query's own tag is a 304, another query's a 200", async (t) => {
  const app = await build()
  for (const url of ['/books', '/versioned', '/items', '/stored']) {
    const a = await query(app, url, { title: 'Dune' })
    const tag = a.headers.etag as string
    const same = await query(app, url, { title: 'Dune' }, { 'if-none-match': tag })
    t.equal(same.statusCode, 304, url)
    t.equal(same.headers.etag, tag)
    t.equal(same.body, '')
    const other = await query(app, url, { title: 'Emma' }, { 'if-none-match': tag })
    t.equal(other.statusCode, 200, `${url}: query A's tag sent with query B`)
    t.same(other.json(), url === '/items' ? { data: [BOOKS[1]] } : [BOOKS[1]])
  }
})

test('If-Modified-Since on a QUERY is a 304 as on a GET', async (t) => {
  const app = await build()
  const res = await query(app, '/versioned', {}, { 'if-modified-since': UPDATED })
  t.equal(res.statusCode, 304)
})

test('If-Match and If-Unmodified-Since on a QUERY behave as on a safe method (RFC 9110 §13)', async (t) => {
  const app = await build()
  const a = await query(app, '/versioned', { title: 'Dune' })
  const tag = a.headers.etag as string
  const match = await query(app, '/versioned', { title: 'Dune' }, { 'if-match': tag })
  t.equal(match.statusCode, 200)
  const stale = await query(app, '/versioned', { title: 'Dune' }, { 'if-match': '"6"' })
  t.equal(stale.statusCode, 412)
  t.equal(stale.json().error.details[0].field, 'headers/if-match')
  t.equal(stale.headers.etag, undefined)
  const other = await query(app, '/versioned', { title: 'Emma' }, { 'if-match': tag })
  t.equal(other.statusCode, 412, "another query's tag names another representation")
  const since = await query(
    app,
    '/versioned',
    {},
    { 'if-unmodified-since': 'Tue, 30 Apr 2024 10:00:00 GMT' },
  )
  t.equal(since.statusCode, 412)
  const later = await query(app, '/versioned', {}, { 'if-unmodified-since': UPDATED })
  t.equal(later.statusCode, 200)
})

test('a stored validator answers a QUERY 304 before the handler; without one the bytes decide', async (t) => {
  const app = await build()
  const a = await query(app, '/stored', { title: 'Dune' })
  t.match(a.headers.etag, /^"v9;q\.[A-Za-z0-9_-]+"$/)
  const hit = await query(app, '/stored', { title: 'Dune' }, { 'if-none-match': a.headers.etag })
  t.equal(hit.statusCode, 304)
  const gone = await query(app, '/stored', { title: 'gone' })
  t.equal(gone.statusCode, 200, 'no stored state: the handler answers, its bytes hashed')
  t.notMatch(gone.headers.etag, /^"v9/)
})

test('Range is defined for GET only: a QUERY answer is sent whole, without Accept-Ranges', async (t) => {
  const app = await build()
  const res = await query(app, '/books', {}, { range: 'bytes=0-3' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), BOOKS)
  t.equal(res.headers['accept-ranges'], undefined)
  t.equal(res.headers['content-range'], undefined)
  const get = await app.inject({ method: 'GET', url: '/books', headers: { range: 'bytes=0-3' } })
  t.equal(get.statusCode, 206, 'a GET on the same path keeps its ranges')
})

// Hono's etag middleware test "Should handle conditional QUERY requests"
// (honojs/hono, src/middleware/etag/index.test.ts), ported: a text body, no Content-Type given
// by hand (fetch sends text/plain for a string).
test('Should handle conditional QUERY requests', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  app.route({
    method: 'QUERY',
    url: '/etag/query',
    handler: async (_request, reply) => reply.type('text/plain').send('Hono is great'),
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  await conditionalQueryRequests(t, port)
})

test("a QUERY's tag names its representation and its content", async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  app.route({
    method: 'QUERY',
    url: '/books',
    onRequest: async (request) => {
      // What negotiation sets for a representation other than the route's default.
      if (request.headers.accept === 'application/xml') {
        ;(request as unknown as Record<symbol, string>)[REPRESENTATION] = 'xml'
      }
    },
    handler: async (request, reply) => {
      reply.etag(7)
      return search(request.body)
    },
  })
  const json = await query(app, '/books', { title: 'Dune' })
  const xml = await query(app, '/books', { title: 'Dune' }, { accept: 'application/xml' })
  t.match(json.headers.etag, /^"7;q\.[A-Za-z0-9_-]+"$/)
  t.match(xml.headers.etag, /^"7;xml;q\.[A-Za-z0-9_-]+"$/)
  t.equal(xml.headers.etag, (json.headers.etag as string).replace('"7;', '"7;xml;'))
})
