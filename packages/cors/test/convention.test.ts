/** CORS as a convention: refused beside @fastify/cors alone, and under a pipeline. */
import fastifyCors from '@fastify/cors'
import type { Contributions, SendStep, SetupContext } from '@restwell/core'
import {
  addRouteHook,
  installConvention,
  installPipeline,
  pipelineRouteSteps,
  requestHook,
  sendHook,
} from '@restwell/core/internal'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import { cors, restwellCors } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

function app(): FastifyInstance {
  const fastify = Fastify()
  apps.push(fastify)
  return fastify
}

test('@fastify/cors beside it fails, registered before or after, and so does a second registration', async (t) => {
  const before = app()
  await before.register(fastifyCors)
  await t.rejects(async () => before.register(restwellCors), {
    name: 'RegistrationError',
    code: 'RESTWELL_REGISTRATION',
    message:
      '@restwell/cors: @fastify/cors is registered before it: both would answer CORS requests and preflights. Register one of them.',
  })
  const after = app()
  await after.register(restwellCors)
  await after.register(fastifyCors)
  await t.rejects(async () => after.ready(), {
    message: /^@restwell\/cors: @fastify\/cors is registered after it/,
  })
  const twice = app()
  await twice.register(restwellCors)
  await t.rejects(async () => twice.register(restwellCors), {
    code: 'RESTWELL_REGISTRATION',
    message: /^@restwell\/cors: registered twice/,
  })
})

/** A pipeline's context whose conventions contribute `contributed`. */
function contextOf(contributed: Contributions, umbrella?: string): SetupContext {
  return {
    pipeline: true,
    ...(umbrella === undefined ? {} : { umbrella }),
    contributions: () => contributed,
  }
}

test('under a pipeline: its steps are handed over, and it lists what the conventions contribute', async (t) => {
  const fastify = app()
  const pipeline = installPipeline(fastify)
  const contributed = {
    queryParameters: [],
    requestHeaders: ['x-tenant', 'Content-Type'],
    responseHeaders: ['X-Total', 'ETag'],
  }
  await installConvention(
    fastify,
    cors,
    { origin: ['https://app.example'], exposedHeaders: ['x-total', 'X-Trace'] },
    contextOf(contributed),
  )
  t.ok(pipeline.request.has(cors), 'its request step, for the pipeline to order')
  t.ok(pipeline.notFound.has(cors), 'and its step for the answers of no route')
  t.notOk(fastify.hasPlugin('@fastify/cors'))
  // The pipeline runs the request step from a hook of its own; here, the test's.
  fastify.addHook('onRequest', requestHook('pipeline', [...pipeline.request.values()]))
  fastify.get('/books', async () => [])
  const actual = await fastify.inject({ url: '/books', headers: { origin: 'https://app.example' } })
  t.equal(
    actual.headers['access-control-expose-headers'],
    'x-total, ETag, X-Trace',
    "only what the conventions say they send, and the option's: each name once",
  )
  const asked = await fastify.inject({
    method: 'OPTIONS',
    url: '/books',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
  })
  t.match(
    asked.headers['access-control-allow-headers'],
    /^Content-Type, authorization, .*, x-request-id, x-tenant$/,
    'the defaults, then what the conventions read: each name once, in its first place',
  )
})

test('installed by the umbrella, its option errors name the umbrella and its option', async (t) => {
  const none = { queryParameters: [], requestHeaders: [], responseHeaders: [] }
  const fastify = app()
  installPipeline(fastify)
  await t.rejects(
    installConvention(fastify, cors, { credentials: true }, contextOf(none, 'restwell')),
    {
      name: 'OptionsError',
      option: 'cors.origin',
      message:
        /^restwell: option "cors\.origin" must name the allowed origins when cors\.credentials is true/,
    },
  )
  const plain = app()
  installPipeline(plain)
  await t.rejects(installConvention(plain, cors, { credentials: true }, contextOf(none)), {
    message: /^@restwell\/cors: option "origin" .* when credentials is true/,
  })
})

test("under a pipeline: a route's answers expose what the context says they may carry, once per route", async (t) => {
  const fastify = app()
  const pipeline = installPipeline(fastify)
  const contributed = {
    queryParameters: [],
    requestHeaders: [],
    responseHeaders: ['ETag', 'X-Total', 'X-Other'],
  }
  const asked: string[] = []
  await installConvention(
    fastify,
    cors,
    { origin: ['https://app.example'], exposedHeaders: ['X-Trace'] },
    {
      ...contextOf(contributed),
      routeResponseHeaders: (_instance, route) => {
        asked.push(route.url)
        return route.url === '/books' ? ['ETag', 'X-Total'] : []
      },
    },
  )
  // The pipeline's hooks, here the test's: the request step, each route's send step, and the
  // send step of the answers of no route.
  fastify.addHook('onRequest', requestHook('pipeline', [...pipeline.request.values()]))
  fastify.addHook('onRoute', function (route) {
    const send = pipelineRouteSteps(pipeline, this, route).get('send')?.get(cors)
    if (send !== undefined) addRouteHook(route, 'onSend', sendHook('send', [send as SendStep]))
  })
  const noRoute = sendHook('notFound', [...pipeline.notFound.values()])
  fastify.addHook('onSend', function (request, reply, payload, done) {
    if (request.is404) noRoute.call(this, request, reply, payload, done)
    else done(null, payload)
  })
  fastify.get('/books', async () => [])
  fastify.get('/own', async (_request, reply) =>
    reply.header('access-control-expose-headers', 'X-Mine').send('own'),
  )
  fastify.get('/plain', async () => 'plain')
  fastify.get('/foreign', async (_request, reply) =>
    reply.header('access-control-allow-origin', 'https://other.example').send('foreign'),
  )
  const exposed = async (url: string, origin = 'https://app.example') =>
    (await fastify.inject({ url, headers: { origin } })).headers['access-control-expose-headers']
  t.equal(await exposed('/books'), 'ETag, X-Total, X-Trace', "the route's, and the option's")
  t.equal(await exposed('/books'), 'ETag, X-Total, X-Trace')
  t.same(asked, ['/books'], 'asked once per route')
  t.equal(await exposed('/plain'), 'X-Trace', 'a route whose conventions send none')
  t.equal(await exposed('/own'), 'X-Mine', "a handler's own value is kept")
  t.equal(
    await exposed('/nowhere'),
    'ETag, X-Total, X-Other, X-Trace',
    'an answer of no route: all',
  )
  t.equal(
    await exposed('/books', 'https://other.example'),
    undefined,
    'an origin not allowed: none',
  )
  t.equal(
    await exposed('/foreign', 'https://other.example'),
    undefined,
    "a handler's own Allow-Origin for an origin the rule refuses: nothing exposed for it",
  )

  // Any origin: every answer, with or without Origin, gets the route's list.
  const open = app()
  const openPipeline = installPipeline(open)
  await installConvention(
    open,
    cors,
    {},
    {
      ...contextOf(contributed),
      routeResponseHeaders: () => ['X-Other'],
    },
  )
  open.addHook('onRequest', requestHook('pipeline', [...openPipeline.request.values()]))
  open.addHook('onRoute', function (route) {
    const send = pipelineRouteSteps(openPipeline, this, route).get('send')?.get(cors)
    if (send !== undefined) addRouteHook(route, 'onSend', sendHook('send', [send as SendStep]))
  })
  open.get('/books', async () => [])
  const plain = await open.inject({ url: '/books' })
  t.equal(plain.headers['access-control-allow-origin'], '*')
  t.equal(plain.headers['access-control-expose-headers'], 'X-Other', 'without Origin too')
})
