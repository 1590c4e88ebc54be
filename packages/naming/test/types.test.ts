import { expectTypeOf } from 'expect-type'
import Fastify, { type FastifyPluginAsync } from 'fastify'
import { test } from 'tap'
import restwellDefault, {
  type NamingOptions,
  type NamingRule,
  type NamingViolation,
  restwellNaming,
} from '../src/index.js'

test('types of @restwell/naming', async (t) => {
  expectTypeOf(restwellNaming).toEqualTypeOf<FastifyPluginAsync<NamingOptions>>()
  expectTypeOf(restwellDefault).toEqualTypeOf(restwellNaming)
  expectTypeOf<NamingOptions>().toMatchTypeOf<{
    mode?: 'warn' | 'error' | 'off'
    maxDepth?: number
    prefixes?: string[]
    exclude?: string[]
    versionPrefix?: boolean
    apiPrefix?: boolean
    allow?: string[]
  }>()
  expectTypeOf<{ mode: 'loud' }>().not.toMatchTypeOf<NamingOptions>()
  expectTypeOf<NamingViolation['rule']>().toEqualTypeOf<NamingRule>()
  const app = Fastify()
  await app.register(restwellNaming, { mode: 'error' })
  app.get('/Search', { config: { naming: false } }, async () => ({ ok: true }))
  // @ts-expect-error config.naming only accepts false
  app.get('/searches', { config: { naming: true } }, async () => ({}))
  t.equal((await app.inject('/Search')).statusCode, 200)
})
