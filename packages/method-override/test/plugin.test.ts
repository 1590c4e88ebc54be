import { ErrorCode, isHttpError, restwellErrors } from '@restwell/errors'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellMethods } from '@restwell/methods'
import {
  HEAD_TARGET_PROBLEM,
  type MethodOverrideOptions,
  OVERRIDABLE_METHODS,
  overrideMethod,
  overrideTwinOf,
  reroutedFrom,
  restwellMethodOverride,
} from '../src/index.js'

/** An app with a books resource; every handler echoes what it saw. */
async function build(
  options: MethodOverrideOptions = {},
  extra?: (app: FastifyInstance) => Promise<void>,
): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellMethodOverride, options)
  if (extra) await extra(app)
  const echo = async (request: import('fastify').FastifyRequest) => ({
    method: request.method,
    url: request.url,
    query: request.query,
    body: request.body ?? null,
    from: reroutedFrom(request)?.method ?? null,
  })
  app.get('/books/:id', echo)
  app.post('/books', echo)
  app.put(
    '/books/:id',
    {
      schema: {
        body: {
          type: 'object',
          required: ['title'],
          properties: { title: { type: 'string' } },
        },
      },
    },
    echo,
  )
  app.patch('/books/:id', echo)
  app.delete('/books/:id', async (_request, reply) => reply.code(204).send())
  app.options('/books/:id', echo)
  return app
}

test('a POST with X-HTTP-Method-Override runs the target route: schema, handler and all', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'POST',
    url: '/books/1',
    headers: { 'x-http-method-override': 'PUT' },
    payload: { title: 'Dune' },
  })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    method: 'PUT',
    url: '/books/1',
    query: {},
    body: { title: 'Dune' },
    from: 'POST',
  })
  const invalid = await app.inject({
    method: 'POST',
    url: '/books/1',
    headers: { 'x-http-method-override': 'put' },
    payload: { name: 'no title' },
  })
  t.equal(invalid.statusCode, 400, "the PUT route's body schema applies")
  t.equal(invalid.json().error.code, 'VALIDATION_ERROR')
})

test('an override is routed once: the twin of the target route, reached under a constraint', async (t) => {
  const app = Fastify()
  let passes = 0
  // A root hook added before the plugin runs for each time the request is routed.
  app.addHook('onRequest', async () => {
    passes++
  })
  const twins: Record<string, unknown>[] = []
  app.addHook('onRoute', (route) => {
    if (overrideTwinOf(route)?.of !== undefined) twins.push({ ...route })
  })
  await app.register(restwellErrors)
  await app.register(restwellMethodOverride)
  app.put('/books/:id', async (request) => ({
    method: request.method,
    url: request.url,
    query: request.query,
    routed: request.routeOptions.method,
  }))
  app.post('/books/:id', async () => ({ post: true }))
  await app.register(
    async (v1) => {
      v1.patch('/', async (request) => ({ method: request.method, url: request.url }))
    },
    { prefix: '/v1' },
  )
  const res = await app.inject({ method: 'POST', url: '/books/1?_method=PUT&a=1', payload: {} })
  t.same(res.json(), { method: 'PUT', url: '/books/1?a=1', query: { a: '1' }, routed: 'POST' })
  t.equal(passes, 1, 'one routing pass')
  const plain = await app.inject({ method: 'POST', url: '/books/1', payload: {} })
  t.same(plain.json(), { post: true }, "a POST without override reaches the path's own POST")
  for (const url of ['/v1', '/v1/']) {
    const root = await app.inject({
      method: 'POST',
      url,
      headers: { 'x-http-method-override': 'patch' },
      payload: {},
    })
    t.same(root.json(), { method: 'PATCH', url }, `a prefixed root route's twin answers ${url}`)
  }
  t.same(
    twins.map((route) => `${String(route.method)} ${String(route.url)}`),
    ['POST /books/:id', 'POST /v1'],
    'one POST twin per route and overridable method, at its URL',
  )
  const config = twins[0]?.config as { swaggerTransform: (input: object) => { schema: object } }
  t.same(
    config.swaggerTransform({ schema: { body: {} }, url: '/books/:id' }).schema,
    { body: {}, hide: true },
    '@fastify/swagger leaves the twin out of the document',
  )
  t.equal(twins[0]?.exposeHeadRoute, false)
})

