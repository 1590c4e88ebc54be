/** Under the umbrella's pipeline: the send steps are handed over, not installed as hooks. */
import compress from '@fastify/compress'
import { installPipeline, sendStepsOf } from '@restwell/core'
import Fastify from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'

test('under a pipeline, a read route hands over its two send steps and gets no onSend hook', async (t) => {
  const app = Fastify()
  installPipeline(app)
  await app.register(restwellConditional)
  const steps: Record<string, string[]> = {}
  app.addHook('onRoute', (route) => {
    steps[`${route.method} ${route.url}`] = [...sendStepsOf(route).keys()]
  })
  app.get('/books/:id', async () => ({ id: 1 }))
  app.put('/books/:id', { config: { conditional: { getValidator: () => null } } }, async () => 'x')
  await app.ready()
  t.same(steps, {
    'GET /books/:id': ['conditional', 'conditionalCoding'],
    'HEAD /books/:id': ['conditional', 'conditionalCoding'],
    'PUT /books/:id': [],
  })
  t.notMatch(app.printRoutes({ includeHooks: true }), /conditionalSend/)
})

test('under a pipeline beside @fastify/compress, strong tags fail ready() with the fix of the umbrella', async (t) => {
  const app = Fastify()
  installPipeline(app)
  await app.register(restwellConditional)
  await app.register(compress)
  app.get('/books', async () => [])
  await t.rejects(async () => app.ready(), {
    message:
      /^@restwell\/conditional: GET \/books, HEAD \/books hash strong ETags, .*Remove @fastify\/compress and turn restwell's `compress` option on/,
  })
})
