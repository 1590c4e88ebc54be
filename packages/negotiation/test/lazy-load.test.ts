/**
 * What only some apps use is loaded when first needed: fast-xml-parser by the first `fromXml`
 * (writing XML never loads it), @fastify/formbody at registration.
 */
import { createRequire } from 'node:module'
import Fastify from 'fastify'
import { test } from 'tap'
import restwellNegotiation, { fromXml, toXml } from '../src/index.js'

const loaded = (name: string): boolean =>
  Object.keys(createRequire(import.meta.url).cache).some((file) =>
    file.includes(`/node_modules/${name}/`),
  )

test('importing the package and toXml leave fast-xml-parser unloaded; fromXml loads it', async (t) => {
  t.notOk(loaded('fast-xml-parser'), 'not loaded by the import')
  const xml = toXml({ id: 1, title: 'Dune' }, 'book')
  t.notOk(loaded('fast-xml-parser'), 'not loaded by toXml')
  t.same(fromXml(xml), { id: 1, title: 'Dune' }, 'fromXml reads it back')
  t.ok(loaded('fast-xml-parser'), 'loaded by the first fromXml')
  t.same(fromXml(xml), { id: 1, title: 'Dune' }, 'and the same parser serves again')
})

test('@fastify/formbody is loaded at registration, not by the import', async (t) => {
  t.notOk(loaded('@fastify/formbody'), 'not loaded by the import')
  const app = Fastify()
  await app.register(restwellNegotiation)
  app.post(
    '/forms',
    { config: { negotiation: { consumes: ['application/x-www-form-urlencoded'] } } },
    async (request) => request.body,
  )
  const res = await app.inject({
    method: 'POST',
    url: '/forms',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'a=1&b=%C3%A9',
  })
  t.same(res.json(), { a: '1', b: 'é' }, 'a form body is parsed')
  t.ok(loaded('@fastify/formbody'), 'loaded by the registration')
  await app.close()
})