test('?_method= is honoured case-insensitively and removed from the URL the handler sees', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'POST', url: '/books/2?a=1&_method=patch&b=%20x' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.method, 'PATCH')
  t.equal(body.url, '/books/2?a=1&b=%20x')
  t.same(body.query, { a: '1', b: ' x' })
  const only = await app.inject({ method: 'POST', url: '/books/2?_method=PATCH' })
  t.equal(only.json().url, '/books/2')
  t.same(only.json().query, {})
  const encoded = await app.inject({ method: 'POST', url: '/books/2?%5Fmethod=PATCH&c=%41' })
  t.equal(encoded.json().method, 'PATCH', 'an escaped parameter name is recognised')
  t.same(encoded.json().query, { c: 'A' })
  const del = await app.inject({ method: 'POST', url: '/books/2?_method=DELETE' })
  t.equal(del.statusCode, 204)
})

test('header and query may both be given when they agree', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'POST',
    url: '/books/3?_method=Patch',
    headers: { 'x-http-method-override': ' PATCH ' },
  })
  t.equal(res.json().method, 'PATCH')
})

test('never silently ignored: disagreement, TRACE/CONNECT, unlisted or malformed targets are 400', async (t) => {
  const app = await build()
  const cases: [string, Record<string, string>, RegExp, string][] = [
    [
      '/books/1?_method=PUT',
      { 'x-http-method-override': 'DELETE' },
      /disagree/,
      'querystring/_method',
    ],
    ['/books/1?_method=PUT&_method=PATCH', {}, /disagree/, 'querystring/_method'],
    [
      '/books/1',
      { 'x-http-method-override': 'TRACE' },
      /TRACE is not used/,
      'headers/x-http-method-override',
    ],
    ['/books/1?_method=connect', {}, /CONNECT is not used/, 'querystring/_method'],
    [
      '/books/1',
      { 'x-http-method-override': 'GET' },
      /not allowed; allowed: PUT, PATCH, DELETE, QUERY/,
      'headers/x-http-method-override',
    ],
    ['/books/1?_method=', {}, /exactly one method/, 'querystring/_method'],
    [
      '/books/1',
      { 'x-http-method-override': 'PUT, DELETE' },
      /exactly one method/,
      'headers/x-http-method-override',
    ],
    [
      '/books/1',
      { 'x-http-method-override': 'X'.repeat(100) },
      /"X{32}\.\.\."/,
      'headers/x-http-method-override',
    ],
  ]
  const twice = await app.inject({
    method: 'POST',
    url: '/books/1',
    headers: { 'x-http-method-override': ['PUT', 'PUT'] },
  })
  t.equal(twice.statusCode, 400, 'a repeated header is a list, refused')
  for (const [url, headers, message, field] of cases) {
    const res = await app.inject({ method: 'POST', url, headers })
    t.equal(res.statusCode, 400, url)
    const error = res.json().error
    t.equal(error.code, ErrorCode.INVALID_METHOD_OVERRIDE)
    t.match(error.message, message)
    t.equal(error.details[0].field, field)
  }
})

test('only POST carries an override: other methods are routed as sent', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'GET',
    url: '/books/4?_method=DELETE',
    headers: { 'x-http-method-override': 'DELETE' },
  })
  t.equal(res.statusCode, 200)
  t.same(res.json().query, { _method: 'DELETE' })
  t.equal(res.json().from, null)
  const plain = await app.inject({ method: 'POST', url: '/books?q=%41&x=1', payload: { a: 1 } })
  t.equal(plain.json().method, 'POST')
  t.equal(plain.json().from, null, 'a POST without an override is not rerouted')
})

