import { createHash } from 'node:crypto'
import { restwellErrors } from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { restwellDigest } from '../src/index.js'

const sha256 = (bytes: string | Buffer): string =>
  createHash('sha256').update(bytes).digest('base64')

test('over a real socket: the fields of an answer, and a request digest checked', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellDigest)
  const big = 'x'.repeat(100_000)
  app.get('/big', async () => ({ big }))
  app.post('/echo', async (request) => request.body)
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const res = await fetch(`${base}/big`, { headers: { 'want-content-digest': 'sha-256=1' } })
  const text = await res.text()
  t.equal(res.headers.get('content-digest'), `sha-256=:${sha256(text)}:`, 'over the bytes received')
  const body = JSON.stringify({ big })
  const ok = await fetch(`${base}/echo`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'content-digest': `sha-256=:${sha256(body)}:` },
  })
  t.equal(ok.status, 200, 'a body in many chunks, hashed as read')
  await ok.arrayBuffer()
  const bad = await fetch(`${base}/echo`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'content-digest': `sha-256=:${sha256('x')}:` },
  })
  t.equal(bad.status, 400)
  t.equal(
    ((await bad.json()) as { error: { code: string } }).error.code,
    'DIGEST_MISMATCHED_VALUES',
  )
})
