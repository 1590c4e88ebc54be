import { httpErrors, restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import tap, { test } from 'tap'
import { answersWhileClosing } from '../../../test/helpers/closing.js'
import { type CorsOptions, DEFAULT_EXPOSED_HEADERS, restwellCors } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

/** An app with @restwell/errors, then CORS, and a few routes. */
async function build(options: CorsOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors)
  await app.register(restwellCors, options)
  app.get('/books', async () => [])
  app.patch('/books/:id', async () => ({ ok: true }))
  app.options('/own', async (_request, reply) => reply.send('own options'))
  app.get('/own', async () => 'own')
  return app
}

const preflight = {
  origin: 'https://app.example',
  'access-control-request-method': 'PATCH',
  'access-control-request-headers': 'authorization, if-match, content-type',
}

/** The names of a `Vary` value, lower case. */
const names = (value: unknown): string[] =>
  String(value)
    .split(',')
    .map((name) => name.trim().toLowerCase())

test('preflight: 200 with the allowed methods, headers and max-age 86400', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'OPTIONS', url: '/books/1', headers: preflight })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['access-control-allow-origin'], '*')
  t.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE')
  const allowed = String(res.headers['access-control-allow-headers']).split(', ')
  for (const header of ['content-type', 'authorization', 'if-match', 'if-none-match']) {
    t.ok(allowed.includes(header), header)
  }
  t.equal(res.headers['access-control-max-age'], '86400')
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['access-control-allow-credentials'], undefined)
  t.equal(
    res.headers.vary,
    'Access-Control-Request-Method, Access-Control-Request-Headers',
    "each name once; not Origin: '*' is the answer for every origin",
  )
  t.equal(res.body, '')
})

test('a plain OPTIONS (not a preflight) goes on to the app', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(res.statusCode, 404, 'no OPTIONS route: the not-found answer')
  t.equal(res.headers['access-control-allow-methods'], undefined)
  const withOrigin = await app.inject({
    method: 'OPTIONS',
    url: '/books',
    headers: { origin: 'https://app.example' },
  })
  t.equal(withOrigin.statusCode, 404)
  t.equal(withOrigin.headers['access-control-allow-origin'], '*')
  t.equal(withOrigin.headers['access-control-allow-methods'], undefined)
  const own = await app.inject({ method: 'OPTIONS', url: '/own' })
  t.equal(own.body, 'own options')
})

test('actual requests expose the headers scripts need', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/books', headers: { origin: 'https://app.example' } })
  t.equal(res.headers['access-control-allow-origin'], '*')
  const exposed = String(res.headers['access-control-expose-headers'])
  for (const header of [
    'ETag',
    'Location',
    'Link',
    'X-Total-Count',
    'Retry-After',
    'X-RateLimit-Remaining',
  ]) {
    t.match(exposed, header)
  }
  const error = await app.inject({
    method: 'DELETE',
    url: '/books',
    headers: { origin: 'https://x' },
  })
  t.equal(error.statusCode, 404)
  t.equal(error.headers['access-control-allow-origin'], '*', 'errors carry CORS headers too')
})

test("with '*', every answer gets the CORS headers, Origin or not, and none varies with Origin", async (t) => {
  const app = await build()
  for (const headers of [{}, { origin: 'https://app.example' }]) {
    for (const request of [{ url: '/books' }, { method: 'DELETE' as const, url: '/books' }]) {
      const res = await app.inject({ ...request, headers })
      const label = `${request.method ?? 'GET'} ${JSON.stringify(headers)}`
      t.equal(res.headers['access-control-allow-origin'], '*', label)
      t.match(res.headers['access-control-expose-headers'], /^ETag, Location/, label)
      t.notMatch(String(res.headers.vary), /origin/i, `${label}: the answer does not depend on it`)
    }
  }
})

