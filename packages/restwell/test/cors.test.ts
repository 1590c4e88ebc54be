/**
 * CORS under the umbrella: @restwell/cors beside the other plugins (methods, negotiation,
 * conditional, method override, versioning, compression) and the headers they read and send.
 * CORS itself is tested in packages/cors.
 */
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import tap, { test } from 'tap'
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
    'ETag, Location, Link, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Content-Range, Accept-Ranges, Accept, Accept-Encoding',
    "one list, each name once: what the route's conventions may send there",
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
  t.equal((await build()).hasPlugin('@restwell/cors'), true)
  const app = await build({ cors: false })
  t.equal(app.hasPlugin('@restwell/cors'), false)
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

test('each route exposes the headers its answers may carry; an answer of no route, every one', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, {
    auth: false,
    idempotency: { everyRoute: true },
    cors: { origin: ['https://app.example'], exposedHeaders: ['X-Own'] },
    versioning: { carriers: { query: false } },
  })
  app.get('/books', { config: { pagination: true } }, async (_request, reply) =>
    reply.paginate([], { total: 0 }),
  )
  app.patch('/books/:id', async () => ({ ok: true }))
  app.get('/v1/shelves', async () => [])
  app.get('/plain', { config: { rateLimit: false } }, async () => ({}))
  app.options('/own', async () => 'own options')
  const origin = { origin: 'https://app.example' }
  const exposed = async (options: InjectOptions) =>
    String(
      (await app.inject({ ...options, headers: origin })).headers['access-control-expose-headers'],
    ).split(', ')
  const page = await exposed({ url: '/books' })
  t.ok(page.includes('X-Total-Count') && page.includes('Link'), 'a page: its total and links')
  for (const name of [
    'Accept-Patch',
    'API-Version',
    'Allow',
    'Idempotent-Replayed',
    'WWW-Authenticate',
  ]) {
    t.notOk(page.includes(name), `not ${name}, which that route never sends`)
  }
  t.ok(page.includes('X-Own'), "the option's, on every route")
  const patch = await exposed({ method: 'PATCH', url: '/books/1', payload: {} })
  t.ok(patch.includes('Accept-Patch'), "a patch route's 415 lists its formats")
  t.ok(patch.includes('Idempotent-Replayed'), 'a route that takes a key may replay')
  t.notOk(patch.includes('X-Total-Count'), 'no page there')
  t.ok((await exposed({ url: '/v1/shelves' })).includes('API-Version'), 'a versioned route')
  t.ok(
    (await exposed({ method: 'OPTIONS', url: '/own' })).includes('Accept-Patch'),
    'an OPTIONS route may advertise',
  )
  const plain = await exposed({ url: '/plain' })
  t.notOk(plain.includes('X-RateLimit-Limit'), 'a route out of the rate limit')
  t.ok(plain.includes('Retry-After') && plain.includes('ETag'), 'what others may send stays')
  const none = await exposed({ method: 'DELETE', url: '/books' })
  for (const name of ['Allow', 'Accept-Patch', 'X-Total-Count', 'API-Version', 'X-Own']) {
    t.ok(none.includes(name), `an answer of no route exposes ${name}`)
  }
  const routed = await exposed({ url: '/books' })
  t.ok(routed.length < none.length, "a route's list is the shorter")
})

test("a QUERY route exposes Accept-Query and Content-Location, a GET beside it not; the limits' fields as sent", async (t) => {
  for (const headers of ['x-ratelimit', 'both', 'ietf'] as const) {
    const app = Fastify()
    apps.push(app)
    await app.register(restwell, {
      auth: false,
      rateLimit: { headers },
      cors: { origin: ['https://app.example'] },
    })
    app.route({
      method: 'QUERY',
      url: '/books',
      handler: async (_request, reply) => reply.header('content-location', '/books/q/1').send([]),
    })
    app.get('/books', async () => [])
    const exposed = async (options: InjectOptions) => {
      const res = await app.inject({ ...options, headers: { origin: 'https://app.example' } })
      return String(res.headers['access-control-expose-headers']).split(', ')
    }
    const query = await exposed({
      method: 'QUERY',
      url: '/books',
      payload: {},
    })
    t.ok(query.includes('Accept-Query') && query.includes('Content-Location'), `${headers}: QUERY`)
    const get = await exposed({ url: '/books' })
    t.notOk(get.includes('Accept-Query') || get.includes('Content-Location'), `${headers}: GET`)
    t.ok(get.includes('Accept'), `${headers}: a 406 names the types`)
    for (const list of [query, get]) {
      t.equal(list.includes('X-RateLimit-Limit'), headers !== 'ietf', `${headers}: X-RateLimit-*`)
      t.equal(list.includes('RateLimit-Policy'), headers !== 'x-ratelimit', `${headers}: IETF`)
      t.equal(list.includes('RateLimit'), headers !== 'x-ratelimit', `${headers}: RateLimit`)
    }
    const none = await exposed({ method: 'DELETE', url: '/books' })
    t.ok(none.includes('Accept-Query'), `${headers}: a 405 of a QUERY path may name its types`)
  }
})