test('options: allowed methods, header and query names, each carrier switchable', async (t) => {
  const getToo = await build({ methods: ['GET', 'DELETE'] })
  t.equal(
    (await getToo.inject({ method: 'POST', url: '/books/1?_method=get' })).json().method,
    'GET',
  )
  t.equal((await getToo.inject({ method: 'POST', url: '/books/1?_method=PUT' })).statusCode, 400)
  const read = await getToo.inject({
    method: 'POST',
    url: '/books/1',
    headers: { 'x-http-method-override': 'GET', 'content-type': 'application/x-unknown' },
    payload: 'not parsed',
  })
  t.equal(read.statusCode, 200, "a GET's twin reads no body: no 415 for its type")
  t.same([read.json().method, read.json().body], ['GET', null])

  const custom = await build({ header: 'X-Method', query: 'm' })
  const viaHeader = await custom.inject({
    method: 'POST',
    url: '/books/1',
    headers: { 'x-method': 'PATCH', 'x-http-method-override': 'DELETE' },
  })
  t.equal(viaHeader.json().method, 'PATCH', 'only the configured header counts')
  t.equal((await custom.inject({ method: 'POST', url: '/books/1?m=PATCH' })).json().method, 'PATCH')

  const noHeader = await build({ header: false })
  const ignored = await noHeader.inject({
    method: 'POST',
    url: '/books',
    headers: { 'x-http-method-override': 'DELETE' },
  })
  t.equal(ignored.json().method, 'POST')

  const noQuery = await build({ query: false })
  const kept = await noQuery.inject({ method: 'POST', url: '/books?_method=DELETE' })
  t.equal(kept.json().method, 'POST')
  t.same(kept.json().query, { _method: 'DELETE' })
})

test('bad options are refused at registration', async (t) => {
  for (const options of [
    { methods: ['TRACE'] },
    { methods: [] },
    { header: 'bad header' },
    { query: '' },
    { nope: 1 },
  ]) {
    const app = Fastify()
    await t.rejects(
      async () => app.register(restwellMethodOverride, options as MethodOverrideOptions),
      /@restwell\/method-override: option/,
    )
  }
})

test('HEAD is never an override target: refused at registration and on the wire', async (t) => {
  t.notOk((OVERRIDABLE_METHODS as readonly string[]).includes('HEAD'))
  for (const methods of [['HEAD'], ['GET', 'head'], ['PUT', ' Head ']]) {
    const app = Fastify()
    await t.rejects(
      async () => app.register(restwellMethodOverride, { methods } as MethodOverrideOptions),
      { name: 'OptionsError', message: /option "methods\.\d" may not be HEAD: .*Content-Length/ },
      JSON.stringify(methods),
    )
  }
  const app = await build({ methods: ['GET', 'PUT'] })
  for (const [url, headers, field] of [
    ['/books/1?_method=HEAD', {}, 'querystring/_method'],
    ['/books/1', { 'x-http-method-override': 'head' }, 'headers/x-http-method-override'],
  ] as const) {
    const res = await app.inject({ method: 'POST', url, headers })
    t.equal(res.statusCode, 400, url)
    const error = res.json().error
    t.equal(error.code, ErrorCode.INVALID_METHOD_OVERRIDE)
    t.equal(error.message, `Method override HEAD is refused: ${HEAD_TARGET_PROBLEM}`)
    t.same(error.details[0], {
      field,
      message: 'HEAD cannot be reached by override; use GET',
      code: ErrorCode.INVALID_METHOD_OVERRIDE,
    })
  }
  t.match(
    overrideMethod([{ field: 'querystring/_method', value: 'HEAD' }], new Set(['HEAD'])),
    { statusCode: 400, code: ErrorCode.INVALID_METHOD_OVERRIDE },
    'refused even when a hand-built list holds it',
  )
  // Over a socket: the refusal is a complete response, and GET (allowed) still sends its body.
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const head = await fetch(`${base}/books/1?_method=HEAD`, { method: 'POST' })
  t.equal(head.status, 400)
  t.equal(
    ((await head.json()) as { error: { code: string } }).error.code,
    'INVALID_METHOD_OVERRIDE',
  )
  const get = await fetch(`${base}/books/1?_method=GET`, { method: 'POST' })
  t.equal(get.status, 200)
  const body = await get.text()
  t.equal(get.headers.get('content-length'), String(Buffer.byteLength(body)))
  t.equal(JSON.parse(body).method, 'GET')
})

