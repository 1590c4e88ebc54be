import { restwellErrors } from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { restwellCacheControl } from '../src/index.js'

test('over a real socket: Cache-Control and Vary on 200, 304 and errors', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellCacheControl, { vary: ['Accept'] })
  app.get('/doc', { config: { cache: { public: true, maxAge: 60 } } }, async (request, reply) => {
    if (request.headers['if-none-match'] === '"v1"')
      return reply.code(304).header('etag', '"v1"').send()
    return reply.header('etag', '"v1"').send({ doc: 1 })
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const ok = await fetch(`${base}/doc`)
  t.equal(ok.headers.get('cache-control'), 'public, max-age=60')
  t.equal(ok.headers.get('vary'), 'Accept')
  const same = await fetch(`${base}/doc`, { headers: { 'if-none-match': '"v1"' } })
  t.equal(same.status, 304)
  t.equal(same.headers.get('cache-control'), 'public, max-age=60')
  t.equal(same.headers.get('vary'), 'Accept')
  const missing = await fetch(`${base}/none`)
  t.equal(missing.status, 404)
  t.equal(missing.headers.get('cache-control'), 'no-store')
  const post = await fetch(`${base}/doc`, { method: 'POST' })
  t.equal(post.headers.get('cache-control'), 'no-store')
})
