/**
 * Links of a rerouted request: a rewriter on `@restwell/reroute` (as versioning and method
 * override use it) routes the request afresh with the internal method and URL; the client's
 * URL stays `request.originalUrl`.
 */
import restwellErrors from '@restwell/errors'
import { addRewriter } from '@restwell/reroute'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellNegotiation } from '../src/index.js'

/** `/books…` is served by `/v2/books…` (a version by query or default, prefix carrier off). */
function rewrite(method: string, url: string): { method: string; url: string } {
  if (!url.startsWith('/books')) return { method, url }
  if (method === 'POST' && url.includes('_method=PATCH')) {
    return { method: 'PATCH', url: `/v2${url.replace('_method=PATCH&', '')}` }
  }
  return { method, url: `/v2${url}` }
}

async function build(): Promise<FastifyInstance> {
  const app = Fastify()
  addRewriter(app, {
    name: 'test-reroute',
    order: 20,
    rewrite: (target) => {
      const next = rewrite(target.method, target.url)
      target.method = next.method
      target.url = next.url
    },
  })
  await app.register(restwellErrors)
  await app.register(restwellNegotiation)
  const book = async (request: { params: unknown }) => ({
    id: Number((request.params as { id: string }).id),
    title: 'Dune',
  })
  app.get('/v2/books/:id', { config: { negotiation: { type: 'books' } } }, book)
  app.patch('/v2/books/:id', { config: { negotiation: { type: 'books' } } }, book)
  app.get('/v2/books', { config: { negotiation: { type: 'books' } } }, async () => [
    { id: 1, title: 'A' },
  ])
  return app
}

const HAL = { accept: 'application/hal+json' }

test('self links and item links name the URL the client sent, not the rerouted one', async (t) => {
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
  t.same(direct.json()._links.self, { href: '/v2/books/7' }, 'not rerouted: as sent')
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
