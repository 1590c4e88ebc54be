/** The pipeline runs every step it is handed, or registration fails: a step is never dropped. */
import { defineConvention, type RoutePhase } from '@restwell/core'
import { installConvention, installPipeline, mergeContributions } from '@restwell/core/internal'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import { planNotFound, planRequest, planRoute } from '../src/pipeline.js'
import restwell from '../src/index.js'

/** A step of any phase that marks the answer it ran on, and goes on. */
const mark = (_request: FastifyRequest, reply: FastifyReply): undefined => {
  reply.header('x-step', 'ran')
  return undefined
}

/** A convention of the app's own, which no list of the pipeline names, with a step in `phase`. */
const stranger = (phase: 'send' | 'beforeHandler') =>
  defineConvention({
    name: 'stranger',
    plugin: '@test/stranger',
    phases: [phase, 'request', 'notFoundSend'],
    routeConfigKey: false,
    options: () => ({}),
    setup: () => undefined,
    app: () => ({ request: mark, notFoundSend: mark }),
    route: () => ({ [phase]: mark }) as { [K in RoutePhase]?: typeof mark },
  })

/** An app whose pipeline has `convention` installed and plans every route added after. */
async function planned(convention: ReturnType<typeof stranger>): Promise<FastifyInstance> {
  const app = Fastify()
  const pipeline = installPipeline(app)
  await installConvention(
    app,
    convention,
    {},
    {
      pipeline: true,
      contributions: () => mergeContributions([]),
    },
  )
  app.addHook('onRoute', function (route) {
    planRoute(pipeline, this, route)
  })
  return app
}

test('a route step of a convention the pipeline does not list fails the route, named with its phase', async (t) => {
  const send = await planned(stranger('send'))
  t.teardown(() => send.close())
  t.throws(() => send.get('/books', async () => []), {
    name: 'RegistrationError',
    code: 'RESTWELL_REGISTRATION',
    message:
      /^restwell: a step "stranger" was handed to the pipeline for the onSend \(SEND_ORDER\) phase of route GET \/books, which lists no such step \(only cors, .*cacheControl.*\), so it would never run/,
  })
  const before = await planned(stranger('beforeHandler'))
  t.teardown(() => before.close())
  t.throws(() => before.get('/books', async () => []), {
    message: /"stranger" .* for the preHandler \(PRE_HANDLER_ORDER\) phase of route GET \/books/,
  })
})

test('a step of every request, or of the answers of no route, of an unlisted convention is refused', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const pipeline = installPipeline(app)
  const makeRequestPlan = planRequest(app, pipeline)
  const convention = stranger('send')
  pipeline.request.set(convention, mark)
  t.throws(makeRequestPlan, {
    message: /"stranger" .* for the onRequest \(REQUEST_ORDER\) phase of every request/,
  })
  pipeline.notFound.set(convention, mark)
  t.throws(() => planNotFound(app, pipeline), {
    message:
      /"stranger" .* for the onSend \(NOT_FOUND_SEND_ORDER\) phase of the answers of no route/,
  })
})

test('with nothing to add to answers of no route, the pipeline adds no root onSend hook', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwell, {
    rateLimit: false,
    cors: false,
    cacheControl: false,
    patch: false,
    negotiation: false,
  })
  app.get('/x', async () => 'x')
  await app.ready()
  t.notMatch(app.printRoutes({ includeHooks: true }), /restwellSendNotFound/)
  t.equal((await app.inject('/nope')).statusCode, 404)
})
