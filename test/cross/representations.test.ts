/** Cross-plugin: pages and errors in every representation, ETags per representation and coding. */
import Fastify, { type FastifyInstance } from 'fastify'
import restwell from 'restwell'
import tap, { test } from 'tap'

interface Book {
  id: number
  title: string
}
const BOOKS: Book[] = Array.from({ length: 45 }, (_, i) => ({ id: i + 1, title: `Book ${i + 1}` }))

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

async function build(): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell)
  app.get(
    '/books',
    {
      config: {
        pagination: { sortable: ['title', 'id'] },
        negotiation: { type: 'books', collection: 'books' },
      },
    },
    async (request, reply) => {
      const { offset, limit } = request.pagination!
      return reply.paginate(BOOKS.slice(offset, offset + limit), { total: BOOKS.length })
    },
  )
  app.get(
    '/books/:id',
    { config: { negotiation: { type: 'books' } } },
    async (request) => BOOKS[Number((request.params as { id: string }).id) - 1],
  )
  return app
}

test('a HAL page: _links (self, first, next, last with href) and _embedded', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/books?page=2&limit=10',
    headers: { accept: 'application/hal+json' },
  })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/hal\+json/)
  t.match(res.headers.vary, /accept/i)
  const body = res.json()
  t.equal(body._links.self.href, '/books?page=2&limit=10')
  t.equal(body._links.next.href, '/books?page=3&limit=10')
  t.equal(body._links.prev.href, '/books?page=1&limit=10')
  t.equal(body._links.first.href, '/books?page=1&limit=10')
  t.equal(body._links.last.href, '/books?page=5&limit=10')
  t.equal(body._embedded.books.length, 10)
  t.equal(body._embedded.books[0].id, 11)
  t.match(res.headers.link, /rel="next"/)
  t.equal(res.headers['x-total-count'], '45')
  t.ok(res.headers.etag)
})

test('a JSON:API page: data of { type, id, attributes }, links and meta', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/books?limit=5',
    headers: { accept: 'application/vnd.api+json' },
  })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/vnd\.api\+json/)
  const body = res.json()
  t.equal(body.data.length, 5)
  t.same(body.data[0], {
    type: 'books',
    id: '1',
    attributes: { title: 'Book 1' },
    links: { self: '/books/1' },
  })
  t.match(body.links, { self: String, next: String, last: String })
  t.match(body.meta, { total: 45 })
})

test('a Siren page and a plain JSON page', async (t) => {
  const app = await build()
  const siren = await app.inject({
    url: '/books?limit=5&page=9',
    headers: { accept: 'application/vnd.siren+json' },
  })
  t.equal(siren.statusCode, 200)
  const body = siren.json()
  t.equal(body.entities.length, 5)
  t.ok(body.links.some((l: { rel: string[] }) => l.rel.includes('prev')))
  t.notOk(
    body.links.some((l: { rel: string[] }) => l.rel.includes('next')),
    'the last page has no next',
  )
  const json = await app.inject({ url: '/books?limit=5' })
  t.match(json.json(), { data: Array, meta: { total: 45 }, links: { next: String } })
})

test('JSON and XML of one resource get different ETags, and each revalidates', async (t) => {
  const app = await build()
  const json = await app.inject({ url: '/books/3' })
  const xml = await app.inject({ url: '/books/3', headers: { accept: 'application/xml' } })
  t.match(xml.headers['content-type'], /^application\/xml/)
  t.match(xml.body, /<title>Book 3<\/title>/)
  t.ok(json.headers.etag)
  t.not(json.headers.etag, xml.headers.etag)
  const notModified = await app.inject({
    url: '/books/3',
    headers: { accept: 'application/xml', 'if-none-match': String(xml.headers.etag) },
  })
  t.equal(notModified.statusCode, 304)
  t.match(notModified.headers.vary, /accept/i)
  const crossed = await app.inject({
    url: '/books/3',
    headers: { 'if-none-match': String(xml.headers.etag) },
  })
  t.equal(crossed.statusCode, 200, "XML's tag does not validate the JSON representation")
})

test('a version gives each representation its own strong tag: "1", "1;xml", "1;json;de"', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, { negotiation: { languages: ['en', 'de'] } })
  const book = { id: 1, title: 'Dune', version: 1 }
  app.get('/books/:id', async (_request, reply) => {
    reply.etag(book.version)
    return book
  })
  app.put(
    '/books/:id',
    { config: { conditional: { getValidator: () => ({ etag: book.version }) } } },
    async (_request, reply) => {
      book.version++
      return reply.etag(book.version).send(book)
    },
  )
  const tags: Record<string, unknown> = {}
  for (const [name, headers] of [
    ['json', {}],
    ['xml', { accept: 'application/xml' }],
    ['hal', { accept: 'application/hal+json' }],
    ['jsonapi', { accept: 'application/vnd.api+json' }],
    ['siren', { accept: 'application/vnd.siren+json' }],
    ['german', { 'accept-language': 'de' }],
    ['german xml', { accept: 'application/xml', 'accept-language': 'de' }],
  ] as const) {
    tags[name] = (await app.inject({ url: '/books/1', headers })).headers.etag
  }
  t.same(tags, {
    json: '"1"',
    xml: '"1;xml"',
    hal: '"1;hal"',
    jsonapi: '"1;jsonapi"',
    siren: '"1;siren"',
    german: '"1;json;de"',
    'german xml': '"1;xml;de"',
  })
  // The tag taken from the JSON names the JSON only (RFC 9110 §8.8.3).
  const crossed = await app.inject({
    url: '/books/1',
    headers: { accept: 'application/xml', 'if-none-match': '"1"' },
  })
  t.same([crossed.statusCode, crossed.headers.etag], [200, '"1;xml"'])
  const own = await app.inject({
    url: '/books/1',
    headers: { accept: 'application/xml', 'if-none-match': '"1;xml"' },
  })
  t.equal(own.statusCode, 304)
  // A write holds with the tag of any form of the current state; its answer names its own.
  const put = await app.inject({
    method: 'PUT',
    url: '/books/1',
    headers: { accept: 'application/xml', 'if-match': '"1;json;de"' },
    payload: {},
  })
  t.same([put.statusCode, put.headers.etag], [200, '"2;xml"'])
})

test('error bodies follow the representation: XML for an XML-only client', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/books?limit=1000', headers: { accept: 'application/xml' } })
  t.equal(res.statusCode, 400)
  t.match(res.headers['content-type'], /xml/)
  t.match(res.body, /INVALID_PAGINATION/)
  t.match(res.body, /querystring\/limit/)
  const json = await app.inject({ url: '/books?limit=1000' })
  t.equal(json.json().error.code, 'INVALID_PAGINATION')
  t.equal(json.json().error.details[0].field, 'querystring/limit')
})