test('a request without Origin gets no CORS headers from a list, and every answer varies with Origin', async (t) => {
  const app = await build({ origin: ['https://app.example'] })
  const plain = await app.inject({ url: '/books' })
  t.equal(plain.statusCode, 200)
  for (const name of [
    'access-control-allow-origin',
    'access-control-expose-headers',
    'access-control-allow-credentials',
  ]) {
    t.equal(plain.headers[name], undefined, `no ${name} without Origin`)
  }
  t.ok(names(plain.headers.vary).includes('origin'), 'Vary: Origin on the non-CORS answer')
  const cors = await app.inject({ url: '/books', headers: { origin: 'https://app.example' } })
  t.equal(cors.headers['access-control-allow-origin'], 'https://app.example')
  t.ok(names(cors.headers.vary).includes('origin'), 'and on the CORS answer')
  t.equal(
    cors.headers['access-control-expose-headers'],
    'ETag, Location, Link, X-Total-Count, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Content-Range, Accept-Ranges, Allow, Accept, Accept-Encoding, Accept-Patch, Accept-Query, Content-Location, API-Version, Deprecation, Sunset, WWW-Authenticate',
    'alone: every header a restwell convention may send, each name once',
  )
  t.same(String(cors.headers['access-control-expose-headers']).split(', '), DEFAULT_EXPOSED_HEADERS)
  const error = await app.inject({ method: 'DELETE', url: '/books' })
  t.equal(error.statusCode, 404)
  t.equal(error.headers['access-control-allow-origin'], undefined, 'errors alike')
  t.ok(names(error.headers.vary).includes('origin'))
})

test('Vary: Origin stays on the final answer when a handler, a hook or an error sets Vary', async (t) => {
  // Fastify's reply.header('vary', ...) replaces the value: the Origin the CORS step put there
  // in onRequest was lost, and a shared cache could hand the non-CORS answer to a browser.
  const app = await build({ origin: ['https://app.example'] })
  // A multi-tenant app's own hook, after the plugin's: every answer it reaches varies by tenant.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers['x-tenant'] !== undefined) reply.header('vary', 'X-Tenant')
    done()
  })
  app.get('/shelves', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300').header('vary', 'Accept-Language')
    return [{ id: 1, title: 'Dune' }]
  })
  app.get('/gone', async (_request, reply) => {
    reply.header('vary', 'Accept-Language')
    throw httpErrors.notFound('no such book')
  })
  app.get('/boom', async (_request, reply) => {
    reply.header('vary', 'Accept-Language')
    throw new Error('crash')
  })
  app.get('/refused', async () => {
    throw httpErrors.conflict('taken', { headers: { vary: 'Accept-Language' } })
  })
  app.get('/origin-first', async (_request, reply) => {
    reply.header('vary', 'Origin, Accept-Language')
    return 'kept as set'
  })
  app.get('/private', { config: { cors: false } }, async (_request, reply) => {
    reply.header('vary', 'Accept-Language')
    return 'private'
  })
  const origin = { origin: 'https://app.example' }
  const cases: [string, InjectOptions, number, string][] = [
    ['200 without Origin', { url: '/shelves' }, 200, 'accept-language'],
    ['200 with Origin', { url: '/shelves', headers: origin }, 200, 'accept-language'],
    ['HEAD', { method: 'HEAD', url: '/shelves', headers: origin }, 200, 'accept-language'],
    ['404 thrown', { url: '/gone', headers: origin }, 404, 'accept-language'],
    ['500', { url: '/boom', headers: origin }, 500, 'accept-language'],
    ['an error with its own Vary', { url: '/refused', headers: origin }, 409, 'accept-language'],
    [
      '404, no route',
      { url: '/nowhere', headers: { ...origin, 'x-tenant': 'a' } },
      404,
      'x-tenant',
    ],
    [
      'a hook of the app',
      { url: '/shelves', headers: { 'x-tenant': 'a' } },
      200,
      'accept-language',
    ],
  ]
  for (const [label, request, status, own] of cases) {
    const res = await app.inject(request)
    t.equal(res.statusCode, status, label)
    const vary = names(res.headers.vary)
    t.ok(vary.includes('origin'), `${label}: Origin in ${res.headers.vary}`)
    t.ok(vary.includes(own), `${label}: its own ${own} kept`)
  }
  const first = await app.inject({ url: '/origin-first', headers: origin })
  t.equal(first.headers.vary, 'Origin, Accept-Language', 'Origin first already: left as it is')
  const optedOut = await app.inject({ url: '/private', headers: origin })
  t.equal(optedOut.headers['access-control-allow-origin'], undefined)
  t.equal(optedOut.headers.vary, 'Accept-Language', 'config.cors: false: no Origin added')
  const asked = await app.inject({
    method: 'OPTIONS',
    url: '/books',
    headers: { ...preflight, 'x-tenant': 'a' },
  })
  t.equal(
    asked.headers.vary,
    'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    'a preflight keeps its own Vary',
  )
})

test('a listed origin with credentials: no CORS headers without Origin', async (t) => {
  const app = await build({ origin: ['https://app.example'], credentials: true })
  const plain = await app.inject({ url: '/books' })
  t.equal(plain.headers['access-control-allow-origin'], undefined)
  t.equal(plain.headers['access-control-allow-credentials'], undefined)
  const listed = await app.inject({ url: '/books', headers: { origin: 'https://app.example' } })
  t.equal(listed.headers['access-control-allow-origin'], 'https://app.example')
  t.equal(listed.headers['access-control-allow-credentials'], 'true')
})

