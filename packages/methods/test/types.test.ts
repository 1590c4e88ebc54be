import { expectTypeOf } from 'expect-type'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { test } from 'tap'
import restwellMethodsDefault, { type MethodsOptions, restwellMethods } from '../src/index.js'

test('types of @restwell/methods', async (t) => {
  expectTypeOf(restwellMethods).toEqualTypeOf<FastifyPluginAsync<MethodsOptions>>()
  expectTypeOf(restwellMethodsDefault).toEqualTypeOf(restwellMethods)
  expectTypeOf<MethodsOptions>().toEqualTypeOf<{
    autoOptions?: boolean
    notImplemented?: boolean
  }>()
  expectTypeOf<FastifyReply['created']>().toEqualTypeOf<
    (location: string | URL, body?: unknown) => FastifyReply
  >()
  t.equal(restwellMethodsDefault, restwellMethods)
})
