import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import tap, { test } from 'tap'
import { answersWhileClosing } from '../../../test/helpers/closing.js'
import restwell, { httpErrors, type RestwellOptions } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

async function build(options: RestwellOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, options)
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
  t.equal(res.headers['access-control-allow-credentials'], undefined)
  t.equal(
    res.headers.vary,
    'Access-Control-Request-Method, Access-Control-Request-Headers',
    "each name once; not Origin: '*' is the answer for every origin",
  )
  t.equal(res.body, '')
})

test('a plain OPTIONS (not a preflight) still gets 200 + Allow from methods', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers.allow, 'PATCH, OPTIONS')
  t.equal(res.headers['access-control-allow-methods'], undefined)
  const withOrigin = await app.inject({
    method: 'OPTIONS',
    url: '/books',
    headers: { origin: 'https://app.example' },
  })
  t.equal(withOrigin.statusCode, 200)
  t.equal(withOrigin.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(withOrigin.headers['access-control-allow-origin'], '*')
  const missing = await app.inject({ method: 'OPTIONS', url: '/missing' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.code, 'NOT_FOUND')
  const own = await app.inject({ method: 'OPTIONS', url: '/own' })
  t.equal(own.body, 'own options')
})

test('405 and 404 are unchanged by the CORS catch-all OPTIONS route', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'DELETE', url: '/books' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
  const missing = await app.inject({ method: 'DELETE', url: '/nowhere' })
  t.equal(missing.statusCode, 404)
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
  const app = await build({ cors: { origin: ['https://app.example'] } })
  const plain = await app.inject({ url: '/books' })
  t.equal(plain.statusCode, 200)
  for (const name of [
    'access-control-allow-origin',
    'access-control-expose-headers',
    'access-control-allow-credentials',
  ]) {
    t.equal(plain.headers[name], undefined, `no ${name} without Origin`)
  }
  const varies = (value: unknown) =>
    String(value)
      .split(',')
      .map((name) => name.trim().toLowerCase())
  t.ok(varies(plain.headers.vary).includes('origin'), 'Vary: Origin on the non-CORS answer')
  const cors = await app.inject({ url: '/books', headers: { origin: 'https://app.example' } })
  t.equal(cors.headers['access-control-allow-origin'], 'https://app.example')
  t.ok(varies(cors.headers.vary).includes('origin'), 'and on the CORS answer')
  t.equal(
    cors.headers['access-control-expose-headers'],
    'ETag, Location, Link, X-Total-Count, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Content-Range, Accept-Ranges, Allow, Accept, Accept-Encoding, Accept-Patch, API-Version, Deprecation, Sunset, WWW-Authenticate, Idempotent-Replayed',
    'one list, each name once',
  )
  const error = await app.inject({ method: 'DELETE', url: '/books' })
  t.equal(error.statusCode, 405)
  t.equal(error.headers['access-control-allow-origin'], undefined, 'errors alike')
  t.ok(varies(error.headers.vary).includes('origin'))
  const off = await build({ cors: false })
  const untouched = await off.inject({ url: '/books' })
  t.notOk(varies(untouched.headers.vary).includes('origin'), 'no Vary: Origin with CORS off')
})

