/** Every ordering constraint of the umbrella, proven with every plugin on. */
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import restwell, { type RestwellOptions } from '../src/index.js'
import { until } from '../../../test/helpers/patience.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const TOKENS: Record<string, { sub: string; scopes: string[] }> = {
  reader: { sub: 'r', scopes: ['read'] },
  writer: { sub: 'w', scopes: ['read', 'write'] },
}

interface Seen {
  method: string
  url: string
}

async function build(
  options: RestwellOptions = {},
): Promise<{ app: FastifyInstance; seen: Seen[] }> {
  const app = Fastify()
  apps.push(app)
  const seen: Seen[] = []
  await app.register(restwell, {
    auth: {
      verify: (token: string) => TOKENS[token] ?? null,
      scopesOf: (principal) => (principal as { scopes: string[] }).scopes,
    },
    jobs: { pollMs: 10 },
    rateLimit: { max: 1000 },
    ...options,
  })
  app.addHook('preHandler', async (request) => {
    seen.push({ method: request.method, url: request.url })
  })
  app.get('/v1/books/:id', async (request) => ({
    id: Number((request.params as { id: string }).id),
    v: 1,
  }))
  app.get('/v2/books/:id', async (request) => ({
    id: Number((request.params as { id: string }).id),
    v: 2,
  }))
  app.delete(
    '/v2/books/:id',
    { config: { auth: { scopes: ['write'] } } },
    async (_request, reply) => reply.code(204).send(),
  )
  app.get('/v2/health', { config: { auth: false } }, async () => ({ ok: true }))
  app.jobs.define('export', async () => ({ rows: 3 }), { estimatedTime: 5 })
  app.post('/v2/exports', { config: { auth: { scopes: ['write'] } } }, async (_request, reply) =>
    reply.accepted(await app.jobs.enqueue('export', {})),
  )
  return { app, seen }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

test('override and versioning are decided by routing: the target route, schema and handler run', async (t) => {
  const { app, seen } = await build()
  const res = await app.inject({
    method: 'POST',
    url: '/books/7',
    headers: {
      ...bearer('writer'),
      'x-http-method-override': 'DELETE',
      accept: 'application/vnd.api.v2+json',
    },
  })
  t.equal(res.statusCode, 204)
  t.same(seen, [{ method: 'DELETE', url: '/books/7' }], "v2's twin, with the client's URL")
  t.equal(res.headers['api-version'], '2')
})

test('auth applies to the final method: an override cannot escalate a read token', async (t) => {
  const { app } = await build()
  const res = await app.inject({
    method: 'POST',
    url: '/v2/books/7?_method=DELETE',
    headers: bearer('reader'),
  })
  t.equal(res.statusCode, 403)
  t.match(res.headers['www-authenticate'], /error="insufficient_scope"/)
})

test('CORS before auth: a preflight needs no token, and a 401 carries CORS headers', async (t) => {
  const { app } = await build()
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/v2/books/7',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'DELETE' },
  })
  t.equal(preflight.statusCode, 200)
  t.match(preflight.headers['access-control-allow-headers'], /x-http-method-override/)
  const unauthorized = await app.inject({
    url: '/v2/books/7',
    headers: { origin: 'https://app.example' },
  })
  t.equal(unauthorized.statusCode, 401)
  t.equal(unauthorized.headers['access-control-allow-origin'], '*')
  t.equal(unauthorized.headers['www-authenticate'], 'Bearer realm="api"')
  t.equal(unauthorized.json().error.code, 'MISSING_CREDENTIALS')
})

test('CORS before rerouting: what a rewriter refuses and a moved 301 carry CORS headers', async (t) => {
  const { app } = await build({ versioning: { moved: { '/v0/people': '/v2/books' } } })
  app.get('/v2/private', { config: { auth: false, cors: false } }, async () => ({ ok: true }))
  const origin = { origin: 'https://app.example' }
  const refused = [
    { url: '/books/7?version=abc' },
    { url: '/v1/books/7?version=2' },
    { url: '/books/7', headers: { accept: 'application/vnd.api.v9+json' } },
    { method: 'POST' as const, url: '/v2/books/7?_method=TRACE' },
    { url: '/v0/people/7' },
  ]
  for (const request of refused) {
    const res = await app.inject({ ...request, headers: { ...origin, ...request.headers } })
    t.ok(res.statusCode >= 300, `${request.url}: ${res.statusCode}`)
    t.equal(res.headers['access-control-allow-origin'], '*', `${request.url}: readable by the page`)
    t.notMatch(String(res.headers.vary), /Origin/, "'*' for every origin: no Vary: Origin")
  }
  // A rerouted request gets the CORS answer of the route it reaches: once, and not at all
  // where that route opts out.
  const rerouted = await app.inject({ url: '/health', headers: origin })
  t.equal(rerouted.statusCode, 200)
  t.equal(rerouted.headers['access-control-allow-origin'], '*')
  t.same(
    String(rerouted.headers.vary)
      .split(', ')
      .filter((name) => name === 'Origin'),
    [],
    "'*' for every origin: no Vary: Origin",
  )
  const optedOut = await app.inject({ url: '/private', headers: origin })
  t.equal(optedOut.statusCode, 200)
  t.equal(optedOut.headers['access-control-allow-origin'], undefined)
  t.notMatch(optedOut.headers.vary ?? '', /Origin/)
})

