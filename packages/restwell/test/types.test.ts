import type { ErrorsOptions } from '@restwell/errors'
import type { MethodsOptions } from '@restwell/methods'
import { expectTypeOf } from 'expect-type'
import type { FastifyPluginAsync } from 'fastify'
import { test } from 'tap'
import restwellDefault, { type RestwellOptions, restwell } from '../src/index.js'

test('types of restwell', async (t) => {
  expectTypeOf(restwell).toEqualTypeOf<FastifyPluginAsync<RestwellOptions>>()
  expectTypeOf<RestwellOptions['errors']>().toEqualTypeOf<ErrorsOptions | false | undefined>()
  expectTypeOf<RestwellOptions['methods']>().toEqualTypeOf<MethodsOptions | false | undefined>()
  t.equal(restwellDefault, restwell)
})