test('allowed origins: listed ones are answered, others get no CORS headers', async (t) => {
  const app = await build({ origin: ['https://app.example'], credentials: true })
  const ok = await app.inject({ method: 'OPTIONS', url: '/books', headers: preflight })
  t.equal(ok.headers['access-control-allow-origin'], 'https://app.example')
  t.equal(ok.headers['access-control-allow-credentials'], 'true')
  t.match(ok.headers.vary, /Origin/)
  const denied = await app.inject({
    method: 'OPTIONS',
    url: '/books',
    headers: { ...preflight, origin: 'https://evil.example' },
  })
  t.equal(denied.headers['access-control-allow-origin'], undefined)
})

test('each origin rule: who gets Access-Control-Allow-Origin, and what', async (t) => {
  // A `g` flag makes RegExp#test stateful (lastIndex): each request must start afresh.
  const sites = /^https:\/\/[a-z]+\.example$/g
  const rules: [CorsOptions, string, string | undefined][] = [
    [{ origin: true }, 'https://any.example', 'https://any.example'],
    [{ origin: sites }, 'https://app.example', 'https://app.example'],
    [{ origin: sites }, 'http://app.example', undefined],
    [{ origin: 'https://app.example' }, 'https://app.example', 'https://app.example'],
    [{ origin: 'https://app.example' }, 'https://evil.example', undefined],
    [{ origin: ['https://a.example', '*'] }, 'https://b.example', '*'],
    [{ origin: false }, 'https://app.example', undefined],
  ]
  for (const [cors, origin, expected] of rules) {
    const app = await build(cors)
    const label = `${String(cors.origin)} for ${origin}`
    for (const time of ['first', 'again']) {
      const res = await app.inject({ url: '/books', headers: { origin } })
      t.equal(res.headers['access-control-allow-origin'], expected, `${label}, ${time}`)
      t.equal(
        res.headers['access-control-expose-headers'] !== undefined,
        expected !== undefined,
        `exposed headers only with an allowed origin: ${label}`,
      )
      const constant = expected === '*' || cors.origin === false
      t.equal(/Origin/.test(String(res.headers.vary)), !constant, `Vary: Origin: ${label}`)
    }
  }
})

test('a refused origin: no credentials, no exposed headers, a preflight without its headers', async (t) => {
  const app = await build({ origin: ['https://app.example'], credentials: true })
  const actual = await app.inject({ url: '/books', headers: { origin: 'https://evil.example' } })
  t.equal(actual.headers['access-control-allow-credentials'], undefined)
  t.equal(actual.headers['access-control-expose-headers'], undefined)
  const refused = await app.inject({
    method: 'OPTIONS',
    url: '/books',
    headers: { ...preflight, origin: 'https://evil.example' },
  })
  t.equal(refused.statusCode, 200)
  t.equal(refused.headers['access-control-allow-methods'], undefined)
  t.equal(refused.headers['access-control-allow-headers'], undefined)
  t.match(
    refused.headers.vary,
    /Origin, Access-Control-Request-Method, Access-Control-Request-Headers/,
  )
})

test('a route with config.cors: false gets no CORS headers and no Vary: Origin', async (t) => {
  const app = Fastify()
  apps.push(app)
  app.get('/early', { config: { cors: false } }, async () => 'registered before the plugin')
  await app.register(restwellCors)
  app.get('/private', { config: { cors: false } }, async () => 'private')
  app.get('/public', async () => 'public')
  for (const url of ['/early', '/private']) {
    const res = await app.inject({ url, headers: { origin: 'https://app.example' } })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['access-control-allow-origin'], undefined, url)
    t.notMatch(String(res.headers.vary), /Origin/, url)
  }
  const open = await app.inject({ url: '/public', headers: { origin: 'https://app.example' } })
  t.equal(open.headers['access-control-allow-origin'], '*')
})

