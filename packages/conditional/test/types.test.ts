import { expectTypeOf } from 'expect-type'
import Fastify, { type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import restwellConditionalDefault, {
  type ConditionalOptions,
  type ConditionalRouteConfig,
  defineValidator,
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

test('defineValidator types the request of getValidator as the route', async (t) => {
  type Item = { Params: { id: string }; Querystring: { full?: boolean } }
  const getValidator = defineValidator<Item>((request) => {
    expectTypeOf(request.params).toEqualTypeOf<{ id: string }>()
    expectTypeOf(request.query).toEqualTypeOf<{ full?: boolean }>()
    return request.params.id === '1' ? { etag: 'v1' } : null
  })
  expectTypeOf(getValidator).toEqualTypeOf<GetValidator>()
  expectTypeOf<GetValidator<Item>>().parameter(0).toEqualTypeOf<FastifyRequest<Item>>()
  // @ts-expect-error without it the request is the default one: params unknown
  const untyped: GetValidator = (request) => ({ etag: request.params.id })
  t.ok(untyped)

  const app = Fastify()
  await app.register(restwellConditional)
  app.put<Item>('/items/:id', { config: { conditional: { getValidator } } }, async () => 'ok')
  const stale = await app.inject({
    method: 'PUT',
    url: '/items/1',
    headers: { 'if-match': '"v0"' },
    payload: { title: 'x' },
  })
  t.equal(stale.statusCode, 412)
  const fresh = await app.inject({
    method: 'PUT',
    url: '/items/1',
    headers: { 'if-match': '"v1"' },
    payload: { title: 'x' },
  })
  t.equal(fresh.statusCode, 200)
})
