import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { test } from 'tap'
import { app } from './helpers.js'
import type { RouteEntry } from '@restwell/core'
import {
  adoptionBatch,
  checkEveryRoute,
  EarlierRoutesError,
  isPlainSchema,
  onEveryRoute,
  routeConfigReader,
  routesBefore,
  routesOutOfReach,
  type SchemaAccess,
  schemaAccess,
} from '@restwell/core/internal'

/** A plugin that tags every route it sees with a response header. */
const tagger = fp(async (fastify: FastifyInstance, options: { tag: string }) => {
  onEveryRoute(fastify, (route) => {
    const tag: RouteOptions['onSend'] = (_request, reply, payload, done) => {
      reply.header(`x-${options.tag}`, 'yes')
      done(null, payload)
    }
    route.onSend = [...(Array.isArray(route.onSend) ? route.onSend : []), tag]
  })
})

test('a plugin using onEveryRoute sets up routes added before and after it alike', async (t) => {
  const fastify = app()
  fastify.get('/before-call', async () => 'a')
  fastify.register(tagger, { tag: 'one' })
  fastify.get('/before-load', async () => 'b')
  await fastify.after()
  fastify.get('/after', async () => 'c')
  for (const url of ['/before-call', '/before-load', '/after']) {
    const res = await fastify.inject(url)
    t.equal(res.headers['x-one'], 'yes', url)
  }
  // HEAD routes Fastify adds are routes too.
  t.equal((await fastify.inject({ method: 'HEAD', url: '/before-call' })).headers['x-one'], 'yes')
})

test('routesBefore lists the routes of this instance only, and nothing after ready', async (t) => {
  const fastify = app()
  fastify.get('/root', async () => 'a')
  await fastify.register(async (child) => {
    child.get('/child', async () => 'b')
    t.same(
      routesBefore(child).map((r) => r.url),
      ['/child', '/child'],
      'GET and HEAD of the child',
    )
  })
  t.same(
    routesBefore(fastify).map((r) => `${r.method} ${r.url}`),
    ['GET /root', 'HEAD /root'],
  )
  t.same(
    routesOutOfReach(fastify).map((r) => `${r.method} ${r.url}`),
    ['GET /child', 'HEAD /child'],
  )
  await fastify.ready()
  t.same(routesBefore(fastify), [], 'the ledger lets the options go at ready')
})

test('an instance the ledger never saw: empty is fine, routes are refused by name', async (t) => {
  const fastify = app()
  const ledger = Symbol.for('restwell.routeLedger')
  delete (fastify as unknown as Record<symbol, unknown>)[ledger]
  t.same(routesBefore(fastify), [])
  t.same(routesOutOfReach(fastify), [])
  fastify.get('/x', async () => 'x')
  t.throws(() => routesBefore(fastify), EarlierRoutesError)
  t.throws(() => routesBefore(fastify), {
    name: 'EarlierRoutesError',
    code: 'RESTWELL_EARLIER_ROUTES',
  })
  t.throws(() => routesBefore(fastify), /import restwell .* before creating the instance/)
})

test('a batch runs every onRoute hook added during it over the earlier routes, in order', async (t) => {
  const fastify = app()
  fastify.get('/early', async () => 'x')
  const order: string[] = []
  const addHook = fastify.addHook
  const finish = adoptionBatch(fastify)
  onEveryRoute(fastify, (route) => {
    if (route.method === 'GET') order.push(`restwell ${route.url}`)
  })
  fastify.addHook('onRoute', (route) => {
    if (route.method === 'GET') order.push(`other ${route.url}`)
    route.schema = { querystring: { type: 'object' } }
  })
  await fastify.register(async (child) => {
    // A child's hook stays with the child's routes.
    child.addHook('onRoute', (route) => {
      order.push(`child ${route.url}`)
    })
  })
  t.same(order, [], 'nothing runs over earlier routes before the batch ends')
  const adopted = finish()
  t.same(
    adopted.map((r) => `${r.method} ${r.url}`),
    ['GET /early', 'HEAD /early'],
  )
  t.same(order, ['restwell /early', 'other /early'])
  t.equal(adopted[0]!.schema, undefined, 'a route added without a schema keeps none')
  t.equal(fastify.addHook, addHook, 'addHook is restored')
  fastify.get('/late', async () => 'y')
  t.same(order.slice(2), ['restwell /late', 'other /late'], 'hooks stay for later routes')
  await fastify.ready()
  t.equal((await fastify.inject('/early')).statusCode, 200, 'Fastify builds the adopted route')
})

test('a batch restores an addHook the instance did not own', async (t) => {
  const fastify = app()
  const child = Object.create(fastify) as FastifyInstance
  const finish = adoptionBatch(child)
  t.ok(Object.hasOwn(child, 'addHook'))
  finish()
  t.notOk(Object.hasOwn(child, 'addHook'))
  t.equal(child.addHook, fastify.addHook)
})

test('a route that has a schema keeps the new one its hooks give it', async (t) => {
  const fastify = app()
  fastify.get('/early', { schema: { querystring: { type: 'object' } } }, async () => 'x')
  const finish = adoptionBatch(fastify)
  const described = { querystring: { type: 'object', properties: { page: { type: 'integer' } } } }
  fastify.addHook('onRoute', (route) => {
    route.schema = described
  })
  const [route] = finish()
  t.equal(route!.schema, described)
})

