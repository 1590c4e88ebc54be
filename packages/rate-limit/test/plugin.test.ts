import fastifyRateLimit from '@fastify/rate-limit'
import type { RouteEntry, SetupContext } from '@restwell/core'
import {
  installConvention,
  installPipeline,
  mergeContributions,
  VERSION_PAIR,
} from '@restwell/core/internal'
import { httpErrors, restwellErrors } from '@restwell/errors'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { type Test, test } from 'tap'
import {
  clientKey,
  MEMORY_CLIENTS,
  type RateLimitOptions,
  rateLimit,
  restwellRateLimit,
} from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

/** @restwell/errors, a route before the plugin, the plugin, and routes with and without limits. */
async function build(options: RateLimitOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors)
  app.get('/early', async () => 'before the plugin')
  await app.register(restwellRateLimit, options)
  app.get('/books', async () => [])
  app.get('/free', { config: { rateLimit: false } }, async () => 'free')
  app.get('/tight', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => 'tight')
  return app
}

test('429 in the error form with Retry-After and X-RateLimit-*', async (t) => {
  const app = await build({ max: 2, timeWindow: 60_000 })
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
  t.equal(
    limited.json().error.message,
    'Rate limit exceeded: 2 requests per window; retry in 1 minute',
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
    await t.rejects(
      async () => Fastify().register(restwellRateLimit, { timeWindow }),
      {
        name: 'OptionsError',
        option: 'timeWindow',
        message: `@restwell/rate-limit: option "timeWindow" must be a whole number of milliseconds ≥ 1 or a duration @lukeed/ms reads ('1 minute', '30 seconds', '2h') (got ${JSON.stringify(timeWindow)})`,
      },
      timeWindow.slice(0, 20),
    )
  }
  for (const timeWindow of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    await t.rejects(
      async () => Fastify().register(restwellRateLimit, { timeWindow }),
      // The schema refuses these (an integer ≥ 1 or a non-empty string): the message names the field.
      {
        name: 'OptionsError',
        option: 'timeWindow',
        message: `@restwell/rate-limit: option "timeWindow" must be an integer ≥ 1 or a non-empty string (got ${timeWindow})`,
      },
      String(timeWindow),
    )
  }
  const app = await build({ max: 1, timeWindow: '1.5 seconds' })
  t.equal((await app.inject('/books')).headers['x-ratelimit-reset'], '2', 'a readable one is used')
})

