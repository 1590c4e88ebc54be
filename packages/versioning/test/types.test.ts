import { expectTypeOf } from 'expect-type'
import Fastify, { type FastifyPluginAsync } from 'fastify'
import { test } from 'tap'
import restwellDefault, { restwellVersioning, type VersioningOptions } from '../src/index.js'

test('types of @restwell/versioning', async (t) => {
  expectTypeOf(restwellVersioning).toEqualTypeOf<FastifyPluginAsync<VersioningOptions>>()
  expectTypeOf(restwellDefault).toEqualTypeOf(restwellVersioning)
  expectTypeOf<VersioningOptions>().toMatchTypeOf<{
    versions?: number[]
    defaultVersion?: number
    carriers?: { prefix?: boolean; accept?: boolean; query?: boolean }
    queryParameter?: string
    responseHeader?: string | false
    routeToDefault?: boolean
    moved?: Record<string, string>
  }>()
  expectTypeOf<{ carriers: { header: true } }>().not.toMatchTypeOf<VersioningOptions>()
  const app = Fastify()
  await app.register(restwellVersioning)
  app.get('/v1/x', { config: { versioning: false } }, async (request) => {
    expectTypeOf(request.apiVersion).toEqualTypeOf<number | undefined>()
    return { v: request.apiVersion ?? null }
  })
  // @ts-expect-error config.versioning only accepts false
  app.get('/v1/y', { config: { versioning: true } }, async () => ({}))
  t.same((await app.inject('/v1/x')).json(), { v: 1 })
})