test('a preflight asking about a route with config.cors: false gets no CORS headers', async (t) => {
  // The preflight is an OPTIONS request; the route it asks about is the one of
  // Access-Control-Request-Method on the same path. Static paths win over parametric ones as in
  // Fastify's router; routes told apart by constraints opt out together.
  const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } })
  apps.push(app)
  app.delete('/early/:id', { config: { cors: false } }, async () => 'before the plugin')
  await app.register(restwellCors)
  app.delete('/admin/:id', { config: { cors: false } }, async () => 'gone')
  app.get('/admin/:id', async () => 'public read')
  app.delete('/admin/public', async () => 'a static path with CORS')
  app.delete('/hosts', { constraints: { host: 'a.example' } }, async () => 'a')
  app.delete(
    '/hosts',
    { constraints: { host: 'b.example' }, config: { cors: false } },
    async () => 'b',
  )
  const ask = (url: string, method: string) =>
    app.inject({
      method: 'OPTIONS',
      url,
      headers: { ...preflight, 'access-control-request-method': method },
    })
  for (const [url, method] of [
    ['/admin/1', 'DELETE'],
    ['/admin/1/?x=1', 'DELETE'],
    ['/early/1', 'DELETE'],
    ['/hosts', 'DELETE'],
  ] as const) {
    const refused = await ask(url, method)
    t.equal(refused.statusCode, 200, `${method} ${url}`)
    t.equal(refused.headers['access-control-allow-origin'], undefined, `${method} ${url}`)
    t.equal(refused.headers['access-control-allow-methods'], undefined, `${method} ${url}`)
  }
  for (const [url, method] of [
    ['/admin/1', 'GET'],
    ['/admin/public', 'DELETE'],
    ['/nowhere', 'DELETE'],
    ['/admin/1', 'patch'],
  ] as const) {
    const allowed = await ask(url, method)
    t.equal(allowed.headers['access-control-allow-origin'], '*', `${method} ${url}`)
    t.match(allowed.headers['access-control-allow-methods'], /DELETE/, `${method} ${url}`)
  }
})

test('methodOverride: a preflight for a POST that may be overridden is judged by every route it may reach', async (t) => {
  const routes = async (methodOverride: CorsOptions['methodOverride']) => {
    const app = Fastify()
    apps.push(app)
    await app.register(restwellCors, { methodOverride })
    app.delete('/admin/:id', { config: { cors: false } }, async () => 'gone')
    app.post('/admin/:id', async () => 'posted')
    return (url: string, requestHeaders = 'content-type') =>
      app
        .inject({
          method: 'OPTIONS',
          url,
          headers: {
            origin: 'https://app.example',
            'access-control-request-method': 'POST',
            ...(requestHeaders === '' ? {} : { 'access-control-request-headers': requestHeaders }),
          },
        })
        .then((res) => res.headers['access-control-allow-origin'] !== undefined)
  }
  const reach = { header: 'X-HTTP-Method-Override', query: '_method', methods: ['DELETE'] }
  const allowed = await routes(reach)
  t.notOk(await allowed('/admin/7', 'x-http-method-override, content-type'), 'override header')
  t.notOk(await allowed('/admin/7?_method=DELETE'), 'override parameter')
  t.notOk(await allowed('/admin/7?_method=DELETE', ''), 'no headers asked for')
  t.ok(await allowed('/admin/7'), 'a POST that cannot be overridden')
  const plain = await routes(false)
  t.ok(await plain('/admin/7', 'x-http-method-override'), 'no method override')
  const queryOnly = await routes({ header: false, query: '_m', methods: ['DELETE'] })
  t.ok(await queryOnly('/admin/7', 'x-http-method-override'), 'the header is not read')
  t.notOk(await queryOnly('/admin/7?_m=DELETE'))
  const headerOnly = await routes({ header: 'x-http-method-override', query: false, methods: [] })
  t.ok(await headerOnly('/admin/7?_method=DELETE'), 'the query is not read')
})

test('settings add headers, change max-age and methods', async (t) => {
  const app = await build({
    allowedHeaders: ['X-Tenant', 'Content-Type'],
    exposedHeaders: ['X-Trace'],
    maxAge: 600,
    methods: ['GET'],
  })
  const res = await app.inject({ method: 'OPTIONS', url: '/books', headers: preflight })
  t.match(res.headers['access-control-allow-headers'], /X-Tenant/)
  t.equal(String(res.headers['access-control-allow-headers']).match(/content-type/gi)?.length, 1)
  t.equal(res.headers['access-control-max-age'], '600')
  t.equal(res.headers['access-control-allow-methods'], 'GET')
  const actual = await app.inject({ url: '/books', headers: { origin: 'https://a' } })
  t.match(actual.headers['access-control-expose-headers'], /X-Trace/)
})

