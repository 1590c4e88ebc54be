/**
 * What a rate limit tells the OpenAPI document (`describe`): the fields the `headers` option
 * sends on every answer, for the root limit and a route's own, and the 429 with `Retry-After`
 * and, with the IETF fields, the `quota-exceeded` problem naming the policy.
 */
import type { RouteDescription } from '@restwell/core'
import Fastify, { type RouteOptions } from 'fastify'
import { test } from 'tap'
import { QUOTA_EXCEEDED, type RateLimitOptions, rateLimit } from '../src/index.js'

const context = {
  pipeline: false,
  has: () => false,
  optionsOf: () => undefined,
  contributions: () => ({ queryParameters: [], requestHeaders: [], responseHeaders: [] }),
}

/** The description of each route, as the convention gives it with `options`. */
async function described(
  options: RateLimitOptions,
  routes: Record<string, object | undefined>,
): Promise<Record<string, RouteDescription | undefined>> {
  const app = Fastify()
  const settings = await rateLimit.setup(app, rateLimit.options(options), context as never)
  const added = new Map<string, RouteOptions>()
  app.addHook('onRoute', (route) => {
    added.set(route.url, route)
  })
  for (const [url, own] of Object.entries(routes)) {
    app.get(url, own === undefined ? {} : { config: { rateLimit: own as never } }, async () => '')
  }
  await app.ready()
  const out: Record<string, RouteDescription | undefined> = {}
  for (const [url, route] of added) {
    const config = (route.config as { rateLimit?: unknown } | undefined)?.rateLimit
    out[url] = rateLimit.describe?.(
      { route, instance: app, methods: ['GET'], config, name: `GET ${url}` } as never,
      settings,
    )
  }
  await app.close()
  return out
}

const names = (description: RouteDescription | undefined): string[] =>
  (description?.answerHeaders ?? []).map(([name]) => name)

test("headers: 'x-ratelimit': X-RateLimit-* on every answer, a 429 with Retry-After", async (t) => {
  const { '/books': books } = await described({ max: 5 }, { '/books': undefined })
  t.same(names(books), ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
  t.same(books?.answerHeaders?.[0], [
    'X-RateLimit-Limit',
    'Requests allowed in the window (5)',
    'integer',
  ])
  t.match(books?.responses, [
    [
      429,
      /Too Many Requests/,
      { headers: [['Retry-After', 'Seconds until the window ends', 'integer']] },
    ],
  ])
  t.notOk(books?.responses?.[0]?.[2]?.problem, 'no problem type: the 429 names no policy')
})

test("headers: 'ietf' and 'both': the policy's fields, and the quota-exceeded problem", async (t) => {
  const ietf = await described(
    { headers: 'ietf', max: 5, timeWindow: '1 minute' },
    { '/books': undefined, '/search': { max: 2, timeWindow: 1500, policy: 'search' } },
  )
  t.same(names(ietf['/books']), ['RateLimit-Policy', 'RateLimit'])
  t.match(ietf['/books']?.answerHeaders?.[0]?.[1], /`"default";q=5;w=60`/)
  t.match(ietf['/search']?.answerHeaders?.[0]?.[1], /`"search";q=2;w=2`/, 'its own, w rounded up')
  const answer = ietf['/search']?.responses?.[0]?.[2]
  t.match(answer?.headers, [['Retry-After', /RateLimit`'s `t`/, 'integer']])
  t.same(answer?.problem, {
    type: QUOTA_EXCEEDED,
    members: {
      'violated-policies': {
        type: 'array',
        items: { type: 'string', enum: ['search'] },
        description: 'The policies exceeded, as `RateLimit-Policy` names them',
      },
    },
  })
  const both = await described({ headers: 'both' }, { '/books': undefined })
  t.same(names(both['/books']), [
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'RateLimit-Policy',
    'RateLimit',
  ])
  t.match(both['/books']?.answerHeaders?.[3]?.[1], /`"default";q=1000;w=60`/, 'the defaults')
})

test("a route's own limit: its quota and window when fixed, where it counts", async (t) => {
  const routes = await described(
    { headers: 'both' },
    {
      '/keyed': { max: () => 3, timeWindow: () => 1000, hook: 'preHandler' },
      '/inherits': { timeWindow: 2000 },
    },
  )
  const [limit, , , policy] = routes['/keyed']?.answerHeaders ?? []
  t.equal(
    limit?.[1],
    'Requests allowed in the window (once the limit counts the request, at preHandler)',
  )
  t.match(policy?.[1], /`"GET \/keyed";q=<quota>`\) \(once the limit counts/, 'no w, no q')
  t.match(routes['/inherits']?.answerHeaders?.[3]?.[1], /q=1000;w=2`/, "the plugin's max")
})
