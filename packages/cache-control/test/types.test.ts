import { expectTypeOf } from 'expect-type'
import Fastify, {
  type FastifyContextConfig,
  type FastifyPluginAsync,
  type FastifyReply,
} from 'fastify'
import { test } from 'tap'
import restwellCacheControlDefault, {
  appendVary,
  type CacheControlOptions,
  type CacheDirectives,
  type CacheRouteConfig,
  formatCacheControl,
  mergeVary,
  type ParsedCacheControl,
  parseCacheControl,
  restwellCacheControl,
} from '../src/index.js'

test('types of the options, route config and decorators', async (t) => {
  expectTypeOf(restwellCacheControl).toEqualTypeOf<FastifyPluginAsync<CacheControlOptions>>()
  expectTypeOf(restwellCacheControlDefault).toEqualTypeOf(restwellCacheControl)
  expectTypeOf<CacheControlOptions>().toEqualTypeOf<{
    policy?: {
      public?: boolean
      private?: boolean
      noCache?: boolean
      noStore?: boolean
      maxAge?: number
      sMaxAge?: number
      staleWhileRevalidate?: number
      staleIfError?: number
      immutable?: boolean
      mustRevalidate?: boolean
      proxyRevalidate?: boolean
      noTransform?: boolean
    }
    vary?: string[]
    varyAuthorization?: boolean
  }>()
  expectTypeOf<CacheRouteConfig>().toMatchTypeOf<CacheDirectives>()
  expectTypeOf<CacheRouteConfig['vary']>().toEqualTypeOf<string[] | undefined>()
  expectTypeOf<FastifyReply['cachePolicy']>().parameters.toEqualTypeOf<
    [directives: CacheDirectives]
  >()
  expectTypeOf<FastifyReply['cachePolicy']>().returns.toEqualTypeOf<FastifyReply>()
  expectTypeOf(formatCacheControl).returns.toEqualTypeOf<string>()
  expectTypeOf(parseCacheControl).returns.toEqualTypeOf<ParsedCacheControl>()
  expectTypeOf(mergeVary).returns.toEqualTypeOf<string>()
  expectTypeOf(appendVary).returns.toEqualTypeOf<FastifyReply>()

  const app = Fastify()
  await app.register(restwellCacheControl, { policy: { public: true, maxAge: 60 } })
  app.get(
    '/a',
    { config: { cache: { sMaxAge: 60, vary: ['Accept'] } } },
    async (_request, reply) => {
      return reply.cachePolicy({ noStore: true }).send('x')
    },
  )
  app.get('/b', { config: { cache: false } }, async () => 'x')
  expectTypeOf<FastifyContextConfig['cache']>().toEqualTypeOf<
    false | CacheRouteConfig | undefined
  >()
  const res = await app.inject('/a')
  t.equal(res.headers['cache-control'], 'no-store')
})