test("a route's own timeWindow is checked when the route is added", async (t) => {
  const app = await build()
  const handler = async () => 'ok'
  for (const timeWindow of ['one minute', 0, -1, 1.5, Number.NaN, true]) {
    t.throws(
      () => app.get('/bad', { config: { rateLimit: { max: 1, timeWindow } } } as object, handler),
      {
        name: 'OptionsError',
        message: `@restwell/rate-limit: option "config.rateLimit.timeWindow" of route GET /bad must be a whole number of milliseconds ≥ 1 or a duration @lukeed/ms reads ('1 minute', '30 seconds', '2h') (got ${typeof timeWindow === 'string' ? JSON.stringify(timeWindow) : String(timeWindow)})`,
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
  await t.rejects(
    async () => early.register(restwellRateLimit),
    {
      message:
        /^@restwell\/rate-limit: option "config\.rateLimit\.timeWindow" of route GET \/early must be a whole number of milliseconds ≥ 1 .* \(got "soon"\)$/,
    },
    'a route added before the plugin too',
  )
})

test('routes registered before the plugin and the not-found path are limited too', async (t) => {
  const app = await build({ max: 1, timeWindow: 60_000 })
  t.equal((await app.inject('/early')).statusCode, 200)
  t.equal((await app.inject('/early')).statusCode, 429)
  const other = await build({ max: 1, timeWindow: 60_000 })
  t.equal((await other.inject({ method: 'PUT', url: '/books' })).statusCode, 404)
  t.equal((await other.inject('/nowhere')).statusCode, 429)
  const own = Fastify()
  apps.push(own)
  own.get('/early', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => 'x')
  await own.register(restwellRateLimit)
  t.equal((await own.inject('/early')).headers['x-ratelimit-limit'], '1', 'its own limit too')
  t.equal((await own.inject('/early')).statusCode, 429)
})

test('@fastify/rate-limit beside it fails, registered before or after', async (t) => {
  const before = Fastify()
  apps.push(before)
  await before.register(fastifyRateLimit)
  await t.rejects(async () => before.register(restwellRateLimit), {
    name: 'RegistrationError',
    code: 'RESTWELL_REGISTRATION',
    message:
      "@restwell/rate-limit: @fastify/rate-limit is registered before it: both would count requests and answer 429. Remove @fastify/rate-limit: @restwell/rate-limit configures it (a route's own `config.rateLimit` works as with it).",
  })
  const after = Fastify()
  apps.push(after)
  await after.register(restwellRateLimit)
  await after.register(fastifyRateLimit)
  await t.rejects(async () => after.ready(), {
    message: /^@restwell\/rate-limit: @fastify\/rate-limit is registered after it/,
  })
})

test('under a pipeline: its steps are handed over; installed by the umbrella, errors name its option', async (t) => {
  const app = Fastify()
  apps.push(app)
  const pipeline = installPipeline(app)
  const context: SetupContext = {
    pipeline: true,
    umbrella: 'restwell',
    contributions: () => mergeContributions([]),
  }
  await installConvention(app, rateLimit, { max: 5 }, context)
  t.ok(pipeline.request.has(rateLimit), 'the root step, for the pipeline to order')
  t.same(mergeContributions([{ convention: rateLimit, options: {} }]).responseHeaders, [
    'Retry-After',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
  ])
  const bad = Fastify()
  apps.push(bad)
  installPipeline(bad)
  await t.rejects(installConvention(bad, rateLimit, { timeWindow: 'soon' }, context), {
    option: 'rateLimit.timeWindow',
    message: /^restwell: option "rateLimit\.timeWindow" must be a whole number/,
  })
  app.get('/bad', async () => 'x')
  t.throws(
    () => app.get('/own', { config: { rateLimit: { timeWindow: 'soon' } } }, async () => ''),
    {
      message: /^restwell: option "config\.rateLimit\.timeWindow" of route GET \/own/,
    },
  )
})
test('the window: X-RateLimit-Reset counts down to its end, then the client starts afresh', async (t) => {
  let now = 1_700_000_000_000
  const realNow = Date.now
  Date.now = () => now
  t.teardown(() => {
    Date.now = realNow
  })
  const app = await build({ max: 1, timeWindow: '2 minutes' })
  const first = await app.inject('/books')
  t.equal(first.headers['x-ratelimit-reset'], '120')
  now += 90_500
  const limited = await app.inject('/books')
  t.equal(limited.statusCode, 429)
  t.equal(limited.headers['x-ratelimit-reset'], '30', 'ceil(29.5 s)')
  t.equal(limited.headers['retry-after'], '30')
  t.match(limited.json().error.message, /retry in 30 seconds$/)
  now += 29_500
  const next = await app.inject('/books')
  t.equal(next.statusCode, 200, 'the window ended exactly now: a new one starts')
  t.equal(next.headers['x-ratelimit-remaining'], '0')
  t.equal(next.headers['x-ratelimit-reset'], '120')
})

test('a route with its own limit is counted in its own window, not in the root one', async (t) => {
  const app = await build({ max: 2, timeWindow: 60_000 })
  t.equal((await app.inject('/tight')).headers['x-ratelimit-limit'], '1')
  const root = await app.inject('/books')
  t.equal(root.headers['x-ratelimit-limit'], '2')
  t.equal(root.headers['x-ratelimit-remaining'], '1', '/tight did not count here')
  t.equal(
    (await app.inject('/tight')).json().error.message,
    'Rate limit exceeded: 1 requests per window; retry in 1 minute',
  )
})

test("a GET route's own limit counts its HEAD twin too: one counter, as one handler serves both", async (t) => {
  let runs = 0
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors)
  await app.register(restwellRateLimit)
  const limit = { rateLimit: { max: 2, timeWindow: 60_000 } }
  app.get('/reports', { config: limit }, async () => {
    runs++
    return []
  })
  const get = await app.inject('/reports')
  t.equal(get.headers['x-ratelimit-remaining'], '1')
  const head = await app.inject({ method: 'HEAD', url: '/reports' })
  t.equal(head.statusCode, 200)
  t.equal(head.headers['x-ratelimit-remaining'], '0', "HEAD counted in GET's window")
  t.equal((await app.inject('/reports')).statusCode, 429)
  const limited = await app.inject({ method: 'HEAD', url: '/reports' })
  t.equal(limited.statusCode, 429)
  t.equal(limited.headers['retry-after'], '60')
  t.equal(runs, 2, 'the handler ran max times in the window, not 2 x max')
})

test('HEAD twins: routes before the plugin, shared config objects, own hook lists, other hooks', async (t) => {
  const seen: string[] = []
  const mark = (name: string) => async (request: { method: string }) => {
    seen.push(`${name} ${request.method}`)
  }
  const shared = { rateLimit: { max: 1, timeWindow: 60_000, hook: 'preHandler' as const } }
  const handler = async () => 'ok'
  const app = Fastify()
  apps.push(app)
  app.get('/early', { config: shared, onRequest: [mark('early')] }, handler)
  await app.register(restwellErrors)
  await app.register(restwellRateLimit)
  const ownList = [mark('a')]
  app.get('/a', { config: shared, preHandler: ownList }, handler)
  app.get('/b', { config: shared, preHandler: mark('b') }, handler)
  app.route({
    method: ['GET', 'POST'],
    url: '/c',
    config: { rateLimit: { max: 1, timeWindow: 60_000 } },
    handler,
  })
  for (const url of ['/early', '/a', '/b', '/c']) {
    t.equal((await app.inject(url)).statusCode, 200, `GET ${url}`)
    t.equal((await app.inject({ method: 'HEAD', url })).statusCode, 429, `HEAD ${url}`)
  }
  t.equal((await app.inject({ method: 'POST', url: '/c' })).statusCode, 429, 'POST /c alike')
  t.equal(ownList.length, 1, "the route's own list is left as given")
  t.same(seen, ['early GET', 'early HEAD', 'a GET', 'a HEAD', 'b GET', 'b HEAD'])
})

test("a route's own limit in preParsing or preValidation runs there, after the route's own hooks", async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors)
  await app.register(restwellRateLimit)
  const seen: string[] = []
  for (const hook of ['preParsing', 'preValidation'] as const) {
    app.post(
      `/${hook}`,
      {
        config: { rateLimit: { max: 1, timeWindow: 60_000, hook } },
        [hook]: async () => {
          seen.push(hook)
        },
      },
      async (request) => request.body,
    )
  }
  for (const hook of ['preParsing', 'preValidation']) {
    const send = () => app.inject({ method: 'POST', url: `/${hook}`, payload: { a: 1 } })
    const first = await send()
    t.equal(first.statusCode, 200, hook)
    t.same(first.json(), { a: 1 }, `${hook}: the body still reaches the handler`)
    const second = await send()
    t.equal(second.statusCode, 429, hook)
    t.equal(second.headers['x-ratelimit-limit'], '1', hook)
  }
  t.same(seen, ['preParsing', 'preParsing', 'preValidation', 'preValidation'])
})

