/** The pipeline runs every step it is handed, or registration fails: a step is never dropped. */
import { installPipeline, useRouteStep } from '@restwell/core'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import { planNotFound, planRequest } from '../src/pipeline.js'
import restwell from '../src/index.js'

/** A step of any phase that marks the answer it ran on, and goes on. */
const mark = (_request: FastifyRequest, reply: FastifyReply): undefined => {
  reply.header('x-step', 'ran')
  return undefined
}

/** A plugin of the app that hands a step of `phase` to every route under `name`. */
function handsOver(app: FastifyInstance, phase: 'onSend' | 'preHandler', name: string): void {
  app.addHook('onRoute', function (this: FastifyInstance, route) {
    useRouteStep(this, route, phase, name, mark)
  })
}

test('a route step under a name the pipeline does not list fails the route, named with its phase', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  handsOver(app, 'onSend', 'cachecontrol')
  await app.register(restwell, { rateLimit: false })
  t.throws(() => app.get('/books', async () => []), {
    name: 'RegistrationError',
    code: 'RESTWELL_REGISTRATION',
    message:
      /^restwell: a step "cachecontrol" was handed to the pipeline for the onSend \(SEND_ORDER\) phase of route GET \/books, which lists no such step \(only cors, .*cacheControl.*\), so it would never run/,
  })
})

test('a listed name runs; an unlisted one is refused in every route phase', async (t) => {
  const listed = Fastify()
  t.teardown(() => listed.close())
  // A name still listed as a string ('head' is the pipeline's own, set on HEAD routes only).
  handsOver(listed, 'onSend', 'head')
  await listed.register(restwell, { rateLimit: false })
  listed.get('/books', { config: { auth: false } }, async () => [])
  t.equal((await listed.inject('/books')).headers['x-step'], 'ran')

  const unlisted = Fastify()
  t.teardown(() => unlisted.close())
  handsOver(unlisted, 'preHandler', 'precondition')
  await unlisted.register(restwell, { rateLimit: false })
  t.throws(() => unlisted.get('/books', async () => []), {
    message:
      /"precondition" .* for the preHandler \(PRE_HANDLER_ORDER\) phase of route GET \/books/,
  })
})

test('a step of every request, or of the answers of no route, under an unlisted name is refused', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const pipeline = installPipeline(app)
  const makeRequestPlan = planRequest(app, pipeline)
  pipeline.request.set('corz', mark)
  t.throws(makeRequestPlan, {
    message: /"corz" .* for the onRequest \(REQUEST_ORDER\) phase of every request/,
  })
  pipeline.notFound.set('cache', mark)
  t.throws(() => planNotFound(app, pipeline), {
    message: /"cache" .* for the onSend \(NOT_FOUND_SEND_ORDER\) phase of the answers of no route/,
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