test('credentials with any origin is refused at registration', async (t) => {
  // A list holding '*' answers `Access-Control-Allow-Origin: *`, which a credentialed request
  // refuses (Fetch standard, CORS check).
  for (const origin of ['*', true, ['*', 'https://app.example'], ['https://a.example', '*']]) {
    const app = Fastify()
    await t.rejects(
      async () => {
        await app.register(restwellCors, { origin, credentials: true })
      },
      {
        name: 'OptionsError',
        option: 'origin',
        message:
          /^@restwell\/cors: option "origin" must name the allowed origins when credentials is true \(not '\*', true or a list holding '\*'/,
      },
      JSON.stringify(origin),
    )
  }
  const app = Fastify()
  await t.rejects(async () => app.register(restwellCors, { maxAge: -1 }), {
    name: 'OptionsError',
    message: /^@restwell\/cors: option "maxAge"/,
  })
})

test('answers refused before the CORS hook ran still carry the CORS headers', async (t) => {
  const app = await build()
  const origin = 'https://app.example'
  const unmet = await app.inject({ url: '/books', headers: { origin, expect: 'something' } })
  t.equal(unmet.statusCode, 417)
  t.equal(unmet.headers['access-control-allow-origin'], '*', 'a script can read the 417')
  t.match(unmet.headers['access-control-expose-headers'], /X-Request-Id/)
  const plain = await app.inject({ url: '/books', headers: { expect: 'something' } })
  t.equal(plain.headers['access-control-allow-origin'], '*', "'*' without Origin too")
  const nowhere = await app.inject({ url: '/nowhere', headers: { origin, expect: 'something' } })
  t.equal(nowhere.headers['access-control-allow-origin'], '*', 'an answer of no route too')

  const listed = await build({ origin: ['https://app.example'], credentials: true })
  const refused = await listed.inject({
    url: '/books',
    headers: { origin: 'https://elsewhere.example', expect: 'something' },
  })
  t.equal(refused.statusCode, 417)
  t.equal(refused.headers['access-control-allow-origin'], undefined, 'a refused origin gets none')
  const allowed = await listed.inject({ url: '/books', headers: { origin, expect: 'something' } })
  t.equal(allowed.headers['access-control-allow-origin'], origin)
  t.equal(allowed.headers['access-control-allow-credentials'], 'true')

  const optedOut = await build()
  optedOut.get('/private', { config: { cors: false } }, async () => 'x')
  const off = await optedOut.inject({ url: '/private', headers: { origin, expect: 'something' } })
  t.equal(off.statusCode, 417)
  t.equal(off.headers['access-control-allow-origin'], undefined, 'config.cors: false gets none')
})

test('a request arriving while the app closes: the 503 carries the CORS headers', async (t) => {
  const app = Fastify({ return503OnClosing: false })
  await app.register(restwellErrors)
  await app.register(restwellCors)
  app.get('/books', async () => [])
  const answers = await answersWhileClosing(
    app,
    'GET /books HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example\r\n\r\n',
  )
  const head = answers[1]?.split('\r\n\r\n')[0] ?? ''
  t.match(head, /^503 /)
  t.match(head, /\r\naccess-control-allow-origin: \*\r\n/i)
  t.match(head, /\r\naccess-control-expose-headers: [^\r]*Retry-After/i, 'Retry-After readable')
})

test('a preflight for QUERY (no safelisted method) is allowed QUERY only where a route takes it', async (t) => {
  const app = await build({ origin: 'https://app.example' })
  app.route({ method: 'QUERY', url: '/books/:id', handler: async () => ({ ok: true }) })
  const ask = (url: string, method: string) =>
    app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: 'https://app.example', 'access-control-request-method': method },
    })
  const query = await ask('/books/7', 'QUERY')
  t.equal(query.statusCode, 200)
  t.equal(
    query.headers['access-control-allow-methods'],
    'GET, HEAD, POST, PUT, PATCH, DELETE, QUERY',
  )
  const elsewhere = await ask('/own', 'QUERY')
  t.equal(elsewhere.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE')
  const lower = await ask('/books/7', 'query')
  t.notMatch(
    lower.headers['access-control-allow-methods'],
    /QUERY/,
    'method names are case-sensitive',
  )
  const patch = await ask('/books/7', 'PATCH')
  t.notMatch(patch.headers['access-control-allow-methods'], /QUERY/, 'listed only when asked')
  const listed = await build({ origin: 'https://app.example', methods: ['GET', 'QUERY'] })
  listed.route({ method: 'QUERY', url: '/books/:id', handler: async () => ({ ok: true }) })
  const own = await listed.inject({
    method: 'OPTIONS',
    url: '/books/7',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'QUERY' },
  })
  t.equal(own.headers['access-control-allow-methods'], 'GET, QUERY', 'listed once')
})
