/** Idempotency-Key under the umbrella: after auth and the limits, before preconditions; CORS. */
import SwaggerParser from '@apidevtools/swagger-parser'
import fastifySwagger from '@fastify/swagger'
import { gzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import tap, { test } from 'tap'
import restwell, { type RestwellOptions, restwellOpenapi } from '../src/index.js'

type Json = Record<string, unknown>
interface Operation {
  responses: Record<string, Json>
  parameters?: { name: string; in: string; description?: string; required?: boolean }[]
}
type Doc = { paths: Record<string, Record<string, Operation>> }

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const KEY = '"8e03978e-40d5-43e8-bc93-6894a57f9324"'

interface Shelf {
  app: FastifyInstance
  runs: () => number
}

async function build(options: RestwellOptions = {}): Promise<Shelf> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, { rateLimit: false, ...options })
  let runs = 0
  app.post(
    '/books',
    { config: { idempotency: true, auth: options.auth !== undefined } },
    async (request, reply) => {
      runs++
      reply.code(201).header('location', `/books/${runs}`).header('etag', `"v${runs}"`)
      return { id: runs, ...(request.body as object) }
    },
  )
  return { app, runs: () => runs }
}

function post(app: FastifyInstance, headers: InjectOptions['headers'] = {}, title = 'Dune') {
  return app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'content-type': 'application/json', 'idempotency-key': KEY, ...headers },
    payload: { title },
  })
}

test('a replay through the pipeline: the same bytes, ETag and Location, marked, the handler once', async (t) => {
  const { app, runs } = await build()
  const first = await post(app)
  t.equal(first.statusCode, 201)
  const again = await post(app)
  t.equal(again.statusCode, 201)
  t.equal(again.body, first.body)
  t.equal(again.headers.etag, '"v1"')
  t.equal(again.headers.location, '/books/1')
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(first.headers['idempotent-replayed'], undefined)
  t.equal(runs(), 1)
  const other = await post(app, {}, 'Emma')
  t.equal(other.statusCode, 422)
  t.equal(other.json().error.code, 'IDEMPOTENCY_KEY_REUSED', 'in the error form')
  const bad = await post(app, { 'idempotency-key': 'unquoted' })
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().error.details[0].field, 'headers/idempotency-key')
})

test("the fingerprint is the body's bytes: the same bytes replay, other whitespace is another request", async (t) => {
  const { app, runs } = await build()
  const send = (payload: string, encoding?: string) =>
    app.inject({
      method: 'POST',
      url: '/books',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': KEY,
        ...(encoding === undefined ? {} : { 'content-encoding': encoding }),
      },
      payload: encoding === 'gzip' ? gzipSync(payload) : payload,
    })
  const bytes = '{ "title": "Dune" }'
  t.equal((await send(bytes)).statusCode, 201)
  const again = await send(bytes)
  t.equal(again.headers['idempotent-replayed'], 'true', 'the same bytes: a replay')
  const gzipped = await send(bytes, 'gzip')
  t.equal(gzipped.headers['idempotent-replayed'], 'true', 'the same bytes gzipped: decoded first')
  const spaced = await send('{"title":"Dune"}')
  t.equal(spaced.statusCode, 422, 'the same value in other bytes')
  t.equal(runs(), 1)
})

test('auth runs before the key: no token is 401, not a replay; another principal has its own keys', async (t) => {
  const verify = async (token: string) =>
    token === 'ann' || token === 'bob' ? { id: token } : null
  const { app, runs } = await build({ auth: { verify } })
  const ann = await post(app, { authorization: 'Bearer ann' })
  t.equal(ann.statusCode, 201)
  const anonymous = await post(app)
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.headers['idempotent-replayed'], undefined)
  const bob = await post(app, { authorization: 'Bearer bob' })
  t.equal(bob.statusCode, 201)
  t.equal(bob.headers['idempotent-replayed'], undefined, "bob's key is not ann's")
  t.equal((await post(app, { authorization: 'Bearer ann' })).headers['idempotent-replayed'], 'true')
  t.equal(runs(), 2)
})

test('the rate limit counts a retry', async (t) => {
  const { app, runs } = await build({ rateLimit: { max: 2, timeWindow: 60_000 } })
  t.equal((await post(app)).statusCode, 201)
  t.equal((await post(app)).headers['idempotent-replayed'], 'true')
  t.equal((await post(app)).statusCode, 429)
  t.equal(runs(), 1)
})

