import { expectTypeOf } from 'expect-type'
import Fastify, { type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import restwellConditionalDefault, {
  type ConditionalOptions,
  type ConditionalRouteConfig,
  type EntityTag,
  type GetValidator,
  parseEntityTagList,
  parseHttpDate,
  parseRange,
  type RangeSpec,
  type ResourceValidators,
  restwellConditional,
} from '../src/index.js'

test('types of the options, route config and decorators', async (t) => {
  expectTypeOf(restwellConditional).toEqualTypeOf<FastifyPluginAsync<ConditionalOptions>>()
  expectTypeOf(restwellConditionalDefault).toEqualTypeOf(restwellConditional)
  expectTypeOf<ConditionalOptions>().toEqualTypeOf<{
    etag?: boolean
    weak?: boolean
    ranges?: boolean
    maxRanges?: number
    requirePrecondition?: boolean
    varyAcceptEncoding?: boolean
  }>()
  expectTypeOf<FastifyReply['etag']>().parameters.toEqualTypeOf<
    [value: string | number | readonly (string | number)[], options?: { weak?: boolean }]
  >()
  expectTypeOf<FastifyReply['etag']>().returns.toEqualTypeOf<FastifyReply>()
  expectTypeOf<FastifyReply['lastModified']>()
    .parameter(0)
    .toEqualTypeOf<Date | number | string | readonly (Date | number | string)[]>()
  expectTypeOf<GetValidator>().parameter(0).toEqualTypeOf<FastifyRequest>()
  expectTypeOf<ReturnType<GetValidator>>().toEqualTypeOf<
    ResourceValidators | null | undefined | Promise<ResourceValidators | null | undefined>
  >()
  expectTypeOf(parseEntityTagList).returns.toEqualTypeOf<'*' | EntityTag[] | undefined>()
  expectTypeOf(parseHttpDate).returns.toEqualTypeOf<number | undefined>()
  expectTypeOf(parseRange).returns.toEqualTypeOf<RangeSpec[] | undefined>()

  const app = Fastify()
  await app.register(restwellConditional, { maxRanges: 4 })
  const config: ConditionalRouteConfig = { etagField: 'version', getValidator: () => ({ etag: 1 }) }
  app.get('/typed', { config: { conditional: config } }, async (_request, reply) => {
    expectTypeOf(reply.etag('v1', { weak: true })).toEqualTypeOf<FastifyReply>()
    return reply.lastModified(new Date(0)).send('ok')
  })
  app.get('/off', { config: { conditional: false } }, async () => 'off')
  expectTypeOf<{ nope: true }>().not.toMatchTypeOf<ConditionalRouteConfig>()
  expectTypeOf<{ etag: 'yes' }>().not.toMatchTypeOf<ConditionalRouteConfig>()
  const res = await app.inject('/typed')
  t.equal(res.headers.etag, 'W/"v1"')
  t.equal(res.headers['last-modified'], 'Thu, 01 Jan 1970 00:00:00 GMT')
})
