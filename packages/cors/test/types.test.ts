import { expectTypeOf } from 'expect-type'
import type { FastifyContextConfig, FastifyPluginAsync } from 'fastify'
import { test } from 'tap'
import restwellCorsDefault, { type CorsOptions, restwellCors } from '../src/index.js'

test('types of the options and the route config', async (t) => {
  expectTypeOf(restwellCors).toEqualTypeOf<FastifyPluginAsync<CorsOptions>>()
  expectTypeOf(restwellCorsDefault).toEqualTypeOf(restwellCors)
  expectTypeOf<CorsOptions['origin']>().toEqualTypeOf<
    string | string[] | boolean | RegExp | undefined
  >()
  expectTypeOf<CorsOptions['methodOverride']>().toEqualTypeOf<
    false | { header: string | false; query: string | false; methods: string[] } | undefined
  >()
  expectTypeOf<FastifyContextConfig['cors']>().toEqualTypeOf<false | undefined>()
  t.equal(restwellCorsDefault, restwellCors)
})
