import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import restwellErrors, { httpErrors, RoutesOutOfReachError } from '../src/index.js'
import type { RouteEntry } from '@restwell/core'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

function app(): FastifyInstance {
  const fastify = Fastify()
  apps.push(fastify)
  return fastify
}

test('routes added before the errors plugin was registered still answer in the error form', async (t) => {
  const fastify = app()
  fastify.get('/crash', async () => {
    throw new Error('secret detail')
  })
  fastify.get('/missing', async () => {
    throw httpErrors.notFound('No such thing')
  })
  fastify.get(
    '/own',
    {
      errorHandler: (_error, _request, reply) => {
        reply.code(418).send({ mine: true })
      },
    },
    async () => {
      throw new Error('handled by the route')
    },
  )
  fastify.get('/fine', async () => ({ ok: true }))
  await fastify.register(restwellErrors)
  fastify.get('/later', async () => {
    throw httpErrors.conflict('Taken')
  })
  fastify.get(
    '/later-own',
    {
      errorHandler: (_error, _request, reply) => {
        reply.code(418).send({ later: true })
      },
    },
    async () => {
      throw new Error('handled by the route')
    },
  )
  const crash = await fastify.inject('/crash')
  t.equal(crash.statusCode, 500)
  t.notMatch(crash.body, /secret/)
  t.equal(crash.json().error.code, 'INTERNAL_SERVER_ERROR')
  t.equal(crash.json().error.requestId, crash.headers['x-request-id'])
  t.equal(crash.headers['cache-control'], 'no-store')
  const missing = await fastify.inject('/missing')
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.message, 'No such thing')
  t.same((await fastify.inject('/own')).json(), { mine: true }, "a route's own handler wins")
  t.same((await fastify.inject('/later-own')).json(), { later: true })
  t.same((await fastify.inject('/fine')).json(), { ok: true })
  // A route added after the plugin, and no route at all, go through its own handler.
  const later = await fastify.inject('/later')
  t.equal(later.statusCode, 409)
  t.equal(later.json().error.message, 'Taken')
  const none = await fastify.inject('/nowhere')
  t.equal(none.statusCode, 404)
  t.equal(none.json().error.code, 'NOT_FOUND')
})

test('an error handler the app set before the plugin is kept, for routes added after it too', async (t) => {
  const warnings: string[] = []
  const onWarning = (warning: Error & { code?: string }) => warnings.push(String(warning.code))
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  const fastify = app()
  fastify.setErrorHandler((error: { statusCode?: number; code?: string }, _request, reply) => {
    reply.code(error.statusCode ?? 500).send({ custom: true, code: error.code })
  })
  fastify.get('/crash', async () => {
    throw new Error('x')
  })
  await fastify.register(restwellErrors)
  fastify.get('/later', async () => {
    throw httpErrors.conflict('Taken')
  })
  // The app's handler may answer in the configured form through the plugin.
  fastify.get(
    '/delegated',
    { errorHandler: (error, request, reply) => fastify.restwellErrors.send(error, request, reply) },
    async () => {
      throw new Error('secret detail')
    },
  )
  t.same((await fastify.inject('/crash')).json(), { custom: true })
  t.same((await fastify.inject('/later')).json(), { custom: true, code: 'CONFLICT' })
  const delegated = await fastify.inject('/delegated')
  t.equal(delegated.statusCode, 500)
  t.equal(delegated.json().error.code, 'INTERNAL_SERVER_ERROR')
  t.notMatch(delegated.body, /secret/)
  const missing = await fastify.inject('/nowhere')
  t.equal(missing.json().error.code, 'NOT_FOUND', "the not-found handler is still the plugin's")
  await fastify.ready()
  t.notOk(warnings.includes('FSTWRN004'), 'the handler was never set twice')
})

test('a not-found handler the app set before the plugin is kept', async (t) => {
  const fastify = app()
  fastify.setNotFoundHandler((_request, reply) => reply.code(404).send({ own: true }))
  await fastify.register(restwellErrors)
  fastify.get('/crash', async () => {
    throw new Error('x')
  })
  const missing = await fastify.inject('/nowhere')
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { own: true })
  t.ok(missing.headers['x-request-id'], "the plugin's root hooks still run")
  t.equal((await fastify.inject('/crash')).json().error.code, 'INTERNAL_SERVER_ERROR')
})

test('RoutesOutOfReachError names the routes, at most ten, and the fix', async (t) => {
  const route = (url: string, method: string | string[]) => ({ url, method }) as RouteEntry
  const one = new RoutesOutOfReachError('restwell', [
    route('/a', 'GET'),
    route('/b', ['PUT', 'PATCH']),
  ])
  t.equal(one.code, 'RESTWELL_ROUTES_OUT_OF_REACH')
  t.same(one.routes, ['GET /a', 'PUT,PATCH /b'])
  t.match(
    one.message,
    /^restwell: GET \/a, PUT,PATCH \/b were declared in plugins that loaded before restwell; /,
  )
  t.match(one.message, /`await app.register\(restwell\)` before/)
  const many = new RoutesOutOfReachError(
    'x',
    Array.from({ length: 12 }, (_, i) => route(`/r${i}`, 'GET')),
  )
  t.equal(many.routes.length, 12)
  t.match(many.message, /GET \/r9 and 2 more were declared/)
  t.notMatch(many.message, /\/r10/)
  const outside = new RoutesOutOfReachError('restwell', [route('/api/books', 'GET')], 'outside')
  t.same(outside.routes, ['GET /api/books'])
  t.equal(
    outside.message,
    'restwell: GET /api/books are outside the plugin restwell was registered in, which is encapsulated (not wrapped with `fastify-plugin`, as a `plugins/` file of `@fastify/autoload` must be), so none of its conventions (nor its masked 500s) would apply to them. Register restwell at the root, `await app.register(restwell)`, or wrap the plugin that registers it with `fastify-plugin`.',
  )
})
