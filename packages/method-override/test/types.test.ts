import { expectTypeOf } from 'expect-type'
import type { FastifyPluginAsync } from 'fastify'
import { test } from 'tap'
import restwellDefault, {
  type MethodOverrideOptions,
  type RerouteRecord,
  reroutedFrom,
  restwellMethodOverride,
} from '../src/index.js'

test('types of @restwell/method-override', async (t) => {
  expectTypeOf(restwellMethodOverride).toEqualTypeOf<FastifyPluginAsync<MethodOverrideOptions>>()
  expectTypeOf(restwellDefault).toEqualTypeOf(restwellMethodOverride)
  expectTypeOf<MethodOverrideOptions>().toMatchTypeOf<{
    methods?: ('GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'QUERY')[]
    header?: string | false
    query?: string | false
  }>()
  expectTypeOf<{ methods: ['TRACE'] }>().not.toMatchTypeOf<MethodOverrideOptions>()
  expectTypeOf(reroutedFrom).returns.toEqualTypeOf<RerouteRecord | undefined>()
  expectTypeOf<RerouteRecord>().toEqualTypeOf<{
    readonly method: string
    readonly url: string
    readonly id: string
  }>()
  t.equal(restwellDefault, restwellMethodOverride)
})
