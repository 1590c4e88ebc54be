import { gzipSync } from 'node:zlib'
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import { restwellCompress } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const echo = async (request: { body: unknown }) => ({ got: request.body ?? null })

async function build(): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  app.get('/early', async () => ({ early: true }))
  await app.register(restwellErrors)
  await app.register(restwellCompress)
  app.get('/books', async () => ({ books: [] }))
  app.post('/books', echo)
  app.route({ method: ['GET', 'POST'], url: '/both', handler: echo })
  app.get('/own', { decompress: { forceRequestEncoding: 'gzip' } }, echo)
  await app.ready()
  return app
}

test('routes of bodyless methods decode no body; the others do', async (t) => {
  const app = await build()
  // A coding no route takes: a route that decodes answers 415, one that does not reads nothing.
  const headers = { 'content-type': 'application/json', 'content-encoding': 'x-unknown' }
  const status = async (method: 'GET' | 'HEAD' | 'POST', url: string) =>
    (await app.inject({ method, url, headers, payload: '{}' })).statusCode
  for (const [method, url] of [
    ['GET', '/books'],
    ['HEAD', '/books'],
    ['GET', '/early'],
    ['HEAD', '/early'],
  ] as const) {
    t.equal(await status(method, url), 200, `${method} ${url}: no decoder`)
  }
  t.equal(await status('POST', '/books'), 415, 'a POST route decodes')
  t.equal(await status('GET', '/both'), 415, 'a route with a body method too, on every method')
  t.equal(await status('GET', '/own'), 200, "a route's own decompress option is kept (gzip forced)")
})

test('a gzip request body is still decompressed; a GET ignores its body as before', async (t) => {
  const app = await build()
  const payload = gzipSync(JSON.stringify({ title: 'Dune' }))
  const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' }
  const posted = await app.inject({ method: 'POST', url: '/books', headers, payload })
  t.equal(posted.statusCode, 200)
  t.same(posted.json(), { got: { title: 'Dune' } })
  const both = await app.inject({ method: 'POST', url: '/both', headers, payload })
  t.same(both.json(), { got: { title: 'Dune' } })
  const got = await app.inject({ method: 'GET', url: '/books', headers, payload })
  t.equal(got.statusCode, 200)
  t.same(got.json(), { books: [] })
  const bad = await app.inject({
    method: 'POST',
    url: '/books',
    headers,
    payload: Buffer.from('not gzip'),
  })
  t.equal(bad.statusCode, 400, 'a body that is not gzip is refused')
  t.equal(bad.json().error.code, 'BAD_REQUEST')
})

test('an unknown Content-Encoding: 415 where a body is read, ignored on a GET', async (t) => {
  const app = await build()
  const headers = { 'content-type': 'application/json', 'content-encoding': 'x-unknown' }
  const posted = await app.inject({ method: 'POST', url: '/books', headers, payload: '{}' })
  t.equal(posted.statusCode, 415)
  t.equal(posted.json().error.code, 'UNSUPPORTED_CONTENT_ENCODING')
  // RFC 9110 §12.5.3: the codings accepted, so the client can tell it from a media type 415.
  t.match(posted.headers['accept-encoding'], /^(zstd, )?br, gzip, deflate$/)
  // RFC 9110 §9.3.1: content in a GET has no defined semantics; Fastify never reads it.
  const got = await app.inject({ method: 'GET', url: '/books', headers, payload: '{}' })
  t.equal(got.statusCode, 200)
  t.same(got.json(), { books: [] })
})

test('request content codings are case-insensitive, and x-gzip is gzip (RFC 9110 §8.4.1)', async (t) => {
  const app = await build()
  const payload = gzipSync(JSON.stringify({ title: 'Dune' }))
  for (const coding of ['GZIP', 'Gzip', ' gzip ', 'x-gzip', 'X-GZIP', 'IDENTITY']) {
    const body = coding === 'IDENTITY' ? JSON.stringify({ title: 'Dune' }) : payload
    const res = await app.inject({
      method: 'POST',
      url: '/books',
      headers: { 'content-type': 'application/json', 'content-encoding': coding },
      payload: body,
    })
    t.equal(res.statusCode, 200, `Content-Encoding: ${coding}`)
    t.same(res.json(), { got: { title: 'Dune' } })
  }
})