test('a HEAD route of its own and other methods keep their own counters', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors)
  await app.register(restwellRateLimit)
  const limit = { rateLimit: { max: 1, timeWindow: 60_000 } }
  app.get('/reports', { config: limit }, async () => [])
  app.head('/ping', { config: limit }, async (_request, reply) => reply.send())
  app.post('/reports', { config: limit }, async () => 'posted')
  t.equal((await app.inject('/reports')).statusCode, 200)
  t.equal((await app.inject({ method: 'HEAD', url: '/ping' })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/reports' })).statusCode, 200)
  t.equal((await app.inject({ method: 'HEAD', url: '/reports' })).statusCode, 429)
})

/** A Redis double for @fastify/rate-limit: counts each key's hits, records the keys asked. */
function countingRedis(keys: string[]) {
  return {
    defineCommand() {},
    rateLimit(
      key: string,
      _window: number,
      _max: number,
      _ban: number,
      _continue: boolean,
      cb: (e: Error | null, result?: [number, number]) => void,
    ) {
      keys.push(key)
      cb(null, [keys.filter((seen) => seen === key).length, 60_000])
    },
  }
}

test('with a Redis store a GET and its HEAD twin use one key', async (t) => {
  const keys: string[] = []
  const redis = countingRedis(keys)
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors)
  await app.register(restwellRateLimit, { redis })
  app.get('/reports', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => [])
  t.equal((await app.inject('/reports')).statusCode, 200)
  t.equal((await app.inject({ method: 'HEAD', url: '/reports' })).statusCode, 429)
  t.same(keys, [
    'restwell-rate-limit-GET/reports-127.0.0.1',
    'restwell-rate-limit-GET/reports-127.0.0.1',
  ])
})