test('override + 405: a path without the target method answers 405 with Allow', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellMethodOverride)
  await app.register(restwellMethods)
  app.get('/authors/:id', async () => ({ ok: true }))
  app.post('/authors/:id', async () => ({ posted: true }))
  const res = await app.inject({ method: 'POST', url: '/authors/1?_method=DELETE' })
  t.equal(res.statusCode, 405)
  t.equal(res.json().error.code, 'METHOD_NOT_ALLOWED')
  t.match(res.headers.allow, /GET/)
  t.match(res.headers.allow, /POST/)
  t.notMatch(res.headers.allow, /DELETE/)
  const none = await app.inject({ method: 'POST', url: '/nowhere?_method=PUT' })
  t.equal(none.statusCode, 404, 'a path with no routes at all stays 404')
})

test('registered after @restwell/methods, the override refuses to load (it could never run)', async (t) => {
  const app = Fastify()
  await app.register(restwellMethods)
  await t.rejects(async () => app.register(restwellMethodOverride), /before @restwell\/methods/)
})

test('auth and rate-limit hooks see the final method, on the rerouted pass', async (t) => {
  const seen: string[] = []
  const app = await build({}, async (app) => {
    // A root hook registered after the override, like an auth or rate-limit plugin.
    app.addHook('onRequest', async (request) => {
      seen.push(`auth ${request.method} ${request.url}`)
      if (request.method === 'DELETE' && request.headers.authorization === undefined) {
        const { httpErrors } = await import('@restwell/errors')
        throw httpErrors.unauthorized('Bearer token required', {
          headers: { 'www-authenticate': 'Bearer' },
        })
      }
    })
  })
  const res = await app.inject({ method: 'POST', url: '/books/9?_method=DELETE' })
  t.equal(res.statusCode, 401, 'the DELETE rule applies to an overridden POST')
  t.equal(res.headers['www-authenticate'], 'Bearer')
  t.same(seen, ['auth DELETE /books/9'], 'the hook ran once, with the final method and URL')
  const ok = await app.inject({
    method: 'POST',
    url: '/books/9?_method=DELETE',
    headers: { authorization: 'Bearer x' },
  })
  t.equal(ok.statusCode, 204)
})

test('over a real socket: header, query, 405 and 400', async (t) => {
  const app = await build({}, async (app) => {
    await app.register(restwellMethods)
  })
  app.get('/shelves/:id', async () => ({ ok: true }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const put = await fetch(`${base}/books/1`, {
    method: 'POST',
    headers: { 'x-http-method-override': 'PUT', 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Emma' }),
  })
  t.equal(put.status, 200)
  t.same(await put.json(), {
    method: 'PUT',
    url: '/books/1',
    query: {},
    body: { title: 'Emma' },
    from: 'POST',
  })
  const del = await fetch(`${base}/books/1?_method=DELETE`, { method: 'POST' })
  t.equal(del.status, 204)
  const notAllowed = await fetch(`${base}/shelves/1?_method=PATCH`, { method: 'POST' })
  t.equal(notAllowed.status, 405)
  t.match(notAllowed.headers.get('allow'), /GET/)
  const bad = await fetch(`${base}/books/1?_method=TRACE`, { method: 'POST' })
  t.equal(bad.status, 400)
  t.equal(((await bad.json()) as { error: { code: string } }).error.code, 'INVALID_METHOD_OVERRIDE')
})

test('property: overrideMethod returns an allowed method or a 400, never throws nor anything else', async (t) => {
  const allowed = new Set(['PUT', 'PATCH', 'DELETE'])
  const value = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom('put', 'PATCH', ' delete ', 'TRACE', 'GET', 'PUT,PATCH', ''),
  )
  const source = fc.record({ field: fc.constantFrom('headers/x', 'querystring/_method'), value })
  fc.assert(
    fc.property(fc.array(source, { minLength: 1, maxLength: 4 }), (sources) => {
      const method = overrideMethod(sources, allowed)
      if (typeof method === 'string') return allowed.has(method)
      return (
        isHttpError(method) &&
        method.statusCode === 400 &&
        method.code === 'INVALID_METHOD_OVERRIDE'
      )
    }),
  )
  t.pass('property held')
})
