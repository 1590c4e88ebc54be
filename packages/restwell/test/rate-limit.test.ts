/**
 * Rate limits under the umbrella: the wiring of @restwell/rate-limit beside the other plugins
 * (auth, method override, versioning, methods, cache-control) and its options under
 * `rateLimit`. The limits themselves are tested in packages/rate-limit.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import { httpErrors } from '@restwell/errors'
import restwell, { type RestwellOptions, versioned } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

async function build(options: RestwellOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  app.get('/early', async () => 'before restwell')
  await app.register(restwell, options)
  app.get('/books', async () => [])
  app.get('/free', { config: { rateLimit: false } }, async () => 'free')
  app.get('/tight', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => 'tight')
  return app
}

test('429 in the error form with Retry-After and X-RateLimit-*', async (t) => {
  const app = await build({ rateLimit: { max: 2, timeWindow: 60_000 } })
  const first = await app.inject('/books')
  t.equal(first.headers['x-ratelimit-limit'], '2')
  t.equal(first.headers['x-ratelimit-remaining'], '1')
  t.ok(first.headers['x-ratelimit-reset'])
  await app.inject('/books')
  const limited = await app.inject('/books')
  t.equal(limited.statusCode, 429)
  t.equal(limited.headers['x-ratelimit-remaining'], '0')
  t.match(limited.headers['retry-after'], /^\d+$/)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.equal(limited.headers['cache-control'], 'no-store')
  t.equal(
    limited.json().error.message,
    'Rate limit exceeded: 2 requests per window; retry in 1 minute',
  )
})

test("a route's own limit runs before auth: failed logins are counted and limited", async (t) => {
  // Auth puts its guard in front of the route's onRequest hooks, after @fastify/rate-limit
  // pushed the route's limiter onto them: without restwell moving the limiter first, every
  // guess reached verify() and none was counted.
  let verified = 0
  const verify = async (token: string) => {
    verified++
    return token === 'good' ? { sub: 'u' } : null
  }
  const app = await build({ rateLimit: { max: 100, timeWindow: 60_000 }, auth: { verify } })
  const own = { rateLimit: { max: 3, timeWindow: 60_000 } }
  app.post('/logins', { config: own }, async () => ({ ok: true }))
  app.get('/accounts/:id', { config: own, onRequest: [(_q, _r, done) => done()] }, async () => ({}))
  for (const [method, url] of [
    ['POST', '/logins'],
    ['GET', '/accounts/1'],
  ] as const) {
    verified = 0
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({ method, url, headers: { authorization: `Bearer guess${i}` } })
      statuses.push(res.statusCode)
      t.equal(res.headers['x-ratelimit-limit'], '3', `${method} ${url} #${i}`)
    }
    t.same(statuses, [401, 401, 401, 429, 429], `${method} ${url}`)
    t.equal(verified, 3, `${method} ${url}: the limited guesses never reach verify`)
  }
  const head = await app.inject({ method: 'HEAD', url: '/accounts/1' })
  t.equal(head.statusCode, 429, "the HEAD twin shares the GET's counter, also before auth")
  // Without auth's guard to precede, the route's own hooks still run before its limiter, as the
  // library orders them: a keyGenerator may read what they found.
  const tenants = await build()
  tenants.get(
    '/tenant',
    {
      onRequest: async (request) => {
        ;(request as unknown as { tenant?: string }).tenant = String(request.headers['x-tenant'])
      },
      config: {
        rateLimit: {
          max: 1,
          timeWindow: 60_000,
          keyGenerator: (request) => (request as unknown as { tenant: string }).tenant,
        },
      },
    },
    async () => 'ok',
  )
  const as = (tenant: string) => tenants.inject({ url: '/tenant', headers: { 'x-tenant': tenant } })
  t.same(
    [(await as('a')).statusCode, (await as('b')).statusCode, (await as('a')).statusCode],
    [200, 200, 429],
    'one counter per tenant',
  )
  // With no plugin adding route hooks, the limiter is first already and stays the only one.
  const bare = await build({ negotiation: false })
  t.same(
    [(await bare.inject('/tight')).statusCode, (await bare.inject('/tight')).statusCode],
    [200, 429],
  )
})

test('an unreadable timeWindow fails registration instead of a NaN window', async (t) => {
  // '1' and 400 zeros: @lukeed/ms reads it as Infinity.
  for (const timeWindow of [
    'one minute',
    '0 seconds',
    '-1 minute',
    '0.5ms',
    `1${'0'.repeat(400)}`,
  ]) {
    const app = Fastify()
    app.register(restwell, { rateLimit: { timeWindow } })
    await t.rejects(
      async () => {
        await app.ready()
      },
      {
        name: 'OptionsError',
        message: `restwell: option "rateLimit.timeWindow" must be a whole number of milliseconds ≥ 1 or a duration @lukeed/ms reads ('1 minute', '30 seconds', '2h') (got ${JSON.stringify(timeWindow)})`,
      },
      timeWindow.slice(0, 20),
    )
  }
  for (const timeWindow of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    const app = Fastify()
    app.register(restwell, { rateLimit: { timeWindow } })
    await t.rejects(
      async () => {
        await app.ready()
      },
      // The schema refuses these (an integer ≥ 1 or a non-empty string): the message names the field.
      {
        name: 'OptionsError',
        option: 'rateLimit.timeWindow',
        message: `restwell: option "rateLimit.timeWindow" must be an integer ≥ 1 or a non-empty string (got ${timeWindow})`,
      },
      String(timeWindow),
    )
  }
  const app = await build({ rateLimit: { max: 1, timeWindow: '1.5 seconds' } })
  t.equal((await app.inject('/books')).headers['x-ratelimit-reset'], '2', 'a readable one is used')
})

test("a route's own timeWindow is checked when the route is added", async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell)
  const handler = async () => 'ok'
  for (const timeWindow of ['one minute', 0, -1, 1.5, Number.NaN, true]) {
    t.throws(
      () => app.get('/bad', { config: { rateLimit: { max: 1, timeWindow } } } as object, handler),
      {
        name: 'OptionsError',
        message: `restwell: option "config.rateLimit.timeWindow" of route GET /bad must be a whole number of milliseconds ≥ 1 or a duration @lukeed/ms reads ('1 minute', '30 seconds', '2h') (got ${typeof timeWindow === 'string' ? JSON.stringify(timeWindow) : String(timeWindow)})`,
      },
      String(timeWindow),
    )
  }
  app.get('/text', { config: { rateLimit: { max: 1, timeWindow: '30 seconds' } } }, handler)
  app.get('/computed', { config: { rateLimit: { max: 1, timeWindow: () => 30_000 } } }, handler)
  app.get('/default', { config: { rateLimit: { max: 1 } } }, handler)
  for (const [url, reset] of [
    ['/text', '30'],
    ['/computed', '30'],
    ['/default', '60'],
  ] as const) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, url)
    t.equal(res.headers['x-ratelimit-reset'], reset, url)
  }
  const early = Fastify()
  early.get('/early', { config: { rateLimit: { max: 1, timeWindow: 'soon' } } }, handler)
  early.register(restwell)
  await t.rejects(
    async () => {
      await early.ready()
    },
    {
      message:
        /^restwell: option "config\.rateLimit\.timeWindow" of route GET \/early must be a whole number of milliseconds ≥ 1 .* \(got "soon"\)$/,
    },
    'a route added before restwell too',
  )
})

test("a route's own limit counts a method override to it: its twin shares the counter", async (t) => {
  let runs = 0
  const app = Fastify()
  apps.push(app)
  // Added before restwell too: its twin is made when restwell adopts it.
  const limit = { rateLimit: { max: 2, timeWindow: 60_000 }, auth: false }
  app.put('/early/:id', { config: limit }, async () => {
    runs++
    return { ok: true }
  })
  await app.register(restwell)
  app.delete('/reports/:id', { config: limit }, async (_request, reply) => {
    runs++
    return reply.code(204).send()
  })
  for (const url of ['/early/1', '/reports/1']) {
    const method = url.startsWith('/early') ? 'PUT' : 'DELETE'
    const direct = await app.inject({ method, url, payload: {} })
    t.equal(direct.headers['x-ratelimit-remaining'], '1', url)
    const overridden = await app.inject({
      method: 'POST',
      url,
      headers: { 'x-http-method-override': method },
      payload: {},
    })
    t.equal(overridden.headers['x-ratelimit-remaining'], '0', `${url}: counted in its window`)
    const limited = await app.inject({ method: 'POST', url: `${url}?_method=${method}` })
    t.equal(limited.statusCode, 429, url)
  }
  t.equal(runs, 4, 'each handler ran max times in its window')
})

test("a version's route and its unprefixed twin share the route's own counter", async (t) => {
  let runs = 0
  const app = Fastify()
  apps.push(app)
  const limit = { rateLimit: { max: 2, timeWindow: 60_000 }, auth: false }
  // Declared with its version prefix, before restwell; and through versioned().
  app.get('/v1/early/:id', { config: limit }, async () => {
    runs++
    return { ok: true }
  })
  await app.register(restwell)
  await app.register(
    versioned(1, async (v1) => {
      v1.get('/reports/:id', { config: limit }, async () => {
        runs++
        return { ok: true }
      })
    }),
  )
  for (const path of ['/early/1', '/reports/1']) {
    const prefixed = await app.inject(`/v1${path}`)
    t.equal(prefixed.headers['x-ratelimit-remaining'], '1', path)
    const unprefixed = await app.inject(path)
    t.equal(unprefixed.headers['x-ratelimit-remaining'], '0', `${path}: counted in its window`)
    t.equal((await app.inject(`${path}?version=1`)).statusCode, 429, path)
  }
  t.equal(runs, 4, 'each handler ran max times in its window')
})

test("a keyGenerator's 401 on an unknown path under auth's hideRoutes carries the challenge", async (t) => {
  const keyGenerator = (request: { headers: Record<string, unknown> }) => {
    const client = request.headers['x-client']
    if (client === undefined) throw httpErrors.unauthorized('Say who you are')
    return String(client)
  }
  const app = await build({
    rateLimit: { max: 10, keyGenerator },
    auth: { verify: async (token: string) => (token === 'good' ? { id: 1 } : null) },
  })
  for (const url of ['/books', '/nowhere']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 401, url)
    t.equal(res.headers['www-authenticate'], 'Bearer realm="api"', `${url}: RFC 9110 §15.5.2`)
    t.equal(res.json().error.message, 'Say who you are')
  }
  const found = await app.inject({ url: '/books', headers: { 'x-client': 'a' } })
  t.equal(found.statusCode, 401, 'then the route asks for a token')
  t.match(found.headers['www-authenticate'], /^Bearer realm="api"/)
})

test('routes registered before restwell and the 404/405 path are limited too', async (t) => {
  const app = await build({ rateLimit: { max: 1, timeWindow: 60_000 } })
  t.equal((await app.inject('/early')).statusCode, 200)
  t.equal((await app.inject('/early')).statusCode, 429)
  const other = await build({ rateLimit: { max: 1, timeWindow: 60_000 } })
  t.equal((await other.inject({ method: 'PUT', url: '/books' })).statusCode, 405)
  t.equal((await other.inject('/nowhere')).statusCode, 429)
})

test('rateLimit: false', async (t) => {
  const app = await build({ rateLimit: false })
  const res = await app.inject('/books')
  t.equal(res.headers['x-ratelimit-limit'], undefined)
})

test("rateLimit.headers 'ietf': RateLimit-Policy and RateLimit, the problem form's quota-exceeded, CORS exposes them", async (t) => {
  const app = await build({
    rateLimit: { max: 1, headers: 'ietf' },
    errors: { format: 'problem' },
    cors: { origin: ['https://app.example'] },
  })
  const origin = { origin: 'https://app.example' }
  const first = await app.inject({ url: '/books', headers: origin })
  t.equal(first.headers['ratelimit-policy'], '"default";q=1;w=60')
  t.equal(first.headers.ratelimit, '"default";r=0;t=60')
  t.notOk('x-ratelimit-limit' in first.headers)
  const exposed = String(first.headers['access-control-expose-headers']).toLowerCase().split(', ')
  t.ok(exposed.includes('ratelimit-policy') && exposed.includes('ratelimit'), exposed.join(', '))
  t.notOk(exposed.includes('x-ratelimit-limit'), 'not the fields it does not send')
  const limited = await app.inject({ url: '/books', headers: origin })
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().type, 'https://iana.org/assignments/http-problem-types#quota-exceeded')
  t.same(limited.json()['violated-policies'], ['default'])
  t.ok(Number(limited.headers['retry-after']) >= 60)
  const own = await app.inject({ url: '/tight', headers: origin })
  t.equal(own.headers.ratelimit, '"GET /tight";r=0;t=60')
})
