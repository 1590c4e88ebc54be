/** `@restwell/idempotency` alone on a bare Fastify app, by inject: every status it answers. */
import { Readable } from 'node:stream'
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify'
import { test } from 'tap'
import { type IdempotencyOptions, idempotency, restwellIdempotency } from '../src/index.js'

const KEY = '"8e03978e-40d5-43e8-bc93-6894a57f9324"'
const JSON_BODY = { 'content-type': 'application/json' }

/** A gate a handler waits on, opened by the test. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

interface Books {
  app: FastifyInstance
  /** How many times the create handler ran. */
  runs: () => number
}

async function books(options: IdempotencyOptions = {}, errors = true): Promise<Books> {
  const app = Fastify()
  if (errors) await app.register(restwellErrors)
  await app.register(restwellIdempotency, options)
  let runs = 0
  app.post('/books', { config: { idempotency: true } }, async (request, reply) => {
    runs++
    const body = request.body as { title?: string; fail?: number }
    if (body.fail !== undefined) {
      reply.code(body.fail)
      return { error: `failed with ${body.fail}` }
    }
    reply.code(201).header('location', `/books/${runs}`).header('etag', `"v${runs}"`)
    return { id: runs, title: body.title }
  })
  return { app, runs: () => runs }
}

function post(app: FastifyInstance, payload: object, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/books',
    headers: { ...JSON_BODY, 'idempotency-key': KEY, ...headers },
    payload,
  })
}

test('a retry after completion replays the stored answer, byte for byte, without the handler', async (t) => {
  const { app, runs } = await books()
  const first = await post(app, { title: 'Dune' })
  t.equal(first.statusCode, 201)
  t.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is no replay')
  const again = await post(app, { title: 'Dune' })
  t.equal(again.statusCode, 201)
  t.equal(again.rawPayload.equals(first.rawPayload), true, 'the same bytes')
  for (const name of ['location', 'etag', 'content-type', 'content-length']) {
    t.equal(again.headers[name], first.headers[name], name)
  }
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(runs(), 1, 'the handler ran once')
})

test('a request without a key runs every time; a route without the config ignores keys', async (t) => {
  const { app, runs } = await books()
  app.post('/notes', async () => ({ ok: true }))
  await app.inject({ method: 'POST', url: '/books', headers: JSON_BODY, payload: { title: 'a' } })
  await app.inject({ method: 'POST', url: '/books', headers: JSON_BODY, payload: { title: 'a' } })
  t.equal(runs(), 2)
  const notes = await app.inject({
    method: 'POST',
    url: '/notes',
    headers: { 'idempotency-key': 'junk' },
  })
  t.equal(notes.statusCode, 200, 'no key checked where the route takes none')
})

test('a malformed key is 400 in the error form, naming the header (draft §2.1)', async (t) => {
  const { app, runs } = await books()
  for (const value of [
    '8e03978e-40d5-43e8-bc93-6894a57f9324',
    '"unbalanced',
    '""',
    '1',
    '"a", "b"',
  ]) {
    const res = await post(app, { title: 'a' }, { 'idempotency-key': value })
    t.equal(res.statusCode, 400, value)
    t.match(res.json(), {
      error: {
        code: 'INVALID_IDEMPOTENCY_KEY',
        details: [{ field: 'headers/idempotency-key', code: 'INVALID_IDEMPOTENCY_KEY' }],
      },
    })
  }
  const long = await post(app, { title: 'a' }, { 'idempotency-key': `"${'k'.repeat(256)}"` })
  t.match(long.json(), { error: { message: /longer than 255 characters/ } })
  t.equal(runs(), 0, 'nothing ran')
})

