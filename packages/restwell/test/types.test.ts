import type { ErrorsOptions } from '@restwell/errors'
import type { MethodsOptions } from '@restwell/methods'
import { expectTypeOf } from 'expect-type'
import type { FastifyContextConfig, FastifyPluginAsync, RouteShorthandOptions } from 'fastify'
import { test } from 'tap'
import restwellDefault, { type RestwellOptions, restwell } from '../src/index.js'
import { ROUTE_CONFIG_KEYS, type RouteConfigKey } from '../src/route-config.js'

test('types of restwell', async (t) => {
  expectTypeOf(restwell).toEqualTypeOf<FastifyPluginAsync<RestwellOptions>>()
  expectTypeOf<RestwellOptions['errors']>().toEqualTypeOf<ErrorsOptions | false | undefined>()
  expectTypeOf<RestwellOptions['methods']>().toEqualTypeOf<MethodsOptions | false | undefined>()
  t.equal(restwellDefault, restwell)
})

test('route options the README documents are typed (checked by tsc)', async (t) => {
  // Typed options: an unknown key would be an error here (Fastify infers untyped ones).
  const options: RouteShorthandOptions = {
    config: { cors: false, rateLimit: { max: 2, timeWindow: 60_000 } },
    compress: false,
    decompress: false,
  }
  expectTypeOf<FastifyContextConfig['cors']>().toEqualTypeOf<false | undefined>()
  t.equal(options.config?.cors, false)
})

test("ROUTE_CONFIG_KEYS lists every route config key restwell's plugins declare (checked by tsc)", async (t) => {
  // A plugin's new key fails here until listed, so a near miss of it is caught at registration;
  // the others are @fastify/swagger's and @fastify/multipart's.
  expectTypeOf<Exclude<keyof FastifyContextConfig, RouteConfigKey>>().toEqualTypeOf<
    'swagger' | 'swaggerTransform' | 'multipartOptions'
  >()
  t.ok(ROUTE_CONFIG_KEYS.includes('pagination'))
})
