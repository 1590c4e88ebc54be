/**
 * What only some apps use is loaded at registration, when configured: importing restwell loads
 * neither @fastify/rate-limit nor @fastify/compress, and an app that turns them off never does.
 * Ajv (PATCH schemas) and mime-db (compressibility of unusual types) wait for first use.
 */
import { createRequire } from 'node:module'
import Fastify from 'fastify'
import { test } from 'tap'
import restwell from '../src/index.js'

const loaded = (name: string): boolean =>
  Object.keys(createRequire(import.meta.url).cache).some((file) =>
    file.includes(`/node_modules/${name}/`),
  )

test('rate limits and compression are loaded when registered, not on import', async (t) => {
  t.notOk(loaded('@fastify/rate-limit'), 'rate-limit: not loaded by the import')
  t.notOk(loaded('@fastify/compress'), 'compress: not loaded by the import')
  t.notOk(loaded('ajv'), 'ajv: not loaded by the import')
  t.notOk(loaded('mime-db'), 'mime-db: not loaded by the import')

  const off = Fastify()
  await off.register(restwell, { rateLimit: false, compress: false })
  await off.ready()
  t.notOk(loaded('@fastify/rate-limit'), 'rate-limit: not loaded when off')
  t.notOk(loaded('@fastify/compress'), 'compress: not loaded when off')
  await off.close()

  const on = Fastify()
  await on.register(restwell)
  on.get('/books', async () => [{ id: 1 }])
  const res = await on.inject('/books')
  t.equal(res.headers['x-ratelimit-limit'], '1000', 'the default rate limit still answers')
  t.ok(loaded('@fastify/rate-limit'), 'rate-limit: loaded by the default registration')
  t.ok(loaded('@fastify/compress'), 'compress: loaded by the default registration')
  await on.close()
})
