import { expectTypeOf } from 'expect-type'
import type { FastifyContextConfig, FastifyPluginAsync } from 'fastify'
import { test } from 'tap'
import restwellRateLimitDefault, {
  type RateLimitOptions,
  type RouteRateLimitOptions,
  restwellRateLimit,
} from '../src/index.js'

test("types of the options and of a route's own limit", async (t) => {
  expectTypeOf(restwellRateLimit).toEqualTypeOf<FastifyPluginAsync<RateLimitOptions>>()
  expectTypeOf(restwellRateLimitDefault).toEqualTypeOf(restwellRateLimit)
  expectTypeOf<RateLimitOptions['max']>().toEqualTypeOf<number | undefined>()
  expectTypeOf<RateLimitOptions['timeWindow']>().toEqualTypeOf<number | string | undefined>()
  expectTypeOf<FastifyContextConfig['rateLimit']>().toEqualTypeOf<
    RouteRateLimitOptions | false | undefined
  >()
  expectTypeOf<RouteRateLimitOptions['policy']>().toEqualTypeOf<string | undefined>()
  expectTypeOf<RateLimitOptions['headers']>().toEqualTypeOf<
    'x-ratelimit' | 'ietf' | 'both' | undefined
  >()
  t.equal(restwellRateLimitDefault, restwellRateLimit)
})
