/**
 * Every route of the app is restwell's, or `ready()` fails: restwell registered inside an
 * encapsulated plugin (the `@fastify/autoload` layout that forgot `fastify-plugin`, whose own
 * test is in `test/cross/autoload.test.ts`) reaches none of the routes outside it, whatever the
 * order they were added in.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { test } from 'tap'
import restwell from '../src/index.js'

interface Failure {
  code?: string
  routes?: readonly string[]
  message?: string
}

async function readyFailure(app: FastifyInstance): Promise<Failure | undefined> {
  return app.ready().then(
    () => undefined,
    (error: unknown) => error as Failure,
  )
}

const OUTSIDE =
  /^restwell: .* are outside the plugin restwell was registered in, which is encapsulated \(not wrapped with `fastify-plugin`.*\. Register restwell at the root, `await app\.register\(restwell\)`, or wrap the plugin that registers it with `fastify-plugin`\.$/

test('restwell in an encapsulated plugin: the routes of every other scope fail ready(), named', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/health', async () => ({ ok: true }))
  await app.register(async (plugins) => {
    await plugins.register(restwell, { rateLimit: false })
    plugins.get('/inside', { config: { auth: false } }, async () => 'reached')
  })
  await app.register(
    async (api) => {
      api.get('/books', async () => [])
      api.get('/crash', async () => {
        throw new Error('secret-leak')
      })
    },
    { prefix: '/api' },
  )
  app.get('/later', async () => 'x')
  const failure = await readyFailure(app)
  t.equal(failure?.code, 'RESTWELL_ROUTES_OUT_OF_REACH')
  t.same(failure?.routes, [
    'GET /health',
    'HEAD /health',
    'GET /api/books',
    'HEAD /api/books',
    'GET /api/crash',
    'HEAD /api/crash',
    'GET /later',
    'HEAD /later',
  ])
  t.match(failure?.message, OUTSIDE)
})

test('restwell wrapped with fastify-plugin reaches every scope: the conventions apply', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fp(async (plugins) => plugins.register(restwell, { rateLimit: false })))
  await app.register(
    async (api) => {
      api.get('/crash', { config: { auth: false } }, async () => {
        throw new Error('secret-leak')
      })
    },
    { prefix: '/api' },
  )
  const crash = await app.inject('/api/crash')
  t.equal(crash.statusCode, 500)
  t.notMatch(crash.body, /secret-leak/)
})