test("with a Redis store and a keyGenerator, the app's own app.rateLimit() makes its key", async (t) => {
  const keys: string[] = []
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors)
  await app.register(restwellRateLimit, {
    redis: countingRedis(keys),
    max: 1,
    keyGenerator: () => 'tenant-a',
  })
  app.get(
    '/custom',
    { config: { rateLimit: false }, preHandler: app.rateLimit() },
    async () => 'ok',
  )
  t.equal((await app.inject('/custom')).statusCode, 200)
  t.equal((await app.inject('/custom')).statusCode, 429)
  t.same(keys, ['restwell-rate-limit-tenant-a', 'restwell-rate-limit-tenant-a'])
})

test('allowList: listed clients are never limited nor told a limit', async (t) => {
  const app = await build({ max: 1, timeWindow: 60_000, allowList: ['127.0.0.1'] })
  for (let i = 0; i < 3; i++) {
    const res = await app.inject('/books')
    t.equal(res.statusCode, 200)
    t.equal(res.headers['x-ratelimit-limit'], undefined)
  }
  const other = await app.inject({ url: '/books', remoteAddress: '10.0.0.1' })
  t.equal(other.headers['x-ratelimit-remaining'], '0')
  t.equal((await app.inject({ url: '/books', remoteAddress: '10.0.0.1' })).statusCode, 429)
})

test('a key generator may answer with a promise; its failure is a masked 500', async (t) => {
  const app = await build({
    max: 1,
    timeWindow: 60_000,
    keyGenerator: async (request) => {
      if (request.headers['x-client'] === undefined) throw new Error('no client header')
      return String(request.headers['x-client'])
    },
  })
  await toldApart(t, app)
  const failed = await app.inject('/books')
  t.equal(failed.statusCode, 500)
  t.notMatch(failed.body, /no client header/)
})

test(`the memory store keeps the ${MEMORY_CLIENTS} most recently seen clients`, async (t) => {
  const app = await build({
    max: 1,
    timeWindow: 60_000,
    keyGenerator: (request) => String(request.headers['x-client']),
  })
  const hit = async (client: string | number) =>
    (await app.inject({ url: '/books', headers: { 'x-client': String(client) } })).statusCode
  t.equal(await hit('first'), 200)
  t.equal(await hit('kept'), 200)
  for (let i = 0; i < MEMORY_CLIENTS - 2; i++) await hit(i)
  t.equal(await hit('kept'), 429, 'seen again: now the most recent')
  t.equal(await hit('newcomer'), 200, 'one client too many: the least recently seen goes')
  t.equal(await hit('first'), 200, '"first" was forgotten: counted afresh')
  t.equal(await hit('kept'), 429, '"kept" was not')
})

