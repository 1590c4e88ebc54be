import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import restwell, { type RestwellOptions } from '../src/index.js'

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
})

test('routes registered before restwell and the 404/405 path are limited too', async (t) => {
  const app = await build({ rateLimit: { max: 1, timeWindow: 60_000 } })
  t.equal((await app.inject('/early')).statusCode, 200)
  t.equal((await app.inject('/early')).statusCode, 429)
  const other = await build({ rateLimit: { max: 1, timeWindow: 60_000 } })
  t.equal((await other.inject({ method: 'PUT', url: '/books' })).statusCode, 405)
  t.equal((await other.inject('/nowhere')).statusCode, 429)
})

test('per-route: false opts out, an object sets its own limit', async (t) => {
  const app = await build({ rateLimit: { max: 1, timeWindow: 60_000 } })
  for (let i = 0; i < 3; i++) t.equal((await app.inject('/free')).statusCode, 200)
  t.equal((await app.inject('/tight')).statusCode, 200)
  const second = await app.inject('/tight')
  t.equal(second.statusCode, 429)
  t.equal(second.json().error.code, 'RATE_LIMITED')
})

test('a failing store: 503 by default, through when failOpen', async (t) => {
  const broken = {
    defineCommand() {},
    rateLimit(
      _key: string,
      _window: number,
      _max: number,
      _ban: number,
      _continue: boolean,
      cb: (e: Error) => void,
    ) {
      cb(new Error('redis down'))
    },
  }
  const closed = await build({ rateLimit: { redis: broken } })
  const res = await closed.inject('/books')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.equal(res.json().error.code, 'OVERLOADED')
  const open = await build({ rateLimit: { redis: broken, failOpen: true } })
  t.equal((await open.inject('/books')).statusCode, 200)
})

test('a custom key: clients are told apart by it', async (t) => {
  const app = await build({
    rateLimit: {
      max: 1,
      timeWindow: 60_000,
      keyGenerator: (request) => String(request.headers['x-client']),
    },
  })
  t.equal((await app.inject({ url: '/books', headers: { 'x-client': 'a' } })).statusCode, 200)
  t.equal((await app.inject({ url: '/books', headers: { 'x-client': 'b' } })).statusCode, 200)
  t.equal((await app.inject({ url: '/books', headers: { 'x-client': 'a' } })).statusCode, 429)
})

test('rateLimit: false', async (t) => {
  const app = await build({ rateLimit: false })
  const res = await app.inject('/books')
  t.equal(res.headers['x-ratelimit-limit'], undefined)
})

/** A Redis double whose rate-limit command answers after `delay` ms (never, when undefined). */
function slowStore(delay: number | undefined, outcome: 'ok' | 'error' = 'ok') {
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
      if (delay === undefined) return
      setTimeout(
        () => (outcome === 'ok' ? cb(null, [1, 60_000]) : cb(new Error('late failure'))),
        delay,
      )
    },
  }
}

test('a store that never answers (Redis lost, ioredis queueing): 503 after storeTimeout, not a hang', async (t) => {
  const closed = await build({ rateLimit: { redis: slowStore(undefined), storeTimeout: 50 } })
  const res = await closed.inject('/books')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5')
  t.equal(res.json().error.code, 'OVERLOADED')
  const open = await build({
    rateLimit: { redis: slowStore(undefined), storeTimeout: 50, failOpen: true },
  })
  t.equal((await open.inject('/books')).statusCode, 200, 'failOpen: served after the timeout')
})

test('a late answer after storeTimeout is dropped; a prompt one is used', async (t) => {
  const late = await build({
    rateLimit: { redis: slowStore(100, 'error'), storeTimeout: 20, failOpen: true },
  })
  t.equal((await late.inject('/books')).statusCode, 200)
  await new Promise((resolve) => setTimeout(resolve, 150)) // the late failure lands: nothing happens
  const prompt = await build({ rateLimit: { redis: slowStore(1), storeTimeout: 1000 } })
  const res = await prompt.inject('/books')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-ratelimit-remaining'], '999')
})

test("failOpen also covers a route's own limit (its skipOnError), unless the route sets it", async (t) => {
  const broken = slowStore(1, 'error')
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, { rateLimit: { redis: broken, failOpen: true } })
  app.get('/tight', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => 'tight')
  app.get(
    '/strict',
    { config: { rateLimit: { max: 1, timeWindow: 60_000, skipOnError: false } } },
    async () => 'strict',
  )
  app.get('/books', async () => [])
  t.equal((await app.inject('/tight')).statusCode, 200, 'served although the store failed')
  t.equal((await app.inject('/strict')).statusCode, 500, "the route's own skipOnError wins")
  t.equal((await app.inject('/books')).statusCode, 200)
  const closed = await build({ rateLimit: { redis: slowStore(1, 'error') } })
  t.equal(
    (await closed.inject('/tight')).statusCode,
    500,
    'failOpen false: the store error is a (masked) 500',
  )
})
