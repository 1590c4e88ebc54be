import { restwellErrors } from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { restwellPrefer } from '../src/index.js'

test('over a real socket: return=minimal, Preference-Applied, Vary: Prefer', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellPrefer)
  app.post('/books', async (_request, reply) =>
    reply.code(201).header('location', '/books/7').send({ id: 7 }),
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const res = await fetch(`${base}/books`, {
    method: 'POST',
    headers: { prefer: 'return=minimal' },
  })
  t.equal(res.status, 201)
  t.equal(res.headers.get('location'), '/books/7')
  t.equal(await res.text(), '')
  t.equal(res.headers.get('preference-applied'), 'return=minimal')
  t.equal(res.headers.get('vary'), 'Prefer')
  const full = await fetch(`${base}/books`, { method: 'POST' })
  t.same(await full.json(), { id: 7 })
})