test('a route that requires the key refuses a request without one (400, draft §2.7)', async (t) => {
  const { app, runs } = await books()
  app.post('/payments', { config: { idempotency: { required: true } } }, async () => ({
    paid: true,
  }))
  const res = await app.inject({
    method: 'POST',
    url: '/payments',
    headers: JSON_BODY,
    payload: {},
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), {
    error: {
      code: 'IDEMPOTENCY_KEY_REQUIRED',
      message: /requires an Idempotency-Key header/,
      details: [{ field: 'headers/idempotency-key' }],
    },
  })
  const keyed = await app.inject({
    method: 'POST',
    url: '/payments',
    headers: { ...JSON_BODY, 'idempotency-key': KEY },
    payload: {},
  })
  t.equal(keyed.statusCode, 200)
  const optional = await app.inject({
    method: 'POST',
    url: '/books',
    headers: JSON_BODY,
    payload: {},
  })
  t.equal(optional.statusCode, 201, 'another route keeps the plugin default (optional)')
  t.equal(runs(), 1)
})

test('option required: every route that takes a key requires it; a route may say otherwise', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellIdempotency, { required: true })
  app.post('/a', { config: { idempotency: true } }, async () => 'a')
  app.post('/b', { config: { idempotency: { required: false } } }, async () => 'b')
  t.equal((await app.inject({ method: 'POST', url: '/a' })).statusCode, 400)
  t.equal((await app.inject({ method: 'POST', url: '/b' })).statusCode, 200)
})

test('a retry while the first request runs is 409 with Retry-After; after it, a replay', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellIdempotency, { retryAfter: 2 })
  const release = gate()
  const started = gate()
  let runs = 0
  app.post('/exports', { config: { idempotency: true } }, async (_request, reply) => {
    runs++
    started.open()
    await release.promise
    reply.code(202).header('location', '/jobs/1')
    return { jobId: '1' }
  })
  const first = app.inject({ method: 'POST', url: '/exports', headers: { 'idempotency-key': KEY } })
  await started.promise
  const during = await app.inject({
    method: 'POST',
    url: '/exports',
    headers: { 'idempotency-key': KEY },
  })
  t.equal(during.statusCode, 409)
  t.equal(during.headers['retry-after'], '2')
  t.match(during.json(), { error: { code: 'IDEMPOTENCY_KEY_IN_USE' } })
  release.open()
  t.equal((await first).statusCode, 202)
  const after = await app.inject({
    method: 'POST',
    url: '/exports',
    headers: { 'idempotency-key': KEY },
  })
  t.equal(after.statusCode, 202)
  t.equal(after.headers.location, '/jobs/1')
  t.equal(after.headers['idempotent-replayed'], 'true')
  t.equal(runs, 1)
})

test('the same key with another request is 422 (draft §2.7): body, query or path', async (t) => {
  const { app, runs } = await books({ documentation: 'https://api.example.com/docs/idempotency' })
  app.patch('/books/:id', { config: { idempotency: true } }, async (request) => ({
    id: (request.params as { id: string }).id,
  }))
  await post(app, { title: 'Dune' })
  const body = await post(app, { title: 'Emma' })
  t.equal(body.statusCode, 422)
  t.match(body.json(), { error: { code: 'IDEMPOTENCY_KEY_REUSED' } })
  t.equal(body.headers.link, '<https://api.example.com/docs/idempotency>; rel="describedby"')
  const query = await app.inject({
    method: 'POST',
    url: '/books?draft=1',
    headers: { ...JSON_BODY, 'idempotency-key': KEY },
    payload: { title: 'Dune' },
  })
  t.equal(query.statusCode, 422, 'another query')
  t.equal(runs(), 1)
  const patch = (id: number) =>
    app.inject({ method: 'PATCH', url: `/books/${id}`, headers: { 'idempotency-key': KEY } })
  t.equal((await patch(1)).statusCode, 200, 'the same key on another route is another key')
  t.equal((await patch(2)).statusCode, 422, 'another path of that route')
  const missing = await post(app, { title: 'x' }, { 'idempotency-key': 'bad' })
  t.equal(missing.headers.link, '<https://api.example.com/docs/idempotency>; rel="describedby"')
})

