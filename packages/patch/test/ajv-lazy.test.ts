/**
 * Ajv is loaded when the first resource schema is compiled, not when the package is imported
 * (Fastify loads its own copy when an instance is made).
 */
import { createRequire } from 'node:module'
import { test } from 'tap'
import { restwellPatch } from '../src/index.js'

const loaded = (name: string): boolean =>
  Object.keys(createRequire(import.meta.url).cache).some((file) =>
    file.includes(`/node_modules/${name}/`),
  )

test('importing the package leaves Ajv unloaded; a checked patch uses it with its formats', async (t) => {
  t.notOk(loaded('ajv'), 'ajv: not loaded by the import')
  t.notOk(loaded('ajv-formats'), 'ajv-formats: not loaded by the import')
  const { default: Fastify } = await import('fastify')
  const app = Fastify()
  await app.register(restwellPatch)
  const schema = { type: 'object', properties: { title: { type: 'string', format: 'email' } } }
  app.patch('/books/1', { config: { patch: { schema } } }, async (request) =>
    request.applyPatch({ title: 'a@b.c' }),
  )
  const patch = (title: string) =>
    app.inject({
      method: 'PATCH',
      url: '/books/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: { title },
    })
  t.equal((await patch('x@y.z')).statusCode, 200, 'a valid result passes')
  t.equal((await patch('Dune')).statusCode, 422, "ajv-formats' formats are known")
  await app.close()
})
