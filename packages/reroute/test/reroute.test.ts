import { Writable } from 'node:stream'
import { ErrorCode, httpErrors, restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { test } from 'tap'
import {
  addRewriter,
  installReroute,
  type RerouteTarget,
  restwellReroute,
  reroutedFrom,
  rewriterNames,
} from '../src/index.js'

/** A Fastify app whose routes echo what the handler saw. */
function echoApp(options: FastifyServerOptions = {}): FastifyInstance {
  const app = Fastify(options)
  addEchoRoutes(app)
  return app
}

function addEchoRoutes(app: FastifyInstance): void {
  for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
    app.route({
      method,
      url: '/things/:id',
      handler: async (request) => ({
        method: request.method,
        url: request.url,
        originalUrl: request.originalUrl,
        id: request.id,
        body: request.body ?? null,
        query: request.query,
        from: reroutedFrom(request) ?? null,
      }),
    })
  }
}

/** Turns `POST` with an `x-as` header into that method: the smallest useful rewriter. */
function headerRewriter(target: RerouteTarget): void {
  const as = target.request.headers['x-as']
  if (typeof as === 'string') target.method = as
}

test('a rewriter that changes the method reroutes the request to the other route', async (t) => {
  const app = echoApp()
  addRewriter(app, { name: 'as', order: 10, rewrite: headerRewriter })
  const res = await app.inject({
    method: 'POST',
    url: '/things/7?a=1',
    headers: { 'x-as': 'PUT' },
    payload: { title: 'Dune' },
  })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.method, 'PUT')
  t.same(body.body, { title: 'Dune' }, 'the body is read once, by the rerouted pass')
  t.same(body.query, { a: '1' })
  t.same(body.from, { method: 'POST', url: '/things/7?a=1', id: body.id })
})

test('a change the reached route already serves is made in place; a later change reroutes', async (t) => {
  const app = Fastify()
  let passes = 0
  app.addHook('onRequest', async () => {
    passes++
  })
  addEchoRoutes(app)
  // Says the route reached serves the new method as it is (as method override's twins do).
  addRewriter(app, {
    name: 'in-place',
    order: 10,
    rewrite(target) {
      if (target.request.headers['x-in-place'] === undefined) return
      target.method = 'PUT'
      target.reached = { method: target.method, url: target.url }
    },
  })
  addRewriter(app, {
    name: 'move',
    order: 20,
    rewrite(target) {
      if (target.request.headers['x-move'] !== undefined) target.url = '/things/8'
    },
  })
  const res = await app.inject({ method: 'POST', url: '/things/7', headers: { 'x-in-place': '1' } })
  const body = res.json()
  t.equal(body.method, 'PUT', 'the handler sees the new method')
  t.equal(passes, 1, 'routed once')
  t.same(body.from, { method: 'POST', url: '/things/7', id: body.id }, 'the change is recorded')
  t.equal(body.originalUrl, '/things/7')
  passes = 0
  const moved = await app.inject({
    method: 'POST',
    url: '/things/7',
    headers: { 'x-in-place': '1', 'x-move': '1' },
  })
  t.equal(moved.json().method, 'PUT')
  t.equal(moved.json().url, '/things/8', 'a later rewriter changed the URL: routed again')
  t.equal(passes, 2)
})

test('a request no rewriter changes is routed once and never marked', async (t) => {
  const app = echoApp()
  let calls = 0
  addRewriter(app, {
    name: 'count',
    order: 1,
    rewrite: () => {
      calls++
    },
  })
  const res = await app.inject({ method: 'GET', url: '/things/1' })
  t.equal(res.json().from, null)
  t.equal(calls, 1)
})

