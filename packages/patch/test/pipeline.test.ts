/** Under the umbrella's pipeline: Accept-Patch and the 204 are send steps handed over. */
import { installPipeline, sendStepsOf } from '@restwell/core'
import Fastify from 'fastify'
import { test } from 'tap'
import { restwellPatch } from '../src/index.js'

test('under a pipeline, the 204 and Accept-Patch steps are handed over, not hooked', async (t) => {
  const app = Fastify()
  const pipeline = installPipeline(app)
  await app.register(restwellPatch, { status: 204 })
  const steps: Record<string, string[]> = {}
  app.addHook('onRoute', (route) => {
    steps[`${[route.method].flat().join(',')} ${route.url}`] = [...sendStepsOf(route).keys()]
  })
  app.patch('/books/:id', async () => ({ id: 1 }))
  app.options('/books/:id', async () => 'ok')
  await app.ready()
  t.same(steps, { 'PATCH /books/:id': ['patch'], 'OPTIONS /books/:id': ['acceptPatch'] })
  t.same([...pipeline.notFound.keys()], ['acceptPatch'])
  t.notMatch(app.printRoutes({ includeHooks: true }), /onSend|advertiseAcceptPatch/)
})
