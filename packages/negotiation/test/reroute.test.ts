/**
 * Links of a request served under another URL: Fastify's `rewriteUrl` serves `/books…` by
 * `/v2/books…`, and a rewriter on `@restwell/reroute` turns an overridden POST into a PATCH in
 * place (as method override does once its twin route is reached). The client's URL stays
 * `request.originalUrl`.
 */
import restwellErrors from '@restwell/errors'
import { addRewriter } from '@restwell/reroute'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellNegotiation } from '../src/index.js'

async function build(): Promise<FastifyInstance> {
  const app = Fastify({
    rewriteUrl: (req) =>
      (req.url as string).startsWith('/books') ? `/v2${req.url}` : (req.url as string),
  })
  addRewriter(app, {
    name: 'test-override',
    order: 10,
    rewrite: (target) => {
      if (target.method === 'POST' && target.url.includes('_method=PATCH')) {
        target.method = 'PATCH'
        target.url = target.url.replace('_method=PATCH&', '')
      }
    },
  })
  await app.register(restwellErrors)
  await app.register(restwellNegotiation)
  const book = async (request: { params: unknown }) => ({
    id: Number((request.params as { id: string }).id),
    title: 'Dune',
  })
  const config = { negotiation: { type: 'books' } }
  app.get('/v2/books/:id', { config }, book)
  app.patch('/v2/books/:id', { config }, book)
  // The route an overridden POST reaches (method override's twin of the PATCH route).
  app.post('/v2/books/:id', { config }, book)
  app.get('/v2/books', { config }, async () => [{ id: 1, title: 'A' }])
  return app
}

const HAL = { accept: 'application/hal+json' }

test('self links and item links name the URL the client sent, not the one served', async (t) => {
  const app = await build()
  const hal = await app.inject({ url: '/books/7', headers: HAL })
  t.equal(hal.statusCode, 200)
  t.same(hal.json()._links.self, { href: '/books/7' })
  const api = await app.inject({ url: '/books/7?version=2&format=jsonapi' })
  t.equal(api.json().links.self, '/books/7?version=2&format=jsonapi')
  t.equal(api.json().data.links.self, '/books/7?version=2&format=jsonapi')
  const siren = await app.inject({ url: '/books/7?format=siren' })
  t.same(siren.json().links, [{ rel: ['self'], href: '/books/7?format=siren' }])
  const list = await app.inject({ url: '/books?version=2', headers: HAL })
  t.same(list.json()._links.self, { href: '/books?version=2' })
  t.same(list.json()._embedded.books[0]._links.self, { href: '/books/1' }, 'items: client path')
  const direct = await app.inject({ url: '/v2/books/7', headers: HAL })
  t.same(direct.json()._links.self, { href: '/v2/books/7' }, 'not rewritten: as sent')
})

test('a method override parameter is not part of a self link', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'POST',
    url: '/books/7?_method=PATCH&version=2',
    headers: HAL,
  })
  t.equal(res.statusCode, 200)
  t.same(res.json()._links.self, { href: '/books/7?version=2' })
})

test('300: each choice and the Location are the client URL with format set', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/books/7?version=2&format=choices',
    headers: { accept: 'application/xml' },
  })
  t.equal(res.statusCode, 300)
  t.same(res.json().choices.slice(0, 2), [
    { type: 'application/json', href: '/books/7?version=2&format=json' },
    { type: 'application/xml', href: '/books/7?version=2&format=xml' },
  ])
  t.equal(res.headers.location, '/books/7?version=2&format=xml')
  const followed = await app.inject(String(res.headers.location))
  t.equal(followed.statusCode, 200)
  t.equal(followed.headers['content-type'], 'application/xml; charset=utf-8')
})
