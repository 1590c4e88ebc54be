import Fastify from 'fastify'
import { defineConvention } from '@restwell/core'
import { installConvention, installPipeline, mergeContributions } from '@restwell/core/internal'
import { test } from 'tap'
import { notFoundInScope, restwellErrors, routeNotFound } from '../src/index.js'

test('routeNotFound: the path as sent, cut at 200 characters, a HEAD named GET', async (t) => {
  const app = Fastify()
  app.setNotFoundHandler((request, reply) => {
    const error = routeNotFound(request)
    reply.code(error.statusCode).send({ message: error.message })
  })
  const length = async (method: 'GET' | 'HEAD' | 'DELETE', url: string) =>
    (await app.inject({ method, url })).headers['content-length']
  t.equal((await app.inject({ url: '/nope?x=1' })).json().message, 'Route GET /nope not found')
  t.equal(await length('HEAD', '/nope'), await length('GET', '/nope'))
  const long = (await app.inject({ method: 'DELETE', url: `/${'a'.repeat(300)}` })).json()
  t.equal(long.message, `Route DELETE /${'a'.repeat(199)}... not found`)
})

test('notFoundInScope: hooks of a sub-plugin reach its unknown paths', async (t) => {
  const app = Fastify()
  notFoundInScope(app, 'probe', 'nothing')
  let seen = 0
  await app.register(
    async (api) => {
      notFoundInScope(api, 'probe', 'nothing')
      api.addHook('onRequest', async (request) => {
        if (request.is404) seen++
      })
      api.get('/books', async () => [])
    },
    { prefix: '/api' },
  )
  const missing = await app.inject('/api/nope')
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().message, 'Route GET /api/nope not found')
  t.equal(seen, 1, "the sub-plugin's hook ran for the unknown path")
  t.equal((await app.inject('/elsewhere')).statusCode, 404, "the root's path is unchanged")
})

test("notFoundInScope: a sub-plugin's own handler is kept; errors' in a parent is refused", async (t) => {
  const own = Fastify()
  await own.register(
    async (api) => {
      api.setNotFoundHandler((_request, reply) => reply.code(404).send('own'))
      notFoundInScope(api, 'probe', 'nothing')
    },
    { prefix: '/api' },
  )
  t.equal((await own.inject('/api/x')).body, 'own')

  const same = Fastify()
  await same.register(async (api) => {
    await api.register(restwellErrors)
    notFoundInScope(api, 'probe', 'nothing')
  })
  t.equal((await same.inject('/x')).json().error.code, 'NOT_FOUND', 'errors in the same plugin')

  const parent = Fastify()
  await parent.register(restwellErrors)
  parent.register(async (api) => notFoundInScope(api, 'probe', 'its hooks'))
  await t.rejects(async () => {
    await parent.ready()
  }, /probe: registered in a plugin whose unmatched requests are answered by the not-found handler @restwell\/errors set in a parent plugin, which does not run this plugin's hooks \(its hooks\)/)
})

test("under a pipeline, the not-found handler's preHandler runs the steps handed to it", async (t) => {
  const app = Fastify()
  installPipeline(app)
  await app.register(restwellErrors)
  const seen: string[] = []
  const probe = defineConvention({
    name: 'probe',
    plugin: '@test/probe',
    phases: ['notFoundHandler'],
    routeConfigKey: false,
    options: () => ({}),
    setup: () => undefined,
    app: () => ({
      notFoundHandler: (request) => {
        seen.push(request.url)
        return undefined
      },
    }),
  })
  await installConvention(
    app,
    probe,
    {},
    {
      pipeline: true,
      contributions: () => mergeContributions([]),
    },
  )
  app.get('/gone', async (_request, reply) => reply.callNotFound())
  t.equal((await app.inject('/gone')).statusCode, 404)
  t.equal((await app.inject('/nothing')).statusCode, 404)
  t.same(seen, ['/gone', '/nothing'], 'what callNotFound runs, and every unknown path')
  t.notMatch(app.printRoutes({ includeHooks: true }), /preHandler/, 'no route hook of its own')
})
