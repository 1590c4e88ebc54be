/**
 * What only some apps use is loaded at registration, when configured: importing restwell does
 * not load @fastify/rate-limit or @fastify/under-pressure, and an app that turns them off never
 * does. Ajv (PATCH schemas) and
 * mime-db (compressibility of unusual types) wait for first use.
 */
import { createRequire } from 'node:module'
import Fastify from 'fastify'
import { test } from 'tap'
import restwell from '../src/index.js'

const loaded = (name: string): boolean =>
  Object.keys(createRequire(import.meta.url).cache).some((file) =>
    file.includes(`/node_modules/${name}/`),
  )

test('rate limits are loaded when registered, mime-db when a type needs it', async (t) => {
  t.notOk(loaded('@fastify/rate-limit'), 'rate-limit: not loaded by the import')
  t.notOk(loaded('@fastify/under-pressure'), 'under-pressure: not loaded by the import')
  t.notOk(loaded('ajv'), 'ajv: not loaded by the import')
  t.notOk(loaded('mime-db'), 'mime-db: not loaded by the import')
  t.notOk(loaded('ip-address'), 'ip-address: not loaded by the import')

  const off = Fastify()
  await off.register(restwell, { rateLimit: false, underPressure: false })
  await off.ready()
  t.notOk(loaded('@fastify/rate-limit'), 'rate-limit: not loaded when off')
  t.notOk(loaded('@fastify/under-pressure'), 'under-pressure: not loaded when off')
  await off.close()

  const on = Fastify()
  await on.register(restwell)
  on.get('/books', async () => [{ id: 1, title: 'x'.repeat(2000) }])
  on.get('/script', async (_request, reply) =>
    reply.type('application/javascript').send('x'.repeat(2000)),
  )
  const headers = { 'accept-encoding': 'gzip' }
  const res = await on.inject({ url: '/books', headers })
  t.equal(res.headers['x-ratelimit-limit'], '1000', 'the default rate limit still answers')
  t.equal(res.headers['content-encoding'], 'gzip', 'JSON is compressed')
  t.ok(loaded('@fastify/rate-limit'), 'rate-limit: loaded by the default registration')
  t.ok(loaded('@fastify/under-pressure'), 'under-pressure: loaded by the default registration')
  t.notOk(loaded('mime-db'), 'mime-db: not needed for JSON')
  const script = await on.inject({ url: '/script', headers })
  t.equal(script.headers['content-encoding'], 'gzip', 'mime-db says JavaScript is compressible')
  t.ok(loaded('mime-db'), 'mime-db: loaded for a type the pattern does not settle')
  await on.close()
})
