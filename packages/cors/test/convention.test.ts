/** CORS as a convention: refused beside @fastify/cors alone, and under a pipeline. */
import fastifyCors from '@fastify/cors'
import {
  type Contributions,
  installConvention,
  installPipeline,
  requestHook,
  type SetupContext,
} from '@restwell/core'
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
