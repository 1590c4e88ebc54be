import { createRequire } from 'node:module'
import { httpErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyPluginCallback } from 'fastify'
import tap, { test } from 'tap'
import restwell, { type RestwellOptions } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

async function build(options: RestwellOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  app.get('/early', async () => 'registered before restwell')
  await app.register(restwell, options)
  app.get('/books/:id', async (request) => ({ id: (request.params as { id: string }).id }))
  app.post('/books', async (_request, reply) => reply.created('/books/1', { id: 1 }))
  app.get('/crash', async () => {
    throw new Error('secret detail')
  })
  return app
}

test('one line turns on errors and methods', async (t) => {
  const app = await build()
  const notAllowed = await app.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(notAllowed.statusCode, 405)
  t.equal(notAllowed.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(notAllowed.json().error.code, 'METHOD_NOT_ALLOWED')
  const early = await app.inject({ method: 'PUT', url: '/early' })
  t.equal(early.statusCode, 405, 'routes registered before restwell behave the same')
  const created = await app.inject({ method: 'POST', url: '/books' })
  t.equal(created.statusCode, 201)
  t.equal(created.headers.location, '/books/1')
  const crash = await app.inject('/crash')
  t.equal(crash.statusCode, 500)
  t.notMatch(crash.body, /secret/)
  t.ok(crash.json().error.requestId)
  const missing = await app.inject('/nowhere')
  t.equal(missing.json().error.code, 'NOT_FOUND')
})

test('each plugin is configured through its own key', async (t) => {
  const app = await build({ errors: { format: 'problem' }, methods: { autoOptions: false } })
  const res = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(res.statusCode, 405)
  t.match(res.headers['content-type'], /application\/problem\+json/)
  t.equal(res.json().status, 405)
})

test("other plugins' query parameters, renamed through their options, are never filters of a page", async (t) => {
  const app = Fastify()
  await app.register(restwell, {
    softDelete: { param: 'trashed', includeParam: 'with' },
    negotiation: { formatParam: 'as' },
    versioning: { queryParameter: 'api' },
    methodOverride: { query: 'verb' },
    rateLimit: false,
  })
  app.get(
    '/v1/books',
    { config: { auth: false, pagination: true, softDelete: true } },
    (_q, reply) => reply.paginate([{ id: 1 }], { total: 1 }),
  )
  t.teardown(() => app.close())
  for (const query of ['trashed=include', 'with=deleted', 'as=json', 'api=1', 'verb=GET']) {
    const res = await app.inject(`/v1/books?${query}`)
    t.equal(res.statusCode, 200, `?${query} reaches the plugin that owns it`)
    t.match(res.headers.link, query, 'and is kept in the links')
  }
  const unknown = await app.inject('/v1/books?colour=red')
  t.equal(unknown.statusCode, 400, 'an unknown parameter is still refused')
  t.equal(unknown.json().error.code, 'INVALID_FILTER')
  const own = Fastify()
  await own.register(restwell, {
    negotiation: { formatParam: 'as' },
    pagination: { passthrough: [] },
  })
  own.get('/books', { config: { auth: false, pagination: true } }, (_q, reply) =>
    reply.paginate([]),
  )
  t.teardown(() => own.close())
  t.equal((await own.inject('/books?as=json')).statusCode, 400, 'an explicit passthrough list wins')
})

test('each plugin can be switched off', async (t) => {
  const noMethods = await build({ methods: false })
  const res = await noMethods.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(res.statusCode, 404, "without methods, Fastify's 404 stands")
  t.equal(res.json().error.code, 'NOT_FOUND')

  const noErrors = await build({ errors: false })
  const plain = await noErrors.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(plain.statusCode, 405)
  t.equal(plain.json().code, 'METHOD_NOT_ALLOWED', "Fastify's default error body")
  t.equal(plain.headers.allow, 'GET, HEAD, OPTIONS')
})

test('a bad option fails registration with a message naming it', async (t) => {
  const attempt = (options: unknown) => async () => {
    const app = Fastify()
    app.register(restwell, options as RestwellOptions)
    await app.ready()
  }
  await t.rejects(attempt({ errorz: {} }), {
    message: 'restwell: option "errorz" is not known; did you mean "errors"?',
  })
  await t.rejects(attempt({ methods: true }), {
    message: 'restwell: option "methods" must be false or an object (got true)',
  })
  await t.rejects(attempt({ errors: { format: 'yaml' } }), {
    message:
      '@restwell/errors: option "format" must be one of "simple", "validation", "structured", "problem" (got "yaml")',
  })
  await t.rejects(attempt({ rateLimit: { max: 'lots' } }), {
    name: 'OptionsError',
    option: 'rateLimit.max',
    message: 'restwell: option "rateLimit.max" must be an integer ≥ 1 (got "lots")',
  })
  await t.rejects(attempt({ pagniation: {} }), {
    message: 'restwell: option "pagniation" is not known; did you mean "pagination"?',
  })
})

test('a route whose config.auth asks for authentication while auth is not given is refused: it would be public', async (t) => {
  const guarded = { config: { auth: { scopes: ['books:write'] } } }
  const unset = Fastify()
  await unset.register(restwell)
  t.throws(() => unset.post('/books', guarded, async () => ({})), {
    name: 'OptionsError',
    option: 'auth',
    message:
      /option "auth" is not given, and route POST \/books sets config\.auth, which nothing would check, so the route would be public\. Give restwell `auth: \{ verify \}`.*or drop config\.auth \(a route that checks credentials itself tells cache-control with `config\.cache: \{ authenticates: true \}`\); `auth: false` serves every route without authentication/,
  })
  // `true` asks for the plugin's requirement: refused alike, and the route is never served.
  t.throws(() => unset.get('/secrets', { config: { auth: true } }, async () => ({ secret: 1 })), {
    option: 'auth',
    message: /route GET \/secrets sets config\.auth/,
  })
  unset.get('/health', { config: { auth: false } }, async () => ({ ok: true }))
  // A route that checks credentials itself says so to cache-control.
  unset.get('/me', { config: { cache: { authenticates: true } } }, async () => ({ me: 1 }))
  const me = await unset.inject('/me')
  t.equal(me.headers['cache-control'], 'private, no-cache')
  t.match(me.headers.vary, /\bAuthorization\b/)
  t.equal((await unset.inject('/secrets')).statusCode, 404)
  // A route added before restwell is checked when restwell registers.
  const earlier = Fastify()
  earlier.delete('/books/:id', { config: { auth: true } }, async () => ({}))
  await t.rejects(async () => earlier.register(restwell), {
    option: 'auth',
    message: /DELETE \/books\/:id/,
  })
  // `auth: false` says so on purpose: every route is served without authentication.
  const off = Fastify()
  await off.register(restwell, { auth: false, rateLimit: false })
  off.post('/books', guarded, async () => ({ created: true }))
  t.equal((await off.inject({ method: 'POST', url: '/books', payload: {} })).statusCode, 200)
  // Given, the requirement is enforced.
  const on = Fastify()
  await on.register(restwell, { auth: { verify: () => null }, rateLimit: false })
  on.post('/books', guarded, async () => ({ created: true }))
  on.get('/secrets', { config: { auth: true } }, async () => ({ secret: 1 }))
  t.equal((await on.inject({ method: 'POST', url: '/books', payload: {} })).statusCode, 401)
  t.equal((await on.inject('/secrets')).statusCode, 401)
  for (const app of [unset, earlier, off, on]) apps.push(app)
})

test('over a real socket', async (t) => {
  const app = await build()
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const res = await fetch(`http://127.0.0.1:${port}/books/1`, { method: 'PATCH' })
  t.equal(res.status, 405)
  t.equal(res.headers.get('allow'), 'GET, HEAD, OPTIONS')
  t.ok(res.headers.get('x-request-id'))
  const ok = await fetch(`http://127.0.0.1:${port}/books/1`, {
    headers: { 'x-request-id': 'client-7' },
  })
  t.same(await ok.json(), { id: '1' })
  t.equal(ok.headers.get('x-request-id'), 'client-7')
})

test('@fastify/formbody after restwell: remove the form parser first (README recipe)', async (t) => {
  // The app's own @fastify/formbody; restwell has it through @restwell/negotiation only.
  const require = createRequire(import.meta.url)
  const formbody = createRequire(require.resolve('@restwell/negotiation/package.json'))(
    '@fastify/formbody',
  ) as FastifyPluginCallback
  const form = 'application/x-www-form-urlencoded'
  // `a=é` in Latin-1: the byte 0xE9 alone is no UTF-8.
  const latin1 = Buffer.from([0x61, 0x3d, 0xe9])
  const post = (app: FastifyInstance, payload: string | Buffer) =>
    app.inject({ method: 'POST', url: '/forms', headers: { 'content-type': form }, payload })
  const routes = (app: FastifyInstance) => {
    const config = { negotiation: { consumes: [form] } }
    app.post('/forms', { config }, async (request) => ({ got: request.body }))
  }

  const own = Fastify()
  apps.push(own)
  await own.register(restwell)
  own.removeContentTypeParser(form)
  await own.register(formbody)
  routes(own)
  t.ok(own.hasPlugin('@fastify/formbody'))
  const parsed = await post(own, 'title=Dune&year=1965')
  t.equal(parsed.statusCode, 200)
  t.same(parsed.json(), { got: { title: 'Dune', year: '1965' } })
  const lost = await post(own, latin1)
  t.equal(lost.statusCode, 200, 'the UTF-8 check is lost')
  t.same(lost.json(), { got: { a: '\uFFFD' } }, 'the byte becomes U+FFFD')

  const kept = Fastify()
  apps.push(kept)
  await kept.register(restwell)
  routes(kept)
  t.same((await post(kept, 'a=1')).json(), { got: { a: '1' } })
  const refused = await post(kept, latin1)
  t.equal(refused.statusCode, 400, "restwell's parser refuses bytes that are not UTF-8")
})

test("item links of a HAL page keep versioning's query parameter, under its configured name", async (t) => {
  const itemLinks = async (options: RestwellOptions, url: string): Promise<string[]> => {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(restwell, { rateLimit: false, ...options })
    app.get('/v1/books', { config: { auth: false, pagination: true } }, async (_request, reply) =>
      reply.paginate([{ id: 7 }], { total: 1 }),
    )
    const res = await app.inject({ url, headers: { accept: 'application/hal+json' } })
    t.equal(res.statusCode, 200, url)
    const body = res.json() as {
      _embedded: { books: Array<{ _links: { self: { href: string } } }> }
    }
    return body._embedded.books.map((item) => item._links.self.href)
  }
  t.same(
    await itemLinks({ versioning: { versions: [1] } }, '/books?version=1'),
    ['/books/7?version=1'],
    'the default name',
  )
  t.same(
    await itemLinks({ versioning: { versions: [1], queryParameter: 'api' } }, '/books?api=1'),
    ['/books/7?api=1'],
    'a renamed parameter is the one kept',
  )
  t.same(
    await itemLinks(
      { versioning: { versions: [1], carriers: { query: false } } },
      '/v1/books?version=1',
    ),
    ['/v1/books/7'],
    'no query carrier: nothing to keep',
  )
})

test('Accept-Patch on the 405 a route throws, as on the 405 of a method no route serves', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, { auth: false })
  app.patch('/books/:id', async () => ({}))
  app.put('/books/:id', async () => {
    throw httpErrors.methodNotAllowed('Not while checked out', { headers: { allow: 'PATCH' } })
  })
  const both = 'application/json-patch+json, application/merge-patch+json'
  const thrown = await app.inject({ method: 'PUT', url: '/books/1' })
  t.same([thrown.statusCode, thrown.headers['accept-patch']], [405, both])
  const unrouted = await app.inject({ method: 'DELETE', url: '/books/1' })
  t.same([unrouted.statusCode, unrouted.headers['accept-patch']], [405, both])
})
