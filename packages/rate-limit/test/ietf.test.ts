/**
 * The IETF fields (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy` and `RateLimit`
 * for the root limit and a route's own, in memory and on a real Redis; the 429's `Retry-After`
 * and its `quota-exceeded` problem; what CORS is told to expose.
 */
import { mergeContributions } from '@restwell/core/internal'
import { restwellErrors } from '@restwell/errors'
import fc from 'fast-check'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import { Redis } from 'ioredis'
import { type List, parseList } from 'structured-headers'
import tap, { type Test, test } from 'tap'
import { type Service, startRedis } from '../../../test/helpers/services.js'
import { limitField, policyField } from '../src/fields.js'
import {
  QUOTA_EXCEEDED,
  type RateLimitOptions,
  rateLimit,
  restwellRateLimit,
} from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

/** The problem form, the plugin, a root-limited route and two with their own limits. */
async function build(options: RateLimitOptions): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellErrors, { format: 'problem' })
  await app.register(restwellRateLimit, options)
  app.get('/books', async () => [])
  app.post(
    '/login',
    { config: { rateLimit: { max: 2, timeWindow: '30 seconds' } } },
    async () => 'in',
  )
  app.get(
    '/search',
    { config: { rateLimit: { max: 1, timeWindow: 1500, policy: 'search' } } },
    async () => [],
  )
  return app
}

/** One header's List, as a client parses it: [name, { parameters }] per member. */
function members(response: LightMyRequestResponse, name: string): [unknown, object][] {
  const value = response.headers[name]
  if (typeof value !== 'string') return []
  return parseList(value).map(([item, parameters]) => [item, Object.fromEntries(parameters)])
}

/** The 429 of an IETF policy: `Retry-After` never earlier than `t`, the quota-exceeded problem. */
function quotaExceeded(t: Test, limited: LightMyRequestResponse, policy: string): void {
  t.equal(limited.statusCode, 429)
  const [[name, { t: reset }]] = members(limited, 'ratelimit') as [[string, { t: number }]]
  t.equal(name, policy)
  t.ok(Number(limited.headers['retry-after']) >= reset, 'Retry-After is not earlier than t (§6)')
  t.equal(limited.json().type, QUOTA_EXCEEDED)
  t.same(limited.json()['violated-policies'], [policy])
  t.equal(limited.json().code, 'RATE_LIMITED')
}

test("headers: 'ietf' sends RateLimit-Policy and RateLimit for the root limit, not X-RateLimit-*", async (t) => {
  const app = await build({ max: 2, timeWindow: 60_000, headers: 'ietf' })
  const first = await app.inject('/books')
  t.equal(first.headers['ratelimit-policy'], '"default";q=2;w=60')
  t.same(members(first, 'ratelimit-policy'), [['default', { q: 2, w: 60 }]])
  t.same(members(first, 'ratelimit'), [['default', { r: 1, t: 60 }]])
  t.notOk('x-ratelimit-limit' in first.headers)
  t.notOk('x-ratelimit-remaining' in first.headers)
  await app.inject('/books')
  const limited = await app.inject('/books')
  t.same(members(limited, 'ratelimit'), [['default', { r: 0, t: 60 }]])
  quotaExceeded(t, limited, 'default')
})

test("a route's own limit is its own policy: named by config.rateLimit.policy, else by the route", async (t) => {
  const app = await build({ max: 100, headers: 'ietf', policy: 'per-client' })
  t.same(members(await app.inject('/books'), 'ratelimit-policy'), [
    ['per-client', { q: 100, w: 60 }],
  ])
  const login = await app.inject({ method: 'POST', url: '/login' })
  t.same(members(login, 'ratelimit-policy'), [['POST /login', { q: 2, w: 30 }]])
  t.same(members(login, 'ratelimit'), [['POST /login', { r: 1, t: 30 }]])
  t.notOk('x-ratelimit-limit' in login.headers, 'the library’s X-RateLimit-* are not sent')
  // A 1.5 s window is announced as 2 s: no sub-second precision (§3.1.3), never shorter.
  t.same(members(await app.inject('/search'), 'ratelimit-policy'), [['search', { q: 1, w: 2 }]])
  quotaExceeded(t, await app.inject('/search'), 'search')
  await app.inject({ method: 'POST', url: '/login' })
  quotaExceeded(t, await app.inject({ method: 'POST', url: '/login' }), 'POST /login')
})

test("headers: 'both' sends both; the default sends X-RateLimit-* only, and its 429 names no policy", async (t) => {
  const both = await build({ max: 1, headers: 'both' })
  const first = await both.inject('/books')
  t.equal(first.headers['x-ratelimit-limit'], '1')
  t.equal(first.headers.ratelimit, '"default";r=0;t=60')
  const own = await both.inject({ method: 'POST', url: '/login' })
  t.equal(own.headers['x-ratelimit-limit'], '2')
  t.equal(own.headers.ratelimit, '"POST /login";r=1;t=30')
  quotaExceeded(t, await both.inject('/books'), 'default')

  const plain = await build({ max: 1 })
  await plain.inject('/books')
  await plain.inject('/search')
  for (const limited of [await plain.inject('/books'), await plain.inject('/search')]) {
    t.equal(limited.statusCode, 429)
    t.equal(limited.headers['x-ratelimit-remaining'], '0')
    t.notOk('ratelimit' in limited.headers)
    t.notOk('ratelimit-policy' in limited.headers)
    t.equal(limited.json().type, 'about:blank')
    t.notOk('violated-policies' in limited.json())
  }
})