test('a URL rewrite reaches a route the first pass did not match (first pass 404)', async (t) => {
  const app = echoApp()
  addRewriter(app, {
    name: 'prefix',
    order: 1,
    rewrite: (target) => {
      if (target.request.is404) target.url = `/things${target.url}`
    },
  })
  const res = await app.inject({ method: 'DELETE', url: '/9?x=y' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.url, '/things/9?x=y')
  t.equal(body.originalUrl, '/9?x=y', 'request.originalUrl is what the client sent')
  t.same(body.query, { x: 'y' })
})

test('loop guard: a rerouted request is never rerouted again', async (t) => {
  const app = Fastify()
  let calls = 0
  addRewriter(app, {
    name: 'greedy',
    order: 1,
    rewrite: (target) => {
      calls++
      target.url = `${target.url}/x`
    },
  })
  app.get('/a/x', async (request) => ({ url: request.url }))
  app.get('/a/x/x', async () => ({ url: 'twice' }))
  const res = await app.inject({ method: 'GET', url: '/a' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { url: '/a/x' })
  t.equal(calls, 1, 'rewriters run on the first pass only')
  const miss = await app.inject({ method: 'GET', url: '/b' })
  t.equal(miss.statusCode, 404, 'a reroute to nowhere is a plain 404, not a loop')
  t.equal(calls, 2)
})

for (const how of ['returns', 'throws'] as const) {
  test(`a rewriter that ${how} an error answers through the error handler, without rerouting`, async (t) => {
    const app = Fastify()
    await app.register(restwellErrors)
    addEchoRoutes(app)
    addRewriter(app, {
      name: 'strict',
      order: 1,
      rewrite: (target) => {
        if (target.request.headers['x-bad'] !== undefined) {
          const error = httpErrors.badRequest('bad override', {
            code: ErrorCode.INVALID_METHOD_OVERRIDE,
          })
          if (how === 'throws') throw error
          return error
        }
        target.method = 'PUT'
        return undefined
      },
    })
    const res = await app.inject({ method: 'POST', url: '/things/1', headers: { 'x-bad': '1' } })
    t.equal(res.statusCode, 400)
    t.equal(res.json().error.code, 'INVALID_METHOD_OVERRIDE')
    t.equal(res.headers['x-request-id'], res.json().error.requestId)
    const fine = await app.inject({ method: 'POST', url: '/things/1' })
    t.equal(fine.json().method, 'PUT', 'rerouted when nothing is refused')
  })
}

test('rewriters run once, in order, and several changes make one reroute', async (t) => {
  const app = echoApp()
  const seen: string[] = []
  addRewriter(app, {
    name: 'second',
    order: 20,
    rewrite: (target) => {
      seen.push(`second ${target.method} ${target.url}`)
      target.url = target.url.replace('/old/', '/things/')
    },
  })
  addRewriter(app, {
    name: 'first',
    order: 10,
    rewrite: (target) => {
      seen.push(`first ${target.method} ${target.url}`)
      target.method = 'DELETE'
    },
  })
  addRewriter(app, {
    name: 'third',
    order: 20,
    rewrite: () => {
      seen.push('third')
    },
  })
  t.same(rewriterNames(app), ['first', 'second', 'third'])
  const res = await app.inject({ method: 'POST', url: '/old/3' })
  t.equal(res.json().method, 'DELETE')
  t.equal(res.json().url, '/things/3')
  t.same(seen, ['first POST /old/3', 'second DELETE /old/3', 'third'])
})

test('a second rewriter with the same name is refused', async (t) => {
  const app = Fastify()
  addRewriter(app, { name: 'one', order: 1, rewrite: () => {} })
  t.throws(() => addRewriter(app, { name: 'one', order: 2, rewrite: () => {} }), {
    message: /already registered/,
  })
  t.same(rewriterNames(Fastify()), [])
})

test('the request id, onResponse hooks and the completion log belong to one request', async (t) => {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)))
      cb()
    },
  })
  const app = echoApp({ logger: { level: 'debug', stream } })
  const ids: string[] = []
  app.addHook('onRequest', async (request) => {
    ids.push(`${request.method} ${request.id}`)
  })
  installReroute(app)
  addRewriter(app, { name: 'as', order: 10, rewrite: headerRewriter })
  const responses: string[] = []
  app.addHook('onResponse', async (request, reply) => {
    responses.push(`${request.method} ${reply.statusCode}`)
  })
  const res = await app.inject({ method: 'POST', url: '/things/2', headers: { 'x-as': 'DELETE' } })
  const id = res.json().id
  t.same(ids, [`POST ${id}`, `DELETE ${id}`], 'both passes share one id')
  t.same(responses, ['DELETE 200'], 'onResponse hooks run once, for the answering route')
  const completed = lines.filter((l) => l.msg === 'request completed')
  t.equal(completed.length, 1)
  t.equal(completed[0]?.reqId, id)
  const rerouted = lines.find((l) => l.msg === 'request rerouted')
  t.same(rerouted?.rerouted, { from: 'POST /things/2', to: 'DELETE /things/2' })
})

