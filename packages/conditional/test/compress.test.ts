import { gunzipSync } from 'node:zlib'
import compress from '@fastify/compress'
import { restwellErrors } from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'

const BOOKS = Array.from({ length: 60 }, (_, i) => ({ id: i, title: `Book number ${i}` }))

test('alone beside @fastify/compress, routes hashing strong ETags fail ready(), named with the fix', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional)
  await app.register(compress)
  app.get('/books', async () => BOOKS)
  app.get('/weak', { config: { conditional: { weak: true } } }, async () => BOOKS)
  app.get('/plain', { compress: false }, async () => BOOKS)
  app.get('/untagged', { config: { conditional: { etag: false } } }, async () => BOOKS)
  for (let i = 0; i < 3; i++) app.get(`/more/${i}`, async () => BOOKS)
  await t.rejects(async () => app.ready(), {
    message:
      /^@restwell\/conditional: GET \/books, HEAD \/books, GET \/more\/0, HEAD \/more\/0, GET \/more\/1 and 3 more hash strong ETags, .*RFC 9110 §8\.8\.3.*`weak: true`/,
  })
})

test('alone beside @fastify/compress, a few such routes are all named', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  await app.register(compress)
  app.get('/one', async () => BOOKS)
  await t.rejects(async () => app.ready(), {
    message: /^@restwell\/conditional: GET \/one, HEAD \/one hash strong ETags, /,
  })
})

test('alone beside @fastify/compress with weak ETags: gzip and identity share a weak tag', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional, { weak: true })
  await app.register(compress)
  app.get('/books', async () => BOOKS)
  t.teardown(() => app.close())
  const identity = await app.inject({ url: '/books', headers: { 'accept-encoding': 'identity' } })
  const etag = identity.headers.etag as string
  t.match(etag, /^W\/"[A-Za-z0-9_-]{27}"$/)
  const gzip = await app.inject({ url: '/books', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.equal(gzip.headers.etag, etag, 'a weak tag names both codings, semantically equivalent')
  t.same(JSON.parse(gunzipSync(gzip.rawPayload).toString()), BOOKS)
  const notModified = await app.inject({
    url: '/books',
    headers: { 'accept-encoding': 'gzip', 'if-none-match': etag },
  })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers['content-encoding'], undefined)
  const head = await app.inject({
    method: 'HEAD',
    url: '/books',
    headers: { 'if-none-match': etag },
  })
  t.equal(head.statusCode, 304)
  t.equal(head.headers['content-length'], undefined, 'a HEAD 304 has no Content-Length')
})

test('a body the handler compressed itself is not hashed; its given ETag gets the suffix', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  const { gzipSync } = await import('node:zlib')
  app.get('/pre', async (_req, reply) =>
    reply.header('content-encoding', 'gzip').type('text/plain').send(gzipSync('hello')),
  )
  app.get('/pre-tagged', async (_req, reply) =>
    reply.etag('t1').header('content-encoding', 'GZIP').type('text/plain').send(gzipSync('hello')),
  )
  app.get('/odd-coding', async (_req, reply) =>
    reply.etag('t2').header('content-encoding', 'gzip, br').send('x'),
  )
  app.get('/identity', async (_req, reply) =>
    reply.header('content-encoding', 'identity').send('x'),
  )
  const pre = await app.inject('/pre')
  t.equal(pre.headers.etag, undefined)
  t.equal(pre.headers['accept-ranges'], undefined)
  t.equal(gunzipSync(pre.rawPayload).toString(), 'hello')
  t.equal((await app.inject('/pre-tagged')).headers.etag, '"t1-gzip"')
  t.equal((await app.inject('/odd-coding')).headers.etag, '"t2-gzip.br"')
  t.match((await app.inject('/identity')).headers.etag, /^"[A-Za-z0-9_-]{27}"$/)
})
