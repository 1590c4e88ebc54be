import fastifySwagger from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import restwell, { type RestwellOptions } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

async function build(options: RestwellOptions = {}, swagger = false): Promise<FastifyInstance> {
  const app = Fastify()
  if (swagger)
    await app.register(fastifySwagger, { openapi: { info: { title: 't', version: '1' } } })
  await app.register(restwell, options)
  app.get('/books/:id', async (request) => ({ id: (request.params as { id: string }).id }))
  app.delete('/books/:id', async (_request, reply) => reply.code(204).send())
  await app.ready()
  apps.push(app)
  return app
}

const batch = (app: FastifyInstance, requests: unknown[], headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/batch', headers, payload: { requests } })

test('batch is off unless configured; `batch: {}` adds POST /batch', async (t) => {
  for (const off of [await build(), await build({ batch: false })]) {
    t.equal((await batch(off, [{ id: 'a', method: 'GET', url: '/books/1' }])).statusCode, 404)
  }
  const on = await build({ batch: {} })
  const answer = await batch(on, [{ id: 'a', method: 'GET', url: '/books/1' }])
  t.equal(answer.statusCode, 207)
  t.match(answer.json(), { responses: [{ id: 'a', status: 200, body: { id: '1' } }] })
  t.equal(answer.headers['access-control-allow-origin'], '*', 'CORS on the batch response')
  t.notOk(
    'access-control-allow-origin' in answer.json().responses[0].headers,
    'not on its operations',
  )
  await t.rejects(build({ batch: 5 as unknown as RestwellOptions['batch'] }), {
    code: 'RESTWELL_INVALID_OPTION',
    message: /"batch"/,
  })
  await t.rejects(build({ batch: { maxOperations: -1 } }), { message: /"maxOperations"/ })
})

test('the rate limit counts the batch request and each of its operations', async (t) => {
  const app = await build({ batch: {}, rateLimit: { max: 4, timeWindow: 60_000 } })
  const answer = await batch(
    app,
    [1, 2, 3, 4].map((n) => ({ id: `${n}`, method: 'GET', url: `/books/${n}` })),
  )
  t.equal(answer.statusCode, 207)
  t.equal(answer.headers['x-ratelimit-remaining'], '3', 'the batch itself took one')
  const responses = answer.json().responses as { status: number; body: unknown }[]
  t.same(
    responses.map((r) => r.status),
    [200, 200, 200, 429],
  )
  t.match(responses[3]?.body, { error: { code: 'RATE_LIMITED' } })
  t.equal((await app.inject('/books/1')).statusCode, 429, 'the client has used its window')
})

test("operations may not use the app's method override header or parameter", async (t) => {
  const app = await build({ batch: {}, methodOverride: { header: 'x-verb', query: 'verb' } })
  const header = await batch(app, [
    { id: 'a', method: 'POST', url: '/books/1', headers: { 'X-Verb': 'DELETE' } },
  ])
  t.equal(header.statusCode, 400)
  t.match(header.json(), { error: { details: [{ field: 'requests[0].headers.X-Verb' }] } })
  const query = await batch(app, [{ id: 'a', method: 'POST', url: '/books/1?verb=DELETE' }])
  t.match(query.json(), { error: { message: /`verb`/ } })
  const builtIn = await batch(app, [{ id: 'a', method: 'POST', url: '/books/1?_method=DELETE' }])
  t.equal(builtIn.statusCode, 400, 'the usual names are refused too')
  const own = await build({
    batch: { forbiddenHeaders: ['x-tenant'], forbiddenQuery: ['as'] },
    methodOverride: { header: false, query: false },
  })
  const ownHeader = await batch(own, [
    { id: 'a', method: 'GET', url: '/books/1', headers: { 'x-tenant': '1' } },
  ])
  t.equal(ownHeader.statusCode, 400, 'the batch option is kept')
  const ownQuery = await batch(own, [{ id: 'a', method: 'GET', url: '/books/1?as=x' }])
  t.equal(ownQuery.statusCode, 400)
  const noOverride = await build({ batch: {}, methodOverride: false })
  const plain = await batch(noOverride, [{ id: 'a', method: 'DELETE', url: '/books/1' }])
  t.match(plain.json(), { responses: [{ status: 204 }] })
})

test('OpenAPI: POST /batch with its request and 207 schemas, and the 400 and 413 in the error form', async (t) => {
  const app = await build({ batch: {} }, true)
  const doc = app.swagger() as unknown as {
    paths: Record<string, { post: { requestBody: unknown; responses: Record<string, unknown> } }>
  }
  const post = doc.paths['/batch']?.post
  t.match(post?.requestBody, {
    content: { 'application/json': { schema: { required: ['requests'] } } },
  })
  t.match(post?.responses, {
    207: { description: /Multi-Status/ },
    400: { content: { 'application/json': { schema: Object } } },
    413: { description: /Payload Too Large/ },
  })
})