test('Vary: Origin stays on the final answer when a handler, a hook or an error sets Vary', async (t) => {
  // Fastify's reply.header('vary', ...) replaces the value: the Origin the CORS hook put there in
  // onRequest was lost, and a shared cache could hand the non-CORS answer to a browser.
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, { rateLimit: false, cors: { origin: ['https://app.example'] } })
  // A multi-tenant app's own hook, after restwell's: every answer it reaches varies by tenant.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers['x-tenant'] !== undefined) reply.header('vary', 'X-Tenant')
    done()
  })
  app.get('/books', async (_request, reply) => {
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
  app.get('/private', { config: { cors: false } }, async (_request, reply) => {
    reply.header('vary', 'Accept-Language')
    return 'private'
  })
  const names = (value: unknown) =>
    String(value)
      .split(',')
      .map((name) => name.trim().toLowerCase())
  const origin = { origin: 'https://app.example' }
  const first = await app.inject({ url: '/books' })
  const cases: [string, InjectOptions, number, string][] = [
    ['200 without Origin', { url: '/books' }, 200, 'accept-language'],
    ['200 with Origin', { url: '/books', headers: origin }, 200, 'accept-language'],
    ['HEAD', { method: 'HEAD', url: '/books', headers: origin }, 200, 'accept-language'],
    [
      '304',
      { url: '/books', headers: { ...origin, 'if-none-match': String(first.headers.etag) } },
      304,
      'accept-language',
    ],
    ['404 thrown', { url: '/gone', headers: origin }, 404, 'accept-language'],
    ['500', { url: '/boom', headers: origin }, 500, 'accept-language'],
    ['an error with its own Vary', { url: '/refused', headers: origin }, 409, 'accept-language'],
    [
      '404, no route',
      { url: '/nowhere', headers: { ...origin, 'x-tenant': 'a' } },
      404,
      'x-tenant',
    ],
    // Refused by @restwell/methods' hook, before the app's.
    ['405', { method: 'DELETE', url: '/books', headers: origin }, 405, 'accept'],
    ['a hook of the app', { url: '/books', headers: { 'x-tenant': 'a' } }, 200, 'accept-language'],
  ]
  for (const [label, request, status, own] of cases) {
    const res = await app.inject(request)
    t.equal(res.statusCode, status, label)
    const vary = names(res.headers.vary)
    t.ok(vary.includes('origin'), `${label}: Origin in ${res.headers.vary}`)
    t.ok(vary.includes(own), `${label}: its own ${own} kept`)
  }
  const optedOut = await app.inject({ url: '/private', headers: origin })
  t.equal(optedOut.headers['access-control-allow-origin'], undefined)
  t.match(optedOut.headers.vary, /^Accept-Language, /)
  t.notOk(names(optedOut.headers.vary).includes('origin'), 'config.cors: false: no Origin added')
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

test('renamed headers are exposed under their names, and not at all when not sent', async (t) => {
  // Scripts read only the CORS-safelisted response headers and the exposed ones (Fetch).
  const exposedBy = async (options: RestwellOptions) => {
    const app = await build(options)
    if (options.pagination !== false) {
      app.get('/v1/shelves', { config: { pagination: true } }, async (_request, reply) =>
        reply.paginate([{ id: 1 }], { total: 41 }),
      )
    }
    const url = options.pagination === false ? '/books' : '/v1/shelves'
    const res = await app.inject({ url, headers: { origin: 'https://app.example' } })
    t.equal(res.statusCode, 200)
    const asked = await app.inject({ method: 'OPTIONS', url: '/books', headers: preflight })
    return {
      res,
      exposed: String(res.headers['access-control-expose-headers']).split(', '),
      allowed: String(asked.headers['access-control-allow-headers']).split(', '),
    }
  }
  const renamed = await exposedBy({
    pagination: { totalHeader: 'x-total' },
    versioning: { responseHeader: 'x-api-version' },
    errors: { requestIdHeader: 'X-Correlation-Id' },
  })
  t.equal(renamed.res.headers['x-total'], '41')
  t.equal(renamed.res.headers['x-api-version'], '1')
  t.ok(renamed.res.headers['x-correlation-id'])
  for (const name of ['x-total', 'x-api-version', 'x-correlation-id']) {
    t.ok(renamed.exposed.includes(name), `${name} exposed`)
  }
  for (const name of ['X-Total-Count', 'API-Version', 'X-Request-Id']) {
    t.notOk(renamed.exposed.includes(name), `${name} (not sent) not exposed`)
  }
  t.equal(renamed.exposed.indexOf('x-total'), 3, 'in the place of the default name')
  t.ok(renamed.allowed.includes('x-correlation-id'), 'the request id header may be sent')
  t.ok(renamed.allowed.includes('x-request-id'), 'and X-Request-Id, which genReqId reads')
  const none = await exposedBy({
    pagination: { totalHeader: false },
    versioning: { responseHeader: false },
    errors: { requestIdHeader: false },
  })
  t.equal(none.res.headers['x-total-count'], undefined)
  const off = await exposedBy({ pagination: false, versioning: false, errors: false })
  for (const { exposed } of [none, off]) {
    for (const name of ['X-Total-Count', 'API-Version', 'X-Request-Id']) {
      t.notOk(exposed.includes(name), `${name} not exposed`)
    }
    t.ok(exposed.includes('ETag'), 'the others stay')
  }
  const cased = await exposedBy({ pagination: { totalHeader: 'X-TOTAL-COUNT' } })
  t.ok(cased.exposed.includes('X-Total-Count'), 'a name differing in case keeps the default')
})

test('a listed origin with credentials: no CORS headers without Origin', async (t) => {
  const app = await build({ cors: { origin: ['https://app.example'], credentials: true } })
  const plain = await app.inject({ url: '/books' })
  t.equal(plain.headers['access-control-allow-origin'], undefined)
  t.equal(plain.headers['access-control-allow-credentials'], undefined)
  const listed = await app.inject({ url: '/books', headers: { origin: 'https://app.example' } })
  t.equal(listed.headers['access-control-allow-origin'], 'https://app.example')
  t.equal(listed.headers['access-control-allow-credentials'], 'true')
})

test('allowed origins: listed ones are answered, others get no CORS headers', async (t) => {
  const app = await build({ cors: { origin: ['https://app.example'], credentials: true } })
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
  const rules: [RestwellOptions['cors'], string, string | undefined][] = [
    [{ origin: true }, 'https://any.example', 'https://any.example'],
    [{ origin: sites }, 'https://app.example', 'https://app.example'],
    [{ origin: sites }, 'http://app.example', undefined],
    [{ origin: 'https://app.example' }, 'https://app.example', 'https://app.example'],
    [{ origin: 'https://app.example' }, 'https://evil.example', undefined],
    [{ origin: ['https://a.example', '*'] }, 'https://b.example', '*'],
    [{ origin: false }, 'https://app.example', undefined],
  ]
  for (const [cors, origin, expected] of rules) {
    const app = await build({ cors })
    const label = `${String((cors as { origin: unknown }).origin)} for ${origin}`
    for (const time of ['first', 'again']) {
      const res = await app.inject({ url: '/books', headers: { origin } })
      t.equal(res.headers['access-control-allow-origin'], expected, `${label}, ${time}`)
      t.equal(
        res.headers['access-control-expose-headers'] !== undefined,
        expected !== undefined,
        `exposed headers only with an allowed origin: ${label}`,
      )
      const constant = expected === '*' || (cors as { origin: unknown }).origin === false
      t.equal(/Origin/.test(String(res.headers.vary)), !constant, `Vary: Origin: ${label}`)
    }
  }
})

test('a refused origin: no credentials, no exposed headers, a preflight without its headers', async (t) => {
  const app = await build({ cors: { origin: ['https://app.example'], credentials: true } })
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
  app.get('/early', { config: { cors: false } }, async () => 'registered before restwell')
  await app.register(restwell)
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
  app.delete('/early/:id', { config: { cors: false } }, async () => 'before restwell')
  await app.register(restwell)
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

test('a preflight is refused when a reroute could reach an opted-out route', async (t) => {
  // Method override turns the POST into the DELETE, versioning serves /secret/7 from /v1.
  const routes = async (options: RestwellOptions) => {
    const app = Fastify()
    apps.push(app)
    await app.register(restwell, options)
    app.delete('/admin/:id', { config: { cors: false } }, async () => 'gone')
    app.post('/admin/:id', async () => 'posted')
    app.delete('/v1/secret/:id', { config: { cors: false } }, async () => 'gone')
    app.delete('/v1/open/:id', async () => 'gone')
    return (url: string, method: string, requestHeaders = 'content-type') =>
      app
        .inject({
          method: 'OPTIONS',
          url,
          headers: {
            origin: 'https://app.example',
            'access-control-request-method': method,
            ...(requestHeaders === '' ? {} : { 'access-control-request-headers': requestHeaders }),
          },
        })
        .then((res) => res.headers['access-control-allow-origin'] !== undefined)
  }
  const allowed = await routes({})
  t.notOk(
    await allowed('/admin/7', 'POST', 'X-HTTP-Method-Override, content-type'),
    'override header',
  )
  t.notOk(await allowed('/admin/7?_method=DELETE', 'POST'), 'override parameter')
  t.notOk(await allowed('/admin/7?_method=DELETE', 'POST', ''), 'no headers asked for')
  t.ok(await allowed('/admin/7', 'POST'), 'a POST that cannot be overridden')
  t.notOk(await allowed('/secret/7', 'DELETE'), 'an unprefixed path served by /v1')
  t.ok(await allowed('/open/7', 'DELETE'))
  t.ok(await allowed('/v1/open/7', 'DELETE'))
  const plain = await routes({ methodOverride: false, versioning: false })
  t.ok(await plain('/admin/7', 'POST', 'x-http-method-override'), 'no method override')
  t.ok(await plain('/secret/7', 'DELETE'), 'no versioning: /secret/7 is no route')
  const queryOnly = await routes({ methodOverride: { header: false, query: '_m' } })
  t.ok(await queryOnly('/admin/7', 'POST', 'x-http-method-override'), 'the header is not read')
  t.notOk(await queryOnly('/admin/7?_m=DELETE', 'POST'))
})

test('settings add headers, change max-age and methods', async (t) => {
  const app = await build({
    cors: {
      allowedHeaders: ['X-Tenant', 'Content-Type'],
      exposedHeaders: ['X-Trace'],
      maxAge: 600,
      methods: ['GET'],
    },
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
    app.register(restwell, { cors: { origin, credentials: true } })
    await t.rejects(
      async () => {
        await app.ready()
      },
      {
        name: 'OptionsError',
        message:
          /restwell: option "cors\.origin" must name the allowed origins when cors\.credentials is true \(not '\*', true or a list holding '\*'/,
      },
      JSON.stringify(origin),
    )
  }
})

test('a 406 to a CORS request: scripts may read its Accept (spec 4.5)', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/books',
    headers: { origin: 'https://app.example', accept: 'image/png' },
  })
  t.equal(res.statusCode, 406)
  t.ok(res.headers.accept, 'the 406 lists the supported types')
  const exposed = String(res.headers['access-control-expose-headers']).split(', ')
  t.ok(exposed.includes('Accept'), 'Accept is exposed')
})

test('cors: false sends no CORS headers', async (t) => {
  t.equal((await build()).hasPlugin('restwell-cors'), true)
  const app = await build({ cors: false })
  t.equal(app.hasPlugin('restwell-cors'), false)
  const res = await app.inject({ url: '/books', headers: { origin: 'https://a' } })
  t.equal(res.headers['access-control-allow-origin'], undefined)
  const options = await app.inject({ method: 'OPTIONS', url: '/books', headers: preflight })
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
})

test('preflight: Accept (a JSON:API profile), the language headers and a gzip body are allowed', async (t) => {
  const allowedBy = async (options: RestwellOptions): Promise<string[]> => {
    const app = await build(options)
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/books',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'accept, content-encoding, content-type',
      },
    })
    t.equal(res.statusCode, 200)
    return String(res.headers['access-control-allow-headers']).split(', ')
  }
  const on = await allowedBy({})
  for (const header of ['accept', 'accept-language', 'content-language', 'content-encoding']) {
    t.ok(on.includes(header), `${header} allowed`)
  }
  const off = await allowedBy({ compress: false })
  t.ok(off.includes('accept'), 'accept allowed without compression too')
  t.notOk(off.includes('content-encoding'), 'no decompression: Content-Encoding not allowed')
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

  const listed = await build({ cors: { origin: ['https://app.example'], credentials: true } })
  const refused = await listed.inject({
    url: '/books',
    headers: { origin: 'https://elsewhere.example', expect: 'something' },
  })
  t.equal(refused.statusCode, 417)
  t.equal(refused.headers['access-control-allow-origin'], undefined, 'a refused origin gets none')
  const allowed = await listed.inject({ url: '/books', headers: { origin, expect: 'something' } })
  t.equal(allowed.headers['access-control-allow-origin'], origin)
  t.equal(allowed.headers['access-control-allow-credentials'], 'true')

  const optedOut = Fastify()
  apps.push(optedOut)
  await optedOut.register(restwell)
  optedOut.get('/private', { config: { cors: false } }, async () => 'x')
  const off = await optedOut.inject({ url: '/private', headers: { origin, expect: 'something' } })
  t.equal(off.statusCode, 417)
  t.equal(off.headers['access-control-allow-origin'], undefined, 'config.cors: false gets none')
})

test('a request arriving while the app closes: the 503 carries the CORS headers', async (t) => {
  const app = Fastify({ return503OnClosing: false })
  await app.register(restwell)
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