test('client keys: IPv4 as is, IPv4-mapped IPv6 as IPv4, other IPv6 by its /64 network', async (t) => {
  t.equal(clientKey('127.0.0.1'), '127.0.0.1')
  t.equal(clientKey('::ffff:127.0.0.1'), '127.0.0.1')
  t.equal(clientKey('2001:DB8:0:0:1::1'), '2001:db8::')
  t.equal(clientKey('not-an-ip:really'), 'not-an-ip:really')
  // Any two IPv6 addresses share a key exactly when their first 64 bits agree.
  const groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 })
  const write = (words: number[], upper: boolean) => {
    const text = words.map((word) => word.toString(16)).join(':')
    return upper ? text.toUpperCase() : text
  }
  const mapped = (head: number[], tail: number[]) =>
    head.every((word) => word === 0) && tail[0] === 0 && tail[1] === 0xffff
  fc.assert(
    fc.property(
      groups,
      groups,
      groups,
      groups,
      fc.boolean(),
      (head, other, tail1, tail2, upper) => {
        fc.pre(!mapped(head, tail1) && !mapped(head, tail2) && !mapped(other, tail2))
        const a = clientKey(write([...head, ...tail1], upper))
        t.equal(a, clientKey(write([...head, ...tail2], !upper)))
        const sameNetwork = head.every((word, i) => word === other[i])
        t.equal(a === clientKey(write([...other, ...tail2], upper)), sameNetwork)
      },
    ),
  )
  const app = await build({ max: 1, timeWindow: 60_000 })
  const from = async (remoteAddress: string) =>
    (await app.inject({ url: '/books', remoteAddress })).statusCode
  t.equal(await from('2001:db8::1'), 200)
  t.equal(await from('2001:db8::2'), 429, 'the same /64')
  t.equal(await from('2001:db8:0:1::1'), 200, 'another /64')
  t.equal(await from('127.0.0.1'), 200)
  t.equal(await from('::ffff:127.0.0.1'), 429, 'the same client as 127.0.0.1')
})

test('per-route: false opts out, an object sets its own limit', async (t) => {
  const app = await build({ max: 1, timeWindow: 60_000 })
  for (let i = 0; i < 3; i++) t.equal((await app.inject('/free')).statusCode, 200)
  t.equal((await app.inject('/tight')).statusCode, 200)
  const second = await app.inject('/tight')
  t.equal(second.statusCode, 429)
  t.equal(second.json().error.code, 'RATE_LIMITED')
})

test('with a Redis store the 429 is the same: headers, message and error form', async (t) => {
  let count = 0
  const counting = redisDouble((cb) => cb(null, [++count, 30_000]))
  const app = await build({ redis: counting, max: 1 })
  t.equal((await app.inject('/books')).headers['x-ratelimit-remaining'], '0')
  const limited = await app.inject('/books')
  t.equal(limited.statusCode, 429)
  t.equal(limited.headers['retry-after'], '30')
  t.equal(limited.headers['x-ratelimit-reset'], '30')
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.equal(
    limited.json().error.message,
    'Rate limit exceeded: 1 requests per window; retry in 30 seconds',
  )
})

test('a failing store: 503 by default, through when failOpen', async (t) => {
  const broken = redisDouble((cb) => cb(new Error('redis down')))
  const closed = await build({ redis: broken })
  const res = await closed.inject('/books')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.equal(res.json().error.code, 'OVERLOADED')
  const open = await build({ redis: broken, failOpen: true })
  t.equal((await open.inject('/books')).statusCode, 200)
})

