import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import Fastify from 'fastify'
import { expectTypeOf } from 'expect-type'
import { test } from 'tap'
import restwellNegotiationDefault, {
  appendVary,
  type MultipartFile,
  type Negotiated,
  type NegotiationOptions,
  type NegotiationRouteConfig,
  type ProducedMediaType,
  restwellNegotiation,
  type SupportedMediaType,
} from '../src/index.js'

test('option, route config and decorator types', async (t) => {
  expectTypeOf(restwellNegotiationDefault).toEqualTypeOf(restwellNegotiation)
  expectTypeOf<NegotiationOptions['produces']>().toEqualTypeOf<SupportedMediaType[] | undefined>()
  expectTypeOf<NegotiationOptions['formatParam']>().toEqualTypeOf<string | false | undefined>()
  expectTypeOf<NegotiationOptions['multipart']>().toMatchTypeOf<
    boolean | { attachBody?: boolean } | undefined
  >()
  expectTypeOf<NegotiationRouteConfig['type']>().toEqualTypeOf<string | undefined>()
  expectTypeOf<NegotiationRouteConfig['choices']>().toEqualTypeOf<boolean | undefined>()
  expectTypeOf<FastifyContextConfig['negotiation']>().toEqualTypeOf<
    NegotiationRouteConfig | false | undefined
  >()
  expectTypeOf<FastifyRequest['negotiated']>().toEqualTypeOf<Negotiated | null>()
  expectTypeOf<FastifyRequest['language']>().toEqualTypeOf<string | undefined>()
  expectTypeOf<Negotiated['type']>().toEqualTypeOf<ProducedMediaType>()
  expectTypeOf<NegotiationRouteConfig['produces']>().toEqualTypeOf<
    ProducedMediaType[] | undefined
  >()
  const csv: NegotiationRouteConfig = { produces: ['text/csv', 'application/json'] }
  t.ok(csv, 'a route may produce its own types')
  expectTypeOf<MultipartFile['data']>().toEqualTypeOf<Buffer>()
  expectTypeOf(appendVary).parameters.toEqualTypeOf<[FastifyReply, ...string[]]>()
  // @ts-expect-error: not a media type this plugin serializes
  const bad: NegotiationOptions = { produces: ['text/html'] }
  t.ok(bad)

  const app: FastifyInstance = Fastify()
  await app.register(restwellNegotiation, {
    languages: ['en'],
    formats: { json: 'application/json' },
  })
  app.get(
    '/x',
    { config: { negotiation: { type: 'books', produces: ['application/xml'] } } },
    async (request) => {
      expectTypeOf(request.negotiated?.type).toEqualTypeOf<ProducedMediaType | undefined>()
      return { language: request.language }
    },
  )
  app.get('/off', { config: { negotiation: false } }, async () => ({}))
  const res = await app.inject('/x')
  t.equal(res.headers['content-type'], 'application/xml; charset=utf-8')
})