test('a moved path answers its redirect with the carriers, before limits, auth and 405', async (t) => {
  const { app } = await build({ versioning: { moved: { '/v1/people': '/v2/books' } } })
  // The old path still has a route for another method: a GET there is not that route's 405.
  app.post('/v1/people/:id', async () => ({ ok: true }))
  for (const headers of [bearer('reader'), {}]) {
    const res = await app.inject({ url: '/v1/people/7?x=1', headers })
    const who = 'authorization' in headers ? 'with a token' : 'anonymous'
    t.equal(res.statusCode, 301, who)
    t.equal(res.headers.location, '/v2/books/7?x=1', who)
    t.equal(res.headers['x-ratelimit-remaining'], undefined, `${who}: not counted`)
  }
  const options = await app.inject({
    method: 'OPTIONS',
    url: '/v1/people/7',
    headers: bearer('reader'),
  })
  t.equal(options.statusCode, 308, 'nor an automatic OPTIONS of the old path')
  const moved = await app.inject({ url: '/v2/books/7', headers: bearer('reader') })
  t.equal(moved.statusCode, 200, 'the Location answers')
})

test('auth before methods: anonymous clients cannot map paths; authenticated ones get 405/404', async (t) => {
  const { app } = await build()
  t.equal((await app.inject({ method: 'PUT', url: '/v2/books/7' })).statusCode, 401)
  t.equal((await app.inject({ url: '/v2/nowhere' })).statusCode, 401)
  const put = await app.inject({ method: 'PUT', url: '/v2/books/7', headers: bearer('reader') })
  t.equal(put.statusCode, 405)
  t.equal(put.headers.allow, 'GET, HEAD, DELETE, OPTIONS')
  const missing = await app.inject({ url: '/v2/nowhere', headers: bearer('reader') })
  t.equal(missing.statusCode, 404)
  t.equal((await app.inject('/v2/health')).statusCode, 200, 'public routes opt out')
})

test('rate limits count a rerouted request once', async (t) => {
  const { app } = await build({ rateLimit: { max: 2 } })
  const first = await app.inject({
    method: 'POST',
    url: '/v2/books/1',
    headers: { ...bearer('writer'), 'x-http-method-override': 'DELETE' },
  })
  t.equal(first.statusCode, 204)
  t.equal(first.headers['x-ratelimit-remaining'], '1')
})

test('errors first: a 406 from negotiation goes out in the error form, as XML when only XML is accepted', async (t) => {
  const { app } = await build()
  const json = await app.inject({ url: '/v2/health?format=yaml' })
  t.equal(json.statusCode, 400)
  t.equal(json.json().error.code, 'UNKNOWN_FORMAT')
  const xml = await app.inject({ url: '/v2/health', headers: { accept: 'application/xml' } })
  t.equal(xml.statusCode, 200)
  t.match(xml.headers['content-type'], /application\/xml/)
  const notAcceptable = await app.inject({ url: '/v2/health', headers: { accept: 'text/csv' } })
  t.equal(notAcceptable.statusCode, 406)
  t.match(notAcceptable.headers.accept, /application\/json/)
  const xmlError = await app.inject({ url: '/v2/books/1', headers: { accept: 'application/xml' } })
  t.equal(xmlError.statusCode, 401)
  t.match(xmlError.headers['content-type'], /xml/)
  t.match(xmlError.body, /MISSING_CREDENTIALS/)
})

test('jobs: 202 + Location, then 303 to the result', async (t) => {
  const { app } = await build()
  const accepted = await app.inject({
    method: 'POST',
    url: '/v2/exports',
    headers: bearer('writer'),
  })
  t.equal(accepted.statusCode, 202)
  const body = accepted.json()
  t.match(body, { jobId: String, status: 'queued', estimatedTime: 'PT5S' })
  const location = String(accepted.headers.location)
  let status = 0
  await until(async () => {
    status = (await app.inject({ url: location, headers: bearer('reader') })).statusCode
    return status === 303
  }, 'the job finishes')
  t.equal(status, 303)
})

test('auth and jobs are off unless configured; every plugin can be switched off', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, {
    methodOverride: false,
    versioning: false,
    negotiation: false,
    naming: false,
    auth: false,
    jobs: false,
  })
  app.get('/books', async () => [])
  t.equal((await app.inject('/books')).statusCode, 200)
  t.equal(app.hasDecorator('jobs'), false)
  const preflight = {
    method: 'OPTIONS' as const,
    url: '/books',
    headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' },
  }
  t.notMatch((await app.inject(preflight)).headers['access-control-allow-headers'], /override/)
  const renamed = Fastify()
  apps.push(renamed)
  await renamed.register(restwell, { methodOverride: { header: 'x-method' } })
  renamed.get('/books', async () => [])
  t.match((await renamed.inject(preflight)).headers['access-control-allow-headers'], /x-method/)
  const bare = Fastify()
  apps.push(bare)
  await bare.register(restwell)
  bare.get('/books', async () => [])
  t.equal((await bare.inject('/books')).statusCode, 200, 'no auth unless configured')
  const override = await bare.inject({ method: 'POST', url: '/books?_method=DELETE' })
  t.equal(override.statusCode, 405, 'override on by default: DELETE /books is not allowed')
  t.equal(override.headers.allow, 'GET, HEAD, OPTIONS')
})
