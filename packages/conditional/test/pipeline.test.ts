/** Under the umbrella's pipeline: the steps are handed over, not installed as hooks. */
import compress from '@fastify/compress'
import type { RouteEntry } from '@restwell/core'
import { installPipeline, type Pipeline, pipelineRouteSteps } from '@restwell/core/internal'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'

/** What the umbrella does as each route is added: it asks every convention for its steps. */
function planEveryRoute(app: FastifyInstance, pipeline: Pipeline, seen?: Record<string, string[]>) {
  app.addHook('onRoute', function plan(this: FastifyInstance, route: RouteEntry) {
    const phases = pipelineRouteSteps(pipeline, this, route)
    if (seen !== undefined) seen[`${route.method} ${route.url}`] = [...phases.keys()]
  })
}

test('under a pipeline, a route hands over its steps and gets no hook of its own', async (t) => {
  const app = Fastify()
  const pipeline = installPipeline(app)
  await app.register(restwellConditional)
  const steps: Record<string, string[]> = {}
  planEveryRoute(app, pipeline, steps)
  app.get('/books/:id', async () => ({ id: 1 }))
  app.put('/books/:id', { config: { conditional: { getValidator: () => null } } }, async () => 'x')
  app.post('/books', { config: { conditional: false } }, async () => 'x')
  await app.ready()
  t.same(steps, {
    'GET /books/:id': ['serialize', 'send'],
    'HEAD /books/:id': ['serialize', 'send'],
    'PUT /books/:id': ['beforeHandler'],
    'POST /books': [],
  })
  t.notMatch(app.printRoutes({ includeHooks: true }), /conditional/)
})

test('under a pipeline beside @fastify/compress, strong tags fail ready() with the fix of the umbrella', async (t) => {
  const app = Fastify()
  const pipeline = installPipeline(app)
  await app.register(restwellConditional)
  await app.register(compress)
  planEveryRoute(app, pipeline)
  app.get('/books', async () => [])
  await t.rejects(async () => app.ready(), {
    message:
      /^@restwell\/conditional: GET \/books, HEAD \/books hash strong ETags, .*Remove @fastify\/compress and turn restwell's `compress` option on/,
  })
})