test('a 4xx of the handler is the outcome: stored and replayed (Stripe)', async (t) => {
  const { app, runs } = await books()
  const first = await post(app, { fail: 404 })
  t.equal(first.statusCode, 404)
  const again = await post(app, { fail: 404 })
  t.equal(again.statusCode, 404)
  t.equal(again.body, first.body)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(runs(), 1)
})

test('an error the handler throws is stored in the error form, the request id of the first', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellIdempotency)
  let runs = 0
  app.post('/orders', { config: { idempotency: true } }, async () => {
    runs++
    const error = new Error('out of stock') as Error & { statusCode: number }
    error.statusCode = 409
    throw error
  })
  const send = () =>
    app.inject({ method: 'POST', url: '/orders', headers: { 'idempotency-key': KEY } })
  const first = await send()
  const again = await send()
  t.equal(first.statusCode, 409)
  t.equal(again.body, first.body, 'the body, its request id and time included')
  t.not(
    again.headers['x-request-id'],
    first.headers['x-request-id'],
    'the header is this request’s',
  )
  t.equal(runs, 1)
})

test('a 5xx frees the key: a retry runs the handler again', async (t) => {
  const { app, runs } = await books()
  t.equal((await post(app, { fail: 503 })).statusCode, 503)
  t.equal((await post(app, { fail: 503 })).statusCode, 503)
  t.equal(runs(), 2)
})

test('a refusal before the handler ran frees the key', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellIdempotency)
  let open = false
  let runs = 0
  app.post(
    '/locks',
    {
      config: { idempotency: true },
      preHandler: async (_request, reply: FastifyReply) => {
        if (!open) return reply.code(423).send({ locked: true })
      },
    },
    async () => {
      runs++
      return { done: runs }
    },
  )
  const send = () =>
    app.inject({ method: 'POST', url: '/locks', headers: { 'idempotency-key': KEY } })
  t.equal((await send()).statusCode, 423)
  open = true
  const second = await send()
  t.equal(second.statusCode, 200, 'the key was free: this one ran')
  t.equal(second.headers['idempotent-replayed'], undefined)
  t.equal((await send()).headers['idempotent-replayed'], 'true')
  t.equal(runs, 1)
})

test('keys are scoped by who sends them: a principal, its credentials, or the client address', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellIdempotency)
  app.decorateRequest('principal', undefined)
  app.addHook('onRequest', async (request) => {
    const who = request.headers['x-user']
    ;(request as { principal?: unknown }).principal =
      who === 'object' ? { role: 'x' } : who === 'sub' ? { sub: 'u-1' } : (who ?? undefined)
  })
  let runs = 0
  app.post('/books', { config: { idempotency: true } }, async () => ({ run: ++runs }))
  const send = (headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
    app.inject({
      method: 'POST',
      url: '/books',
      headers: { 'idempotency-key': KEY, ...headers },
      remoteAddress,
    })
  const alice = await send({ 'x-user': 'alice' })
  t.same(alice.json(), { run: 1 })
  t.same((await send({ 'x-user': 'alice' }, '10.0.0.9')).json(), { run: 1 }, 'alice anywhere')
  t.same((await send({ 'x-user': 'bob' })).json(), { run: 2 }, "bob never gets alice's answer")
  t.same((await send({ 'x-user': 'sub' })).json(), { run: 3 }, 'by sub')
  t.same((await send({ 'x-user': 'sub' })).json(), { run: 3 })
  t.same((await send({ 'x-user': 'object', authorization: 'Bearer a' })).json(), { run: 4 })
  t.same(
    (await send({ 'x-user': 'object', authorization: 'Bearer b' })).json(),
    { run: 5 },
    'by credentials',
  )
  t.same(
    (await send({ 'x-user': 'object' })).json(),
    { run: 6 },
    'an anonymous principal: by address',
  )
  t.same((await send({})).json(), { run: 6 }, 'public: by address')
  t.same((await send({}, '10.0.0.2')).json(), { run: 7 }, 'another address')
})

