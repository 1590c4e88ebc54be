import Fastify, { type FastifyInstance } from 'fastify'
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
  await t.rejects(attempt({ errorz: {} }), { message: /^restwell: option "errorz" is invalid/ })
  await t.rejects(attempt({ methods: true }), { message: /^restwell: option "methods" is invalid/ })
  await t.rejects(attempt({ errors: { format: 'yaml' } }), {
    message: /^@restwell\/errors: option "format" is invalid/,
  })
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
