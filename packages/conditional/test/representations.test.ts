/**
 * ETags of representations (RFC 9110 §8.8.3): a version's tag names one representation only, so
 * another media type or language (the `REPRESENTATION` a negotiation plugin sets) gets `;<key>`;
 * reads compare the selected representation's tag, writes the stored state's. And tags made of
 * several versions, for a representation built from several stored parts.
 */
import { REPRESENTATION } from '@restwell/core/internal'
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'

interface Book {
  id: string
  title: string
  version: number
}

/** Stands in for `@restwell/negotiation`: `?as=xml` asks for a representation other than the default. */
function negotiate(request: FastifyRequest): void {
  const as = (request.query as { as?: string }).as
  if (as !== undefined) (request as unknown as Record<symbol, string>)[REPRESENTATION] = as
}

async function build(): Promise<{ app: FastifyInstance; book: Book; ran: string[] }> {
  const book: Book = { id: '1', title: 'Dune', version: 3 }
  const ran: string[] = []
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional)
  app.addHook('onRequest', async (request) => negotiate(request))
  const getValidator = () => ({ etag: book.version })
  app.get('/given', async (_request, reply) => {
    ran.push('given')
    reply.etag(book.version)
    return `${book.title} in bytes long enough to cut`
  })
  app.get('/stored', { config: { conditional: { getValidator } } }, async () => {
    ran.push('stored')
    return book
  })
  app.get('/field', { config: { conditional: { etagField: 'version' } } }, async () => book)
  app.get('/hashed', async () => book)
  app.put('/stored', { config: { conditional: { getValidator } } }, async (_request, reply) => {
    ran.push('put')
    book.version++
    return reply.etag(book.version).send(book)
  })
  return { app, book, ran }
}

test('a version gives the default representation "3", another one "3;<key>"', async (t) => {
  const { app } = await build()
  for (const url of ['/given', '/stored', '/field']) {
    t.equal((await app.inject(url)).headers.etag, '"3"', url)
    t.equal((await app.inject(`${url}?as=xml`)).headers.etag, '"3;xml"', `${url}?as=xml`)
    t.equal((await app.inject(`${url}?as=hal;de`)).headers.etag, '"3;hal;de"', `${url}?as=hal;de`)
  }
  const hashed = await app.inject('/hashed?as=xml')
  t.match(hashed.headers.etag, /^"[A-Za-z0-9_-]{27}"$/, 'a hash of the bytes names them already')
})

test('If-None-Match with the JSON tag is no 304 for XML: each representation revalidates its own', async (t) => {
  const { app, ran } = await build()
  for (const url of ['/given', '/stored', '/field']) {
    const other = await app.inject({ url: `${url}?as=xml`, headers: { 'if-none-match': '"3"' } })
    t.equal(other.statusCode, 200, `${url}: "3" names the JSON`)
    t.equal(other.headers.etag, '"3;xml"')
    const own = await app.inject({ url: `${url}?as=xml`, headers: { 'if-none-match': '"3;xml"' } })
    t.same([own.statusCode, own.headers.etag], [304, '"3;xml"'], url)
    const json = await app.inject({ url, headers: { 'if-none-match': '"3;xml"' } })
    t.equal(json.statusCode, 200, `${url}: the XML tag is no 304 for JSON`)
  }
  ran.length = 0
  const gz = await app.inject({
    url: '/stored?as=xml',
    headers: { 'if-none-match': '"3;xml-gzip"', 'accept-encoding': 'gzip' },
  })
  t.same([gz.statusCode, gz.headers.etag], [304, '"3;xml-gzip"'], 'its gzip copy too')
  t.same(ran, [], 'answered from getValidator')
})

test('If-Match on a read and If-Range compare the selected representation', async (t) => {
  const { app } = await build()
  const stale = await app.inject({ url: '/given?as=xml', headers: { 'if-match': '"3"' } })
  t.equal(stale.statusCode, 412, 'If-Match on GET names the representation')
  const own = await app.inject({ url: '/given?as=xml', headers: { 'if-match': '"3;xml"' } })
  t.equal(own.statusCode, 200)
  const range = { range: 'bytes=0-3' }
  const other = await app.inject({ url: '/given?as=xml', headers: { ...range, 'if-range': '"3"' } })
  t.equal(other.statusCode, 200, 'If-Range with the JSON tag: the whole XML, not a part of it')
  const part = await app.inject({
    url: '/given?as=xml',
    headers: { ...range, 'if-range': '"3;xml"' },
  })
  t.same([part.statusCode, part.body], [206, 'Dune'])
})

test('a write: the tag of any representation of the current state holds, its answer is its own', async (t) => {
  const { app, book, ran } = await build()
  for (const held of ['"3;xml"', '"3"', '"3;hal;de-gzip"']) {
    book.version = 3
    const res = await app.inject({
      method: 'PUT',
      url: '/stored?as=xml',
      headers: { 'if-match': held },
    })
    t.same([res.statusCode, res.headers.etag], [200, '"4;xml"'], `If-Match: ${held}`)
  }
  const stale = await app.inject({
    method: 'PUT',
    url: '/stored',
    headers: { 'if-match': '"3;xml"' },
  })
  t.equal(stale.statusCode, 412, 'a tag of an older state')
  const changed = await app.inject({
    method: 'PUT',
    url: '/stored',
    headers: { 'if-none-match': '"4;siren"' },
  })
  t.equal(changed.statusCode, 412, 'If-None-Match on a write: the state it names is current')
  t.same(ran, ['put', 'put', 'put'])
})

test('a tag from several versions: reply.etag([…]), getValidator, the latest Last-Modified', async (t) => {
  const parts = { book: 3, author: 7 }
  const dates = [new Date('2024-05-01T10:00:00Z'), new Date('2024-06-01T10:00:00Z')]
  const app = Fastify()
  await app.register(restwellConditional)
  app.addHook('onRequest', async (request) => negotiate(request))
  app.get('/given', async (_request, reply) => {
    reply.etag([parts.book, parts.author]).lastModified(dates)
    return { title: 'Dune', author: 'Frank Herbert' }
  })
  app.get(
    '/stored',
    {
      config: {
        conditional: {
          getValidator: () => ({ etag: ['v2', parts.book, parts.author], lastModified: dates }),
        },
      },
    },
    async () => ({ title: 'Dune' }),
  )
  const given = await app.inject('/given?as=xml')
  t.equal(given.headers.etag, '"3.7;xml"')
  t.equal(given.headers['last-modified'], 'Sat, 01 Jun 2024 10:00:00 GMT', 'the latest part')
  const stored = await app.inject('/stored')
  t.same(
    [stored.headers.etag, stored.headers['last-modified']],
    ['"v2.3.7"', 'Sat, 01 Jun 2024 10:00:00 GMT'],
  )
  parts.author = 8
  const renamed = await app.inject({ url: '/stored', headers: { 'if-none-match': '"v2.3.7"' } })
  t.same([renamed.statusCode, renamed.headers.etag], [200, '"v2.3.8"'], 'a part changed: a new tag')
  const bad = Fastify()
  await bad.register(restwellConditional)
  bad.get('/x', async (_request, reply) => {
    reply.lastModified([dates[0] as Date, 'nope'])
    return 'x'
  })
  t.equal((await bad.inject('/x')).statusCode, 500, 'one invalid date is a TypeError')
})