test('option scope: the app says who a key belongs to', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency, {
    scope: (request) => String(request.headers['x-tenant']),
  })
  let runs = 0
  app.post('/books', { config: { idempotency: true } }, async () => ({ run: ++runs }))
  const send = (tenant: string) =>
    app.inject({
      method: 'POST',
      url: '/books',
      headers: { 'idempotency-key': KEY, 'x-tenant': tenant },
    })
  t.same((await send('a')).json(), { run: 1 })
  t.same((await send('a')).json(), { run: 1 })
  t.same((await send('b')).json(), { run: 2 })
})

test('keys expire (option expiry); a marker of a request that never ends expires sooner (inFlight)', async (t) => {
  let now = 1_000_000
  const realNow = Date.now
  Date.now = () => now
  t.teardown(() => {
    Date.now = realNow
  })
  const app = Fastify()
  await app.register(restwellIdempotency, { expiry: 60, inFlight: 5 })
  let runs = 0
  const hang = gate()
  app.post('/books', { config: { idempotency: true } }, async (request) => {
    runs++
    if ((request.body as { hang?: boolean } | undefined)?.hang === true) await hang.promise
    return { run: runs }
  })
  const send = (key: string, payload: object = {}) =>
    app.inject({
      method: 'POST',
      url: '/books',
      headers: { 'idempotency-key': key, ...JSON_BODY },
      payload,
    })
  t.same((await send('"a"')).json(), { run: 1 })
  now += 59_000
  t.same((await send('"a"')).json(), { run: 1 }, 'kept for 60 s')
  now += 1_000
  t.same((await send('"a"')).json(), { run: 2 }, 'expired: a new request')
  const hung = send('"h"', { hang: true })
  await new Promise<void>((resolve) => {
    const check = () => (runs === 3 ? resolve() : setImmediate(check))
    check()
  })
  t.equal((await send('"h"', { hang: true })).statusCode, 409)
  now += 5_000
  const retried = send('"h"', { hang: true })
  await new Promise<void>((resolve) => {
    const check = () => (runs === 4 ? resolve() : setImmediate(check))
    check()
  })
  t.equal(runs, 4, 'past inFlight the retry runs')
  hang.open()
  t.equal((await hung).statusCode, 200)
  t.same((await retried).json(), { run: 4 })
  t.same(
    (await send('"h"', { hang: true })).json(),
    { run: 4 },
    "the retry's answer is the one kept",
  )
})

test('option everyRoute: every POST and PATCH takes a key; config false opts a route out', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency, { everyRoute: true })
  let runs = 0
  app.post('/a', async () => ({ run: ++runs }))
  app.post('/b', { config: { idempotency: false } }, async () => ({ run: ++runs }))
  app.get('/c', async () => ({ run: ++runs }))
  app.route({ method: ['POST', 'PUT'], url: '/d', handler: async () => ({ run: ++runs }) })
  const send = (method: 'POST' | 'PUT' | 'GET', url: string) =>
    app.inject({ method, url, headers: { 'idempotency-key': KEY } })
  t.same((await send('POST', '/a')).json(), { run: 1 })
  t.same((await send('POST', '/a')).json(), { run: 1 })
  t.same((await send('POST', '/b')).json(), { run: 2 })
  t.same((await send('POST', '/b')).json(), { run: 3 })
  t.same((await send('GET', '/c')).json(), { run: 4 })
  t.same((await send('GET', '/c')).json(), { run: 5 })
  t.same((await send('POST', '/d')).json(), { run: 6 })
  t.same((await send('POST', '/d')).json(), { run: 6 })
  t.same((await send('PUT', '/d')).json(), { run: 7 }, 'PUT is idempotent already')
  t.same((await send('PUT', '/d')).json(), { run: 8 })
})