test('an allowList client is told no policy, by the root limit nor by a route’s own', async (t) => {
  const app = await build({ headers: 'both', allowList: ['127.0.0.1'] })
  for (const response of [await app.inject('/books'), await app.inject('/search')]) {
    t.equal(response.statusCode, 200)
    t.notOk('ratelimit' in response.headers)
    t.notOk('ratelimit-policy' in response.headers)
    t.notOk('x-ratelimit-limit' in response.headers)
  }
})

test('a window a function gives is not fixed: the policy names no w', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellRateLimit, { headers: 'ietf' })
  app.get(
    '/dynamic',
    { config: { rateLimit: { max: 5, timeWindow: () => 10_000 } } },
    async () => 'x',
  )
  const response = await app.inject('/dynamic')
  t.same(members(response, 'ratelimit-policy'), [['GET /dynamic', { q: 5 }]])
  t.same(members(response, 'ratelimit'), [['GET /dynamic', { r: 4, t: 10 }]])
})

test('a route name an RFC 9651 String cannot carry is percent-encoded; a bad policy is refused', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellRateLimit, { headers: 'ietf' })
  app.get('/bücher', { config: { rateLimit: { max: 5 } } }, async () => [])
  const response = await app.inject(`/${encodeURIComponent('bücher')}`)
  t.same(members(response, 'ratelimit-policy'), [['GET /b%C3%BCcher', { q: 5, w: 60 }]])
  const bad = Fastify()
  apps.push(bad)
  await bad.register(restwellRateLimit, { headers: 'ietf' })
  for (const policy of ['', 'bücher', 7]) {
    t.throws(
      () =>
        bad.get(
          `/p${String(policy).length}`,
          {
            config: { rateLimit: { max: 1, policy: policy as string } },
          },
          async () => 'x',
        ),
      {
        name: 'OptionsError',
        option: 'config.rateLimit.policy',
        message: new RegExp(
          `of route GET /p${String(policy).length} must be a non-empty string of printable ASCII`,
        ),
      },
    )
  }
  for (const options of [{ headers: 'ietf-11' }, { policy: 'dëfault' }, { policy: '' }]) {
    await t.rejects(
      async () => Fastify().register(restwellRateLimit, options as RateLimitOptions),
      { name: 'OptionsError', option: Object.keys(options)[0] },
    )
  }
})

test('CORS exposes the fields the option sends', async (t) => {
  const exposed = (headers?: RateLimitOptions['headers']) =>
    mergeContributions([{ convention: rateLimit, options: rateLimit.options({ headers }) }])
      .responseHeaders
  const x = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']
  t.same(exposed(), ['Retry-After', ...x])
  t.same(exposed('ietf'), ['Retry-After', 'RateLimit-Policy', 'RateLimit'])
  t.same(exposed('both'), ['Retry-After', ...x, 'RateLimit-Policy', 'RateLimit'])
})

test('over a real socket: the fields as a client reads them', async (t) => {
  const app = await build({ max: 1, headers: 'ietf' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const first = await fetch(`http://127.0.0.1:${port}/books`)
  t.equal(first.headers.get('ratelimit-policy'), '"default";q=1;w=60')
  t.equal(first.headers.get('ratelimit'), '"default";r=0;t=60')
  const limited = await fetch(`http://127.0.0.1:${port}/books`)
  t.equal(limited.status, 429)
  t.equal(limited.headers.get('content-type'), 'application/problem+json')
  const body = (await limited.json()) as Record<string, unknown>
  t.same(body['violated-policies'], ['default'])
  const reset = Number(/;t=(\d+)/.exec(limited.headers.get('ratelimit') ?? '')?.[1])
  t.ok(Number(limited.headers.get('retry-after')) >= reset)
})

test('what is sent parses back with structured-headers into the same values', async (t) => {
  const name = fc.string({ minLength: 1, unit: fc.constantFrom(...printableAscii()) })
  const count = fc.integer({ min: 0, max: 999_999_999_999_999 })
  fc.assert(
    fc.property(
      name,
      count,
      fc.option(fc.integer({ min: 1, max: 1e9 }), { nil: undefined }),
      count,
      count,
      (policy, quota, window, remaining, reset) => {
        const expected: List = [
          [
            policy,
            new Map(
              window === undefined
                ? [['q', quota]]
                : [
                    ['q', quota],
                    ['w', window],
                  ],
            ),
          ],
        ]
        t.same(parseList(policyField(policy, quota, window)), expected)
        t.same(parseList(limitField(policy, remaining, reset)), [
          [
            policy,
            new Map([
              ['r', remaining],
              ['t', reset],
            ]),
          ],
        ])
      },
    ),
  )
})

/** The characters an RFC 9651 String carries. */
function printableAscii(): string[] {
  return Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i))
}

test('with a real Redis: the root limit and a route’s own, each its own policy', async (t) => {
  const service: Service = await startRedis()
  const client = new Redis(service.url, { maxRetriesPerRequest: 1 })
  t.teardown(async () => {
    client.disconnect()
    await service.stop()
  })
  const app = await build({
    redis: client,
    nameSpace: `ietf-${process.pid}-${Date.now()}-`,
    max: 2,
    timeWindow: 60_000,
    headers: 'ietf',
  })
  const first = await app.inject('/books')
  t.same(members(first, 'ratelimit-policy'), [['default', { q: 2, w: 60 }]])
  const [[, { r, t: reset }]] = members(first, 'ratelimit') as [[string, { r: number; t: number }]]
  t.equal(r, 1)
  t.ok(reset > 0 && reset <= 60)
  t.notOk('x-ratelimit-limit' in first.headers)
  await app.inject('/books')
  quotaExceeded(t, await app.inject('/books'), 'default')
  t.same(members(await app.inject('/search'), 'ratelimit-policy'), [['search', { q: 1, w: 2 }]])
  quotaExceeded(t, await app.inject('/search'), 'search')
})