test('CORS allows Idempotency-Key and exposes Idempotent-Replayed, unless idempotency is off', async (t) => {
  const preflight = {
    origin: 'https://app.example',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type, idempotency-key',
  }
  const allowed = (res: { headers: Record<string, unknown> }) =>
    String(res.headers['access-control-allow-headers']).split(', ')
  const exposed = (res: { headers: Record<string, unknown> }) =>
    String(res.headers['access-control-expose-headers']).split(', ')
  const on = (await build()).app
  const options = await on.inject({ method: 'OPTIONS', url: '/books', headers: preflight })
  t.ok(allowed(options).includes('idempotency-key'))
  const answer = await post(on, { origin: 'https://app.example' })
  t.ok(exposed(answer).includes('Idempotent-Replayed'))

  const off = Fastify()
  apps.push(off)
  await off.register(restwell, { rateLimit: false, idempotency: false })
  off.post('/books', { config: { auth: false } }, async () => ({}))
  const offOptions = await off.inject({ method: 'OPTIONS', url: '/books', headers: preflight })
  t.notOk(allowed(offOptions).includes('idempotency-key'))
  const offAnswer = await off.inject({
    method: 'POST',
    url: '/books',
    headers: { origin: 'https://app.example' },
  })
  t.notOk(exposed(offAnswer).includes('Idempotent-Replayed'))
})

test('OpenAPI: the header (required or not) with the expiry, the 409 and 422, the replay header', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(fastifySwagger, restwellOpenapi({ info: { title: 't', version: '1' } }))
  await app.register(restwell, { rateLimit: false, idempotency: { expiry: 3600 } })
  const created = { 201: { type: 'object', properties: { id: { type: 'integer' } } } }
  const route = (url: string, idempotency: object | boolean) =>
    app.post(
      url,
      { schema: { response: created }, config: { auth: false, idempotency } },
      async () => ({}),
    )
  route('/books', { required: true })
  route('/exports', true)
  route('/notes', false)
  await app.ready()
  const doc = app.swagger() as unknown as Doc
  await SwaggerParser.validate(structuredClone(doc) as never)
  const operation = (path: string) => doc.paths[path]?.post as Operation
  const keyOf = (path: string) =>
    operation(path).parameters?.find((p) => p.in === 'header' && p.name === 'idempotency-key')
  t.match(keyOf('/books'), { required: true, description: /for 1 h after it completed/ })
  t.match(keyOf('/exports'), { required: false, description: /^A key the client makes/ })
  t.equal(keyOf('/notes'), undefined, 'a route that takes no key')
  for (const path of ['/books', '/exports']) {
    const { responses } = operation(path)
    t.match(responses['409']?.description, /still being processed/, `${path} 409`)
    t.match(responses['422']?.description, /used with another request/, `${path} 422`)
    t.match(responses['400']?.description, /Idempotency-Key header is/, `${path} 400`)
    t.ok(responses['409']?.content, `${path}: the 409 has the error body`)
    t.ok((responses['201']?.headers as Json | undefined)?.['idempotent-replayed'], `${path} 201`)
  }
  t.equal(operation('/notes').responses['409'], undefined)
})

test('a batch operation carries its own key: a second batch replays it, the handler once', async (t) => {
  const { app, runs } = await build({ batch: {} })
  const batch = () =>
    app.inject({
      method: 'POST',
      url: '/batch',
      payload: {
        requests: [
          {
            id: 'create',
            method: 'POST',
            url: '/books',
            headers: { 'idempotency-key': KEY },
            body: { title: 'Dune' },
          },
        ],
      },
    })
  const first = await batch()
  t.equal(first.statusCode, 207)
  const [created] = first.json().responses
  t.equal(created.status, 201)
  const again = await batch()
  const [replayed] = again.json().responses
  t.equal(replayed.status, 201)
  t.same(replayed.body, created.body, 'the stored answer')
  t.equal(replayed.headers.location, '/books/1')
  t.equal(replayed.headers['idempotent-replayed'], 'true')
  t.equal(runs(), 1, 'the handler ran once')
})