test('option methods: which methods take a key', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency, { methods: ['DELETE'] })
  let runs = 0
  app.delete('/a', { config: { idempotency: { required: true } } }, async () => ({ run: ++runs }))
  t.equal((await app.inject({ method: 'DELETE', url: '/a' })).statusCode, 400)
  const send = () =>
    app.inject({ method: 'DELETE', url: '/a', headers: { 'idempotency-key': KEY } })
  t.same((await send()).json(), { run: 1 })
  t.same((await send()).json(), { run: 1 })
})

test('a stream answer is passed on as it goes and stored once it ended', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency)
  let runs = 0
  app.post('/reports', { config: { idempotency: true } }, async (_request, reply) => {
    runs++
    reply.type('text/csv')
    return Readable.from(['a,b\n', `${runs},2\n`])
  })
  const send = () =>
    app.inject({ method: 'POST', url: '/reports', headers: { 'idempotency-key': KEY } })
  const first = await send()
  t.equal(first.body, 'a,b\n1,2\n')
  const again = await send()
  t.equal(again.body, 'a,b\n1,2\n')
  t.equal(again.headers['content-type'], 'text/csv')
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(runs, 1)
})

test('a stream that fails frees the key; an answer of no body is stored empty', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency)
  let runs = 0
  app.post('/reports', { config: { idempotency: true } }, async () => {
    runs++
    return new Readable({
      read() {
        this.destroy(new Error('disk gone'))
      },
    })
  })
  app.post('/empty', { config: { idempotency: true } }, async (_request, reply) => {
    runs++
    return reply.code(204).send()
  })
  const send = (url: string) =>
    app.inject({ method: 'POST', url, headers: { 'idempotency-key': KEY } })
  await send('/reports').catch(() => undefined)
  await send('/reports').catch(() => undefined)
  t.equal(runs, 2, 'the failed stream left the key free')
  t.equal((await send('/empty')).statusCode, 204)
  const again = await send('/empty')
  t.equal(again.statusCode, 204)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(runs, 3)
})

test('a web stream answer is not stored: its key is freed and a warning logged', async (t) => {
  const warnings: string[] = []
  const app = Fastify({
    logger: {
      level: 'warn',
      stream: { write: (line: string) => void warnings.push(JSON.parse(line).msg) },
    },
  })
  await app.register(restwellIdempotency)
  let runs = 0
  app.post('/web', { config: { idempotency: true } }, async (_request, reply) => {
    runs++
    return reply.send(new Response('hi').body)
  })
  const send = () =>
    app.inject({ method: 'POST', url: '/web', headers: { 'idempotency-key': KEY } })
  t.equal((await send()).body, 'hi')
  t.equal((await send()).body, 'hi')
  t.equal(runs, 2)
  t.match(warnings, [/not stored; its key is freed/])
})

test('without @restwell/errors the errors keep their status and headers', async (t) => {
  const { app } = await books({}, false)
  const res = await post(app, {}, { 'idempotency-key': 'bad' })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { statusCode: 400, code: 'INVALID_IDEMPOTENCY_KEY' })
})

