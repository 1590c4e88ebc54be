/** Under the umbrella's pipeline: the 415 check, Accept-Patch and the 204 are steps handed over. */
import { installPipeline, pipelineRouteSteps } from '@restwell/core/internal'
import Fastify from 'fastify'
import { test } from 'tap'
import { patch, restwellPatch } from '../src/index.js'

test('under a pipeline, the 204 and Accept-Patch steps are handed over, not hooked', async (t) => {
  const app = Fastify()
  const pipeline = installPipeline(app)
  await app.register(restwellPatch, { status: 204 })
  const steps: Record<string, string[]> = {}
  app.addHook('onRoute', function (route) {
    const byPhase = pipelineRouteSteps(pipeline, this, route)
    steps[`${[route.method].flat().join(',')} ${route.url}`] = [...byPhase].flatMap(
      ([phase, byConvention]) => [...byConvention.keys()].map((key) => `${phase}:${key.name}`),
    )
  })
  app.patch('/books/:id', async () => ({ id: 1 }))
  app.options('/books/:id', async () => 'ok')
  await app.ready()
  t.same(steps, {
    'PATCH /books/:id': ['beforeBody:patch', 'send:patch'],
    'OPTIONS /books/:id': ['send:patch'],
  })
  t.same([...pipeline.notFound.keys()], [patch])
  t.notMatch(app.printRoutes({ includeHooks: true }), /onSend|preParsing|patchAlone/)
})
