import { installPipeline } from '@restwell/core/internal'
import { ErrorCode, httpErrors, restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { test } from 'tap'
import {
  addRewriter,
  installReroute,
  type RerouteTarget,
  reroute,
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

test('a rewriter changes the method in place: routed once, what follows sees it', async (t) => {
  const app = Fastify()
  addEchoRoutes(app)
  addRewriter(app, { name: 'as', order: 10, rewrite: headerRewriter })
  const seen: string[] = []
  app.addHook('onRequest', async (request) => {
    seen.push(`${request.method} ${request.url}`)
  })
  const res = await app.inject({
    method: 'POST',
    url: '/things/7?a=1',
    headers: { 'x-as': 'PUT' },
    payload: { title: 'Dune' },
  })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.method, 'PUT', 'the handler sees the method the request stands for')
  t.same(seen, ['PUT /things/7?a=1'], 'hooks after the rewrite hook see it, once')
  t.same(body.body, { title: 'Dune' })
  t.same(body.query, { a: '1' })
  t.same(body.from, { method: 'POST', url: '/things/7?a=1', id: body.id })
  t.equal(body.originalUrl, '/things/7?a=1')
})

test('a request no rewriter changes is never marked', async (t) => {
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

test('a URL change is seen by what follows; originalUrl stays what the client sent', async (t) => {
  const app = echoApp()
  addRewriter(app, {
    name: 'drop-query',
    order: 1,
    rewrite: (target) => {
      target.url = target.url.replace('?secret=1', '')
    },
  })
  const res = await app.inject({ method: 'DELETE', url: '/things/9?secret=1' })
  const body = res.json()
  t.equal(body.url, '/things/9')
  t.equal(body.originalUrl, '/things/9?secret=1', 'request.originalUrl is what the client sent')
})

test("an app's rewriteUrl runs once, and originalUrl keeps the URL before it", async (t) => {
  let calls = 0
  const app = Fastify({
    rewriteUrl: (req) => {
      calls++
      const url = req.url as string
      return url.startsWith('/api/') ? url.slice(4) : url
    },
  })
  addEchoRoutes(app)
  addRewriter(app, { name: 'as', order: 10, rewrite: headerRewriter })
  const res = await app.inject({ method: 'POST', url: '/api/things/3', headers: { 'x-as': 'GET' } })
  t.equal(calls, 1)
  t.match(res.json(), { method: 'GET', url: '/things/3', originalUrl: '/api/things/3' })
})

for (const how of ['returns', 'throws'] as const) {
  test(`a rewriter that ${how} an error answers through the error handler`, async (t) => {
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
    t.equal(fine.json().method, 'PUT', 'changed when nothing is refused')
  })
}

test('rewriters run once, in order, each seeing the changes before it', async (t) => {
  const app = echoApp()
  const seen: string[] = []
  addRewriter(app, {
    name: 'second',
    order: 20,
    rewrite: (target) => {
      seen.push(`second ${target.method} ${target.url}`)
      target.url = target.url.replace('?old', '?new')
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
  const res = await app.inject({ method: 'POST', url: '/things/3?old' })
  t.equal(res.json().method, 'DELETE')
  t.equal(res.json().url, '/things/3?new')
  t.same(seen, ['first POST /things/3?old', 'second DELETE /things/3?old', 'third'])
})

test('a second rewriter with the same name is refused', async (t) => {
  const app = Fastify()
  addRewriter(app, { name: 'one', order: 1, rewrite: () => {} })
  t.throws(() => addRewriter(app, { name: 'one', order: 2, rewrite: () => {} }), {
    message: /already registered/,
  })
  t.same(rewriterNames(Fastify()), [])
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

test('installed by a rewriter first, then registered: one rewrite, each rewriter once', async (t) => {
  const app = echoApp()
  let calls = 0
  addRewriter(app, {
    name: 'count',
    order: 1,
    rewrite: () => {
      calls++
    },
  })
  await app.register(restwellReroute)
  await app.inject({ method: 'GET', url: '/things/1' })
  t.equal(calls, 1)
})

test("under restwell's pipeline the rewrite is a step of its request phase", async (t) => {
  const app = Fastify()
  const pipeline = installPipeline(app)
  installReroute(app)
  t.same([...pipeline.request.keys()], [reroute], 'handed over, keyed by the convention')
  installReroute(app)
  t.equal(pipeline.request.size, 1, 'once')
})