test('options and route config are checked at registration, naming the field', async (t) => {
  const bad = async (options: unknown) => {
    const app = Fastify()
    await app.register(restwellIdempotency, options as IdempotencyOptions)
    return app.ready()
  }
  await t.rejects(bad({ expiry: 0 }), { message: /option "expiry"/ })
  await t.rejects(bad({ store: { redis: 'http://x' } }), { message: /option "store/ })
  await t.rejects(bad({ methods: ['post'] }), { message: /option "methods/ })
  await t.rejects(bad({ nope: true }), { message: /nope/ })
  const app = Fastify()
  await app.register(restwellIdempotency)
  t.throws(() => app.get('/books', { config: { idempotency: true } }, async () => []), {
    message: /config.idempotency of GET \/books.*no method that takes a key \(POST, PATCH\)/,
  })
  const typo = Fastify()
  await typo.register(restwellIdempotency)
  t.throws(
    () =>
      typo.post('/books', { config: { idempotency: { requried: true } as never } }, async () => []),
    { message: /config.idempotency of POST \/books/ },
  )
})

test('the memory store forgets its oldest key past maxKeys', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency, { store: { maxKeys: 2 } })
  let runs = 0
  app.post('/books', { config: { idempotency: true } }, async () => ({ run: ++runs }))
  const send = (key: string) =>
    app.inject({ method: 'POST', url: '/books', headers: { 'idempotency-key': key } })
  await send('"a"')
  await send('"b"')
  t.same((await send('"a"')).json(), { run: 1 })
  await send('"c"')
  t.same((await send('"b"')).json(), { run: 2 }, 'b is still kept')
  t.same((await send('"a"')).json(), { run: 4 }, 'a, the oldest, was forgotten')
})

test('the memory store is closed with the app; `{}` keeps its default bound', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency, { store: {} })
  let runs = 0
  app.post('/books', { config: { idempotency: true } }, async () => ({ run: ++runs }))
  const send = () =>
    app.inject({ method: 'POST', url: '/books', headers: { 'idempotency-key': KEY } })
  t.same((await send()).json(), { run: 1 })
  t.same((await send()).json(), { run: 1 })
  await app.close()
})

test('a body no JSON can write never matches a retry: 422, never a wrong replay', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency)
  app.addContentTypeParser('application/x-big', { parseAs: 'string' }, (_request, body, done) =>
    done(null, { n: BigInt(String(body)) }),
  )
  let runs = 0
  app.post('/books', { config: { idempotency: true } }, async () => ({ run: ++runs }))
  const send = () =>
    app.inject({
      method: 'POST',
      url: '/books',
      headers: { 'idempotency-key': KEY, 'content-type': 'application/x-big' },
      payload: '1',
    })
  t.equal((await send()).statusCode, 200)
  t.equal((await send()).statusCode, 422)
  t.equal(runs, 1)
})

test('describe: the header (required or not), 400/409/422, 503 with Redis, the expiry', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const context = {
    pipeline: false,
    has: () => false,
    optionsOf: () => undefined,
    contributions: () => ({ queryParameters: [], requestHeaders: [], responseHeaders: [] }),
  }
  const describe = async (options: IdempotencyOptions, methods: string[], config?: object) => {
    const settings = await idempotency.setup(app, idempotency.options(options), context)
    const route = { method: methods, url: '/books', handler: async () => null }
    return idempotency.describe?.(
      { route, instance: app, methods, config, name: `${methods.join(',')} /books` } as never,
      settings,
    )
  }
  const day = await describe({}, ['POST'], { required: true })
  t.match(day, {
    requestHeaders: [['Idempotency-Key', /^A key .*up to 255 characters.*for 24 h after/, true]],
    responses: [
      [400, 'The Idempotency-Key header is missing or malformed', { headers: [] }],
      [409, /still being processed/, { headers: [['Retry-After', /\(1\)/, 'integer']] }],
      [422, /used with another request/, { headers: [] }],
    ],
    responseHeaders: [['Idempotent-Replayed', /true/]],
  })
  t.equal(day?.responses?.length, 3, 'no 503 for the memory store')
  const optional = await describe({ expiry: 5400, everyRoute: true }, ['PATCH'])
  t.match(optional?.requestHeaders?.[0], ['Idempotency-Key', /^A key .*for 90 min after/, false])
  t.equal(optional?.responses?.[0]?.[1], 'The Idempotency-Key header is malformed')
  const redis = await describe(
    {
      expiry: 61,
      store: { redis: 'redis://127.0.0.1:1' },
      unavailableRetryAfter: 7,
      documentation: 'https://example.com/keys',
    },
    ['POST'],
    {},
  )
  t.match(redis?.requestHeaders?.[0]?.[1], /for 61 s after/)
  t.match(redis?.responses?.[3], [503, /unavailable/, { headers: [['Retry-After', /\(7\)/]] }])
  const link = ['Link', '`<https://example.com/keys>; rel="describedby"`: the page on keys']
  for (const at of [0, 2]) t.same(redis?.responses?.[at]?.[2], { headers: [link] })
  t.same(redis?.responses?.[1]?.[2]?.headers?.[1], link, 'the 409 links to it too')
  t.equal(await describe({}, ['POST']), undefined, 'a route that takes no key')
  t.same(idempotency.contributes?.(idempotency.options({})), {
    requestHeaders: ['idempotency-key'],
    responseHeaders: ['Idempotent-Replayed'],
  })
})