test("schemaAccess: JSON Schema may go only where Fastify's own compilers read it", async (t) => {
  const fastify = app()
  const seen: Record<string, SchemaAccess> = {}
  const look = function (this: FastifyInstance, route: RouteEntry): void {
    if (route.method === 'GET') seen[route.url] = schemaAccess(this, route)
  }
  onEveryRoute(fastify, look)
  const validator: RouteOptions['validatorCompiler'] = () => () => true
  const serializer: RouteOptions['serializerCompiler'] = () => (data) => JSON.stringify(data)
  fastify.get('/default', { schema: { querystring: { type: 'object' } } }, async () => 'x')
  fastify.get('/own-validator', { validatorCompiler: validator }, async () => 'x')
  fastify.get('/own-serializer', { serializerCompiler: serializer }, async () => 'x')
  await fastify.register(async (child) => {
    child.setValidatorCompiler(validator)
    child.get('/child-validator', async () => 'x')
    await child.register(async (grandchild) => {
      grandchild.setSerializerCompiler(serializer)
      grandchild.get('/grandchild-both', async () => 'x')
    })
  })
  fastify.get('/after-child', async () => 'x')
  await fastify.ready()
  t.same(seen, {
    '/default': { validation: true, response: true },
    '/own-validator': { validation: false, response: true },
    '/own-serializer': { validation: true, response: false },
    '/child-validator': { validation: false, response: true },
    '/grandchild-both': { validation: false, response: false },
    '/after-child': { validation: true, response: true },
  })
  // At ready Fastify builds its own compilers: a route has to be judged when it is added.
  t.type(fastify.validatorCompiler, 'function')
})

test('isPlainSchema: plain objects only, never an instance a copy would strip', async (t) => {
  class Schema {
    safeParse(): boolean {
      return true
    }
  }
  t.ok(isPlainSchema({ type: 'object' }))
  t.ok(isPlainSchema(Object.create(null)))
  for (const value of [new Schema(), [], null, undefined, 'string', 1, new Map()]) {
    t.notOk(isPlainSchema(value), String(value))
  }
})

test('checkEveryRoute runs over every route of the app at ready, whatever its scope', async (t) => {
  const fastify = app()
  let seen: string[] = []
  await fastify.register(async (scope) => {
    checkEveryRoute(scope, (routes) => {
      seen = routes.map((route) => `${route.method} ${route.url}`)
    })
    scope.get('/inside', async () => 'a')
  })
  fastify.get('/root', async () => 'b')
  await fastify.register(async (sibling) => {
    sibling.addHook('onRoute', (route) => {
      if (route.url === '/refused') throw new Error('refused by a hook')
    })
    sibling.get('/sibling', async () => 'c')
    t.throws(() => sibling.get('/refused', async () => 'd'))
  })
  await fastify.ready()
  t.same(
    seen,
    ['GET /inside', 'HEAD /inside', 'GET /root', 'HEAD /root', 'GET /sibling', 'HEAD /sibling'],
    'a route an onRoute hook refused is not one',
  )
  t.same(routesBefore(fastify), [], 'the options are let go')

  const failing = app()
  checkEveryRoute(failing, () => {
    throw new Error('refused')
  })
  await t.rejects(
    async () => failing.ready(),
    { message: 'refused' },
    'what it throws fails ready()',
  )
})

test('checkEveryRoute on an app created before the ledger existed: its scope chain records', async (t) => {
  const ledger = Symbol.for('restwell.routeLedger')
  const fastify = app()
  delete (fastify as unknown as Record<symbol, unknown>)[ledger]
  let seen: string[] = []
  await fastify.register(async (outer) => {
    await outer.register(async (inner) => {
      checkEveryRoute(inner, (routes) => {
        seen = routes.map((route) => `${route.method} ${route.url}`)
      })
      inner.get('/inner', async () => 'a')
    })
    outer.get('/outer', async () => 'b')
  })
  fastify.get('/root', async () => 'c')
  await fastify.register(async (sibling) => {
    sibling.get('/sibling', async () => 'd')
  })
  await fastify.ready()
  t.same(
    seen.filter((route) => route.startsWith('GET')),
    ['GET /inner', 'GET /outer', 'GET /root', 'GET /sibling'],
    'each route once, from the instance it was added on',
  )

  const late = app()
  delete (late as unknown as Record<symbol, unknown>)[ledger]
  late.get('/x', async () => 'x')
  t.throws(() => checkEveryRoute(late, () => {}), EarlierRoutesError, 'routes it cannot know')
})

test('a route config key is read from the request only once some route sets it', async (t) => {
  const fastify = app()
  fastify.get('/early', { config: { other: true } }, async () => 'early')
  const read = routeConfigReader(fastify, 'cors')
  let reads = 0
  const request = {
    get routeOptions() {
      reads++
      return { config: { cors: false } }
    },
  } as unknown as FastifyRequest
  fastify.get('/plain', async () => 'plain')
  t.equal(read(request), undefined)
  t.equal(reads, 0, 'no route sets cors: routeOptions is never built')
  fastify.get('/private', { config: { cors: false } }, async () => 'private')
  t.equal(read(request), false)
  t.equal(reads, 1)
  const earlier = app()
  earlier.get('/private', { config: { cors: false } }, async () => 'private')
  t.equal(routeConfigReader(earlier, 'cors')(request), false, 'routes added before are seen')
})
