import { routeLookup } from '@restwell/core/internal'
import Fastify from 'fastify'
import fc from 'fast-check'
import { test } from 'tap'

const noop = async () => 'ok'

test('finds the route a method and URL reach, as Fastify routes them', async (t) => {
  const app = Fastify()
  app.get('/early/:id', noop) // before the lookup: still kept
  const lookup = routeLookup(
    app,
    (route) => (route.url === '/skip' ? undefined : route.url),
    (a, b) => `${a}|${b}`,
  )
  t.equal(lookup.find('GET', '/books'), undefined, 'no route yet')
  app.get('/books/new', noop)
  app.get('/books/:id', noop)
  app.get('/skip', noop)
  app.route({ method: ['PATCH', 'PUT'], url: '/books/:id/cover', handler: noop })
  app.get('/files/*', noop)
  app.get('/hosted', { constraints: { host: 'a.example' } }, noop)
  app.get('/hosted', { constraints: { host: 'b.example' } }, noop)
  await app.register(
    async (child) => {
      child.get('/', noop)
    },
    { prefix: '/shelf' },
  )
  await app.ready()
  t.equal(lookup.find('GET', '/early/1'), '/early/:id')
  t.equal(lookup.find('GET', '/books/new'), '/books/new', 'static wins')
  t.equal(lookup.find('GET', '/books/7?x=1'), '/books/:id', 'the query is ignored')
  t.equal(lookup.find('PUT', '/books/7/cover'), '/books/:id/cover')
  t.equal(lookup.find('GET', '/books/7/cover'), undefined, 'no GET there')
  t.equal(lookup.find('GET', '/files/a/b'), '/files/*')
  t.equal(lookup.find('GET', '/skip'), undefined, 'a route without a value is not kept')
  t.equal(lookup.find('GET', '/hosted'), '/hosted|/hosted', 'constraints share one entry')
  t.equal(lookup.find('GET', '/shelf'), '/shelf')
  t.equal(lookup.find('GET', '/shelf/'), '/shelf', "the prefix's trailing slash too")
  t.equal(lookup.find('BREW', '/books/7'), undefined, 'a method no route has')
  // The same answer as Fastify's own router for any path.
  fc.assert(
    fc.property(fc.webPath(), (path) => {
      const url = path === '' ? '/' : path
      const found = lookup.find('GET', url) !== undefined
      return found === (app.findRoute({ method: 'GET', url }) !== null) || url.startsWith('/skip')
    }),
  )
  await app.close()
})

test("the app's matching options", async (t) => {
  const app = Fastify({ routerOptions: { caseSensitive: false, ignoreTrailingSlash: true } })
  const lookup = routeLookup(
    app,
    () => true,
    (a) => a,
  )
  app.get('/Books', noop)
  app.register(async (child) => child.get('/', noop), { prefix: '/shelf' })
  await app.ready()
  t.equal(lookup.find('GET', '/books/'), true)
  t.equal(lookup.find('GET', '/shelf/'), true)
  await app.close()

  const slashes = Fastify({ routerOptions: { ignoreDuplicateSlashes: true } })
  const kept = routeLookup(
    slashes,
    () => true,
    (a) => a,
  )
  const none = routeLookup(
    slashes,
    () => undefined,
    (a) => a,
  )
  slashes.register(async (child) => child.get('/', noop), { prefix: '/shelf/' })
  await slashes.ready()
  t.equal(kept.find('GET', '/shelf//'), true)
  t.equal(none.find('GET', '/shelf/'), undefined, 'nothing kept: nothing found')
  await slashes.close()
})