/** With a limit of 1 keyed on `x-client`: a, b and a again (limited). */
async function toldApart(t: Test, app: FastifyInstance): Promise<void> {
  const from = async (client: string) =>
    (await app.inject({ url: '/books', headers: { 'x-client': client } })).statusCode
  t.equal(await from('a'), 200)
  t.equal(await from('b'), 200)
  t.equal(await from('a'), 429)
}

test('a custom key: clients are told apart by it', async (t) => {
  const app = await build({
    max: 1,
    timeWindow: 60_000,
    keyGenerator: (request) => String(request.headers['x-client']),
  })
  await toldApart(t, app)
})

/** A Redis double: its rate-limit command's callback is handed to `answer`. */
function redisDouble(answer: (cb: (e: Error | null, result?: [number, number]) => void) => void) {
  return {
    defineCommand() {},
    rateLimit(
      _key: string,
      _window: number,
      _max: number,
      _ban: number,
      _continue: boolean,
      cb: (e: Error | null, result?: [number, number]) => void,
    ) {
      answer(cb)
    },
  }
}

/** A Redis double whose rate-limit command answers after `delay` ms (never, when undefined). */
function slowStore(delay: number | undefined, outcome: 'ok' | 'error' = 'ok') {
  return redisDouble((cb) => {
    if (delay === undefined) return
    setTimeout(
      () => (outcome === 'ok' ? cb(null, [1, 60_000]) : cb(new Error('late failure'))),
      delay,
    )
  })
}

test('a store that never answers (Redis lost, ioredis queueing): 503 after storeTimeout, not a hang', async (t) => {
  const closed = await build({ redis: slowStore(undefined), storeTimeout: 50 })
  const res = await closed.inject('/books')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.equal(res.json().error.code, 'OVERLOADED')
  const open = await build({ redis: slowStore(undefined), storeTimeout: 50, failOpen: true })
  t.equal((await open.inject('/books')).statusCode, 200, 'failOpen: served after the timeout')
})

test('a late answer after storeTimeout is dropped; a prompt one is used', async (t) => {
  const late = await build({ redis: slowStore(100, 'error'), storeTimeout: 20, failOpen: true })
  t.equal((await late.inject('/books')).statusCode, 200)
  await new Promise((resolve) => setTimeout(resolve, 150)) // the late failure lands: nothing happens
  const prompt = await build({ redis: slowStore(1), storeTimeout: 1000 })
  const res = await prompt.inject('/books')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-ratelimit-remaining'], '999')
})

test("a route's own limit meets a failing store as the root limit does: 503, or through when failOpen", async (t) => {
  const broken = slowStore(1, 'error')
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors)
  await app.register(restwellRateLimit, { redis: broken, failOpen: true })
  app.get('/tight', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => 'tight')
  app.get(
    '/strict',
    { config: { rateLimit: { max: 1, timeWindow: 60_000, skipOnError: false } } },
    async () => 'strict',
  )
  app.get('/books', async () => [])
  t.equal((await app.inject('/tight')).statusCode, 200, 'served although the store failed')
  const strict = await app.inject('/strict')
  t.equal(strict.statusCode, 503, "the route's own skipOnError wins")
  t.equal(strict.headers['retry-after'], '5')
  t.equal(strict.json().error.code, 'OVERLOADED')
  t.equal((await app.inject('/books')).statusCode, 200)
  const closed = await build({ redis: slowStore(1, 'error') })
  const refused = await closed.inject('/tight')
  t.equal(refused.statusCode, 503, 'failOpen false: 503, as for the root limit')
  t.equal(refused.headers['retry-after'], '5')
})

test("a route's own limit with a store that never answers: 503 after storeTimeout, not a hang", async (t) => {
  const closed = await build({ redis: slowStore(undefined), storeTimeout: 50 })
  const res = await closed.inject('/tight')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  const open = await build({ redis: slowStore(undefined), storeTimeout: 50, failOpen: true })
  t.equal((await open.inject('/tight')).statusCode, 200, 'failOpen: served after the timeout')
})

