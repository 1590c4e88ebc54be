import type { IncomingMessage } from 'node:http'
import Fastify from 'fastify'
import { test } from 'tap'
import { app } from './helpers.js'
import { type RouteEntry, routeName } from '@restwell/core'
import {
  initialOptions,
  installPipeline,
  keyedConstraintStore,
  lookupConstraints,
  OVERRIDE_TWIN,
  onEveryRoute,
  overrideTwinOf,
  routeLookup,
  runWhenPlanned,
  servedMethods,
  setScopeRouteDefaults,
  shareLookupConstraint,
  snapshotRoutes,
  twinSourceOf,
  VERSION_PAIR,
  type VersionPair,
  versionPairOf,
  whenPlanned,
} from '@restwell/core/internal'

const noop = async () => 'ok'

test('initialOptions: a route as its first onRoute hook saw it, before later hooks changed it', async (t) => {
  const fastify = app()
  const seen: RouteEntry[] = []
  fastify.addHook('onRoute', (route) => {
    route.config = { ...route.config, changed: true } as RouteEntry['config']
    seen.push(route)
  })
  fastify.get('/early', noop)
  snapshotRoutes(fastify)
  snapshotRoutes(fastify) // once per instance
  fastify.get('/books', { config: { own: 1 } }, noop)
  await fastify.ready()
  const books = seen.find((route) => route.url === '/books') as RouteEntry
  t.same(books.config, { own: 1, changed: true })
  t.same(initialOptions(books)?.config, { own: 1 }, 'the options as Fastify gave them')
  t.equal(initialOptions(books)?.handler, noop)
  const early = seen.find((route) => route.url === '/early') as RouteEntry
  t.equal(initialOptions(early)?.url, '/early', 'the ledger snapshots from the instance creation')
})

test('whenPlanned: alone at once; under a pipeline when runWhenPlanned says the plan is made', async (t) => {
  const ran: string[] = []
  const alone = app()
  onEveryRoute(alone, function (route) {
    whenPlanned(this, route, () => ran.push(`alone ${route.url}`))
  })
  alone.delete('/a', noop)
  t.same(ran, ['alone /a'])

  const umbrella = app()
  installPipeline(umbrella)
  const kept: RouteEntry[] = []
  onEveryRoute(umbrella, function (route) {
    whenPlanned(this, route, () => ran.push(`piped ${route.url}`))
    kept.push(route)
  })
  umbrella.delete('/b', noop)
  t.same(ran, ['alone /a'], 'waits for the plan')
  runWhenPlanned(kept[0] as RouteEntry)
  runWhenPlanned(kept[0] as RouteEntry)
  t.same(ran, ['alone /a', 'piped /b'], 'runs once')
})

test('a twin is named and planned by the method it stands for, and never looked up', async (t) => {
  const fastify = Fastify()
  t.teardown(() => fastify.close())
  const plain = { method: ['PUT', 'PATCH'], url: '/books/:id' } as const
  t.same(servedMethods(plain), ['PUT', 'PATCH'])
  t.equal(routeName(plain), 'PUT,PATCH /books/:id')
  t.same(servedMethods({ method: 'GET', url: '/' }), ['GET'])
  t.equal(overrideTwinOf({ config: {} }), undefined)
  const of = { method: 'PUT', url: '/books/:id' } as unknown as RouteEntry
  const twin = {
    method: 'POST',
    url: '/books/:id',
    config: { [OVERRIDE_TWIN]: { method: 'PUT', of } },
  }
  t.same(overrideTwinOf(twin), { method: 'PUT', of })
  t.same(servedMethods(twin), ['PUT'])
  t.equal(routeName(twin), 'PUT /books/:id')

  const lookup = routeLookup(
    fastify,
    (route) => String(route.method),
    (a) => a,
  )
  fastify.post('/books/:id', { config: { [OVERRIDE_TWIN]: { method: 'PUT', of } } }, noop)
  fastify.post('/books', noop)
  t.equal(lookup.find('POST', '/books/7'), undefined, 'the twin is left out')
  t.equal(lookup.find('POST', '/books'), 'POST')
})

test('version pairs: versionPairOf reads the mark, twinSourceOf the route a twin was made from', async (t) => {
  const of = { method: 'GET', url: '/v1/books' } as RouteEntry
  const copy: VersionPair = { version: 1, prefixed: false, of }
  t.same(versionPairOf({ config: { [VERSION_PAIR]: copy } }), copy)
  t.equal(versionPairOf({}), undefined)
  t.equal(twinSourceOf({ config: { [VERSION_PAIR]: copy } }), of, "a version's twin")
  t.equal(
    twinSourceOf({ config: { [OVERRIDE_TWIN]: { method: 'PUT', of } } }),
    of,
    "method override's twin",
  )
  t.equal(
    twinSourceOf({ config: { [VERSION_PAIR]: { version: 1, prefixed: true } } }),
    undefined,
    'a route no one made',
  )
})

test('setScopeRouteDefaults: every route of the scope and below, before any onRoute hook', async (t) => {
  const fastify = app()
  snapshotRoutes(fastify)
  const seen: string[] = []
  fastify.addHook('onRoute', (route) => {
    if (route.method === 'GET') seen.push(`${route.url} ${JSON.stringify(route.constraints ?? {})}`)
  })
  let books: RouteEntry | undefined
  await fastify.register(async (scope) => {
    setScopeRouteDefaults(scope, (route) => {
      route.constraints = { ...route.constraints, host: 'example.com' }
    })
    scope.addHook('onRoute', (route) => {
      if (route.url === '/books') books = route
    })
    scope.get('/books', noop)
    await scope.register(async (child) => {
      child.get('/child', noop)
    })
  })
  fastify.get('/outside', noop)
  await fastify.ready()
  t.same(seen, ['/books {"host":"example.com"}', '/child {"host":"example.com"}', '/outside {}'])
  t.same(initialOptions(books as RouteEntry)?.constraints, { host: 'example.com' })
  const found = await fastify.inject({ url: '/books', headers: { host: 'example.com' } })
  t.equal(found.statusCode, 200)
  t.equal((await fastify.inject('/books')).statusCode, 404, 'declared under the constraint')
})

test('lookupConstraints: the values the shared constraints derive for a request', async (t) => {
  const fastify = app()
  const raw = { url: '/books' } as IncomingMessage
  t.equal(lookupConstraints(fastify, raw), undefined, 'none shared')
  shareLookupConstraint(fastify, 'tenant', (request) => `${request.url}!`)
  shareLookupConstraint(fastify, 'zone', () => undefined)
  t.same(lookupConstraints(fastify, raw), { tenant: '/books!', zone: undefined })
})

test('keyedConstraintStore: strings are keys; anything else is turned into one', async (t) => {
  const store = keyedConstraintStore((asked) => (asked === 'none' ? null : String(asked)))
  store.set('2', 0b10)
  t.equal(store.get('2'), 0b10)
  t.equal(store.get('3'), null)
  t.equal(store.get(2), 0b10, 'a derived value, through keyOf')
  const noKey = keyedConstraintStore(() => null)
  noKey.set('x', 1)
  t.equal(noKey.get({}), null)
})