test('a custom genReqId keeps working, and a rerouted request keeps its id', async (t) => {
  let n = 0
  const app = echoApp({ genReqId: () => `custom-${++n}` })
  addRewriter(app, { name: 'as', order: 10, rewrite: headerRewriter })
  const plain = await app.inject({ method: 'GET', url: '/things/1' })
  t.equal(plain.json().id, 'custom-1')
  const res = await app.inject({ method: 'POST', url: '/things/1', headers: { 'x-as': 'GET' } })
  t.equal(res.json().id, 'custom-2')
  t.equal(n, 2, 'no id is generated for the second pass')
})

test('reroutedFrom reads a raw request too', async (t) => {
  const app = echoApp()
  addRewriter(app, { name: 'as', order: 10, rewrite: headerRewriter })
  let fromRaw: unknown = 'unset'
  app.addHook('preHandler', async (request) => {
    fromRaw = reroutedFrom(request.raw)
  })
  await app.inject({ method: 'POST', url: '/things/1', headers: { 'x-as': 'GET' } })
  t.same(fromRaw, { method: 'POST', url: '/things/1', id: 'req-1' })
})

test('works over a real socket, body and all', async (t) => {
  const app = echoApp()
  await app.register(restwellReroute)
  addRewriter(app, { name: 'as', order: 10, rewrite: headerRewriter })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const res = await fetch(`${base}/things/5?q=1`, {
    method: 'POST',
    headers: { 'x-as': 'PUT', 'content-type': 'application/json' },
    body: JSON.stringify({ big: 'x'.repeat(100_000) }),
  })
  t.equal(res.status, 200)
  const body = (await res.json()) as { method: string; body: { big: string } }
  t.equal(body.method, 'PUT')
  t.equal(body.body.big.length, 100_000)
  // keep-alive: the same connection serves a plain request afterwards
  const again = await fetch(`${base}/things/6`)
  t.equal(((await again.json()) as { method: string }).method, 'GET')
})

test('the plugin installs the hook once and refuses options', async (t) => {
  const app = Fastify()
  await app.register(restwellReroute)
  installReroute(app)
  addRewriter(app, { name: 'x', order: 1, rewrite: () => {} })
  await app.ready()
  t.same(rewriterNames(app), ['x'])
  const bad = Fastify()
  await t.rejects(
    async () => bad.register(restwellReroute, { nope: true } as never),
    /@restwell\/reroute: option "nope"/,
  )
})

test('refuses to install after a plugin that answers in onRequest (@restwell/methods)', async (t) => {
  const app = Fastify()
  const fp = (await import('fastify-plugin')).default
  await app.register(fp(async () => {}, { name: '@restwell/methods' }))
  t.throws(() => installReroute(app), { message: /before @restwell\/methods/ })
  const ok = Fastify()
  installReroute(ok)
  await ok.register(fp(async () => {}, { name: '@restwell/methods' }))
  t.doesNotThrow(() => addRewriter(ok, { name: 'late', order: 1, rewrite: () => {} }))
})