test('bytes and text bodies are fingerprinted as they are; storedHeaders adds headers', async (t) => {
  const app = Fastify()
  await app.register(restwellIdempotency, { storedHeaders: ['X-Count'] })
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_r, body, done) =>
    done(null, body),
  )
  let runs = 0
  app.post('/blobs', { config: { idempotency: true } }, async (_request, reply) => {
    runs++
    reply.header('x-count', runs).header('x-other', 'not stored')
    return { run: runs }
  })
  const send = (type: string, payload: string | Buffer) =>
    app.inject({
      method: 'POST',
      url: '/blobs',
      headers: { 'idempotency-key': `"${type}"`, 'content-type': type },
      payload,
    })
  t.same((await send('application/octet-stream', Buffer.from([1, 2]))).json(), { run: 1 })
  const again = await send('application/octet-stream', Buffer.from([1, 2]))
  t.equal(again.headers['x-count'], '1', 'replayed')
  t.equal(again.headers['x-other'], undefined, 'a header not stored is not replayed')
  t.equal((await send('application/octet-stream', Buffer.from([1, 3]))).statusCode, 422)
  t.same((await send('text/plain', 'hello')).json(), { run: 2 })
  t.same((await send('text/plain', 'hello')).json(), { run: 2 })
  t.equal((await send('text/plain', 'hullo')).statusCode, 422)
})

test('Idempotent-Replayed goes on the answers of a route that takes a key only', async (t) => {
  const headers = (methods: string[], config: unknown, raw = {}) =>
    idempotency.routeResponseHeaders?.(
      { methods, config, name: 'POST /books', route: { url: '/books' } } as never,
      { options: idempotency.options(raw) } as never,
    )
  t.same(headers(['POST'], {}), ['Idempotent-Replayed'])
  t.same(headers(['POST'], undefined, { everyRoute: true }), ['Idempotent-Replayed'], 'every route')
  t.same(headers(['POST'], undefined), [], 'a route that takes no key')
})

test("a replay replaces what the route's own onSend hooks set: describing headers, the length", async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwellIdempotency)
  let runs = 0
  let sends = 0
  app.post(
    '/books',
    {
      config: { idempotency: true },
      // Before the plugin's send step (alone, it comes last): a length and headers of its own.
      onSend: async (_request, reply, payload) => {
        sends++
        reply.header('content-length', '1').header('content-language', `l${sends}`)
        if (sends > 1) reply.header('link', '</other>; rel="related"')
        return payload
      },
    },
    async (_request, reply) => {
      runs++
      reply.code(201).header('etag', `"v${runs}"`)
      return { id: runs }
    },
  )
  const send = () =>
    app.inject({
      method: 'POST',
      url: '/books',
      headers: { ...JSON_BODY, 'idempotency-key': KEY },
      payload: { title: 'Dune' },
    })
  const first = await send()
  t.equal(first.statusCode, 201)
  const again = await send()
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.body, first.body, 'the stored bytes')
  t.equal(Number(again.headers['content-length']), again.rawPayload.length, 'their own length')
  t.equal(again.headers['content-language'], 'l1', "the stored one over the hook's")
  t.equal(again.headers.link, undefined, 'a describing header the first answer had not: dropped')
  t.equal(again.headers.etag, '"v1"')
  t.equal(runs, 1)
})