test("with a Redis store a keyGenerator's error is answered as in memory mode, not as a store failure", async (t) => {
  const keys: string[] = []
  const counting = countingRedis(keys)
  const generators = {
    throws: () => {
      throw new Error('no client header')
    },
    rejects: async () => {
      throw new Error('no client header')
    },
    unauthorized: async () => {
      throw httpErrors.unauthorized('API key required')
    },
  }
  for (const failOpen of [false, true]) {
    for (const [name, keyGenerator] of Object.entries(generators)) {
      const app = await build({ redis: counting, max: 1, keyGenerator, failOpen })
      // The root limit, and a route's own (whose key is made first too).
      for (const url of ['/books', '/books', '/tight']) {
        const res = await app.inject(url)
        const expected = name === 'unauthorized' ? 401 : 500
        t.equal(res.statusCode, expected, `${url} ${name}, failOpen ${failOpen}`)
        t.notMatch(res.body, /no client header/)
        if (expected === 401) t.equal(res.json().error.message, 'API key required')
      }
    }
  }
  t.same(keys, [], 'the store was never asked')
  const app = await build({
    redis: counting,
    max: 1,
    keyGenerator: (request) => String(request.headers['x-client']),
  })
  await toldApart(t, app)
  const own = await app.inject({ url: '/tight', headers: { 'x-client': 'a' } })
  t.equal(own.statusCode, 200, "a route's own limit: the key made first, under the route's prefix")
  t.same(keys, [
    'restwell-rate-limit-a',
    'restwell-rate-limit-b',
    'restwell-rate-limit-a',
    'restwell-rate-limit-GET/tight-a',
  ])
})

test('with a Redis store and a keyGenerator, a failing store is still a 503, through when failOpen', async (t) => {
  const broken = redisDouble((cb) => cb(new Error('redis down')))
  const keyGenerator = async () => 'client'
  const closed = await build({ redis: broken, keyGenerator })
  const res = await closed.inject('/books')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.equal(res.json().error.code, 'OVERLOADED')
  const open = await build({ redis: broken, keyGenerator, failOpen: true })
  t.equal((await open.inject('/books')).statusCode, 200)
  const slow = await build({
    redis: slowStore(undefined),
    storeTimeout: 20,
    keyGenerator: () => 'client',
  })
  t.equal((await slow.inject('/books')).statusCode, 503, 'a store timeout too')
})

test("a twin (method override's, a version's) is limited by its route's counter", async (t) => {
  const app = await build()
  const sources = new Map<string, RouteEntry>()
  app.addHook('onRoute', (route) => {
    if (route.method === 'DELETE') sources.set(route.url, route)
  })
  const limit = { rateLimit: { max: 2, timeWindow: 60_000 } }
  app.delete('/reports/:id', { config: limit }, async () => 'gone')
  app.delete('/open/:id', async () => 'gone')
  // A twin as @restwell/versioning makes one: another URL serving the same route.
  const twinOf = (url: string) => ({
    ...limit,
    [VERSION_PAIR]: { version: 1, prefixed: false, of: sources.get(url) },
  })
  app.delete('/twin/:id', { config: twinOf('/reports/:id') }, async () => 'gone')
  app.delete('/other/:id', { config: twinOf('/open/:id') }, async () => 'gone')
  t.equal((await app.inject({ method: 'DELETE', url: '/reports/1' })).statusCode, 200)
  const twin = await app.inject({ method: 'DELETE', url: '/twin/1' })
  t.equal(twin.headers['x-ratelimit-remaining'], '0', "counted in its route's window")
  t.equal((await app.inject({ method: 'DELETE', url: '/reports/1' })).statusCode, 429)
  const other = await app.inject({ method: 'DELETE', url: '/other/1' })
  t.equal(other.headers['x-ratelimit-remaining'], '1', 'a route with no limit of its own: its own')
})
