/**
 * The umbrella on HTTP/2 (`Fastify({ http2: true })`, cleartext), over a real socket: routes,
 * conditional requests, PATCH, the reroutes of versioning and method override, 405, OPTIONS,
 * a CORS preflight, gzip, a range, a masked 500 and a 404, each as on HTTP/1.1, with no
 * connection-specific header (RFC 9113 §8.2.2) and `onResponse` hooks run once.
 */
import { connect } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import Fastify from 'fastify'
import restwell from 'restwell'
import { test } from 'tap'
import { type Http2Answer, http2Request } from '../helpers/http2.js'

const CONNECTION_SPECIFIC = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade']

test('HTTP/2: the conventions answer as on HTTP/1.1', async (t) => {
  const app = Fastify({ http2: true })
  await app.register(restwell, { rateLimit: { max: 100 } })
  const book = { id: 1, title: 'Dune', version: 1 }
  const config = { auth: false, conditional: { etagField: 'version' } }
  app.get('/v1/books/:id', { config }, async () => book)
  // A write is checked against the stored state (`getValidator`), read before the handler.
  const write = { ...config, conditional: { getValidator: () => ({ etag: String(book.version) }) } }
  app.patch('/v1/books/:id', { config: write }, async (request) => {
    Object.assign(book, request.body, { version: book.version + 1 })
    return book
  })
  const shelf = Array.from({ length: 200 }, (_, id) => ({ id, title: `Book ${id}`, version: 1 }))
  app.get('/v1/shelf', { config: { auth: false } }, async () => shelf)
  app.get('/v1/reports', { config: { auth: false } }, async () => {
    throw new Error('db down: password=hunter2')
  })
  const finished: string[] = []
  app.addHook('onResponse', async (request, reply) => {
    finished.push(`${request.method} ${reply.statusCode}`)
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const session = connect(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`)
  // The session goes first: app.close() waits for open HTTP/2 sessions (Fastify's
  // http2SessionTimeout, 72 s).
  t.teardown(() => {
    session.destroy()
    return app.close()
  })
  const answers: Http2Answer[] = []
  const ask = async (headers: Record<string, string>, body?: string) => {
    const answer = await http2Request(session, headers, body)
    answers.push(answer)
    return answer
  }

  const get = await ask({ ':path': '/v1/books/1' })
  t.equal(get.status, 200)
  t.equal(get.headers.etag, '"1"')
  t.equal(get.headers['x-ratelimit-remaining'], '99')
  t.ok(get.headers['x-request-id'])
  const unprefixed = await ask({ ':path': '/books/1' })
  t.equal(unprefixed.status, 200, 'routed to the default version')
  t.equal(unprefixed.headers['api-version'], '1')
  t.equal(unprefixed.headers['x-ratelimit-remaining'], '98', 'counted once')
  t.equal((await ask({ ':path': '/v1/books/1', 'if-none-match': '"1"' })).status, 304)
  const json = 'application/merge-patch+json'
  const patch = await ask(
    { ':path': '/v1/books/1', ':method': 'PATCH', 'content-type': json, 'if-match': '"1"' },
    '{"title":"Dune!"}',
  )
  t.equal(patch.status, 200)
  t.equal(JSON.parse(patch.body).version, 2)
  const stale = await ask(
    { ':path': '/v1/books/1', ':method': 'PATCH', 'content-type': json, 'if-match': '"1"' },
    '{"title":"Dune?"}',
  )
  t.equal(stale.status, 412)
  const override = await ask(
    {
      ':path': '/v1/books/1?_method=PATCH',
      ':method': 'POST',
      'content-type': json,
      'if-match': '"2"',
    },
    '{"title":"Dune?"}',
  )
  t.equal(override.status, 200, 'POST ?_method=PATCH ran the PATCH route')
  t.same(JSON.parse(override.body), { id: 1, title: 'Dune?', version: 3 })
  const notAllowed = await ask({ ':path': '/v1/books/1', ':method': 'DELETE' })
  t.equal(notAllowed.status, 405)
  t.equal(notAllowed.headers.allow, 'GET, HEAD, PATCH, OPTIONS')
  t.equal(JSON.parse(notAllowed.body).error.code, 'METHOD_NOT_ALLOWED')
  const options = await ask({ ':path': '/v1/books/1', ':method': 'OPTIONS' })
  t.equal(options.status, 200)
  t.equal(options.headers.allow, 'GET, HEAD, PATCH, OPTIONS')
  const preflight = await ask({
    ':path': '/v1/books/1',
    ':method': 'OPTIONS',
    origin: 'https://app.example',
    'access-control-request-method': 'PATCH',
  })
  t.equal(preflight.status, 200)
  t.match(preflight.headers['access-control-allow-methods'], /PATCH/)
  const gzipped = await ask({ ':path': '/v1/shelf', 'accept-encoding': 'gzip' })
  t.equal(gzipped.headers['content-encoding'], 'gzip')
  t.same(JSON.parse(gunzipSync(gzipped.bytes).toString()), shelf)
  t.match(gzipped.headers.etag, /-gzip"$/, 'the ETag names the coding')
  const range = await ask({ ':path': '/v1/books/1', range: 'bytes=0-5' })
  t.equal(range.status, 206)
  t.equal(range.body, '{"id":')
  t.equal(range.headers['content-range'], `bytes 0-5/${JSON.stringify(book).length}`)
  const failed = await ask({ ':path': '/v1/reports' })
  t.equal(failed.status, 500)
  t.notMatch(failed.body, /hunter2/, 'the message is masked')
  t.equal(JSON.parse(failed.body).error.requestId, failed.headers['x-request-id'])
  const missing = await ask({ ':path': '/v1/nothing' })
  t.equal(missing.status, 404)
  t.equal(JSON.parse(missing.body).error.code, 'NOT_FOUND')

  for (const answer of answers) {
    for (const name of CONNECTION_SPECIFIC) t.notOk(name in answer.headers, `no ${name} header`)
  }
  session.close()
  await app.close()
  t.same(
    finished,
    ['GET 200', 'GET 200', 'GET 304', 'PATCH 200', 'PATCH 412', 'PATCH 200', 'DELETE 405'].concat([
      'OPTIONS 200',
      'OPTIONS 200',
      'GET 200',
      'GET 206',
      'GET 500',
      'GET 404',
    ]),
    'onResponse ran once per request, rerouted ones included',
  )
})

test('HTTP/2: https.required redirects to the host the client named in :authority', async (t) => {
  const app = Fastify({ http2: true })
  await app.register(restwell, { auth: { verify: () => null, https: { required: true } } })
  app.get('/v1/books/:id', async () => ({ id: 1 }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const authority = `127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const session = connect(`http://${authority}`)
  t.teardown(() => {
    session.destroy()
    return app.close()
  })
  // node:http2's client sends `:authority` and no `Host`, as every HTTP/2 client may.
  const get = await http2Request(session, { ':path': '/books/1?x=1' })
  t.equal(get.status, 308)
  t.equal(get.headers.location, `https://${authority}/books/1?x=1`, 'the URL the client sent')
  const post = await http2Request(session, { ':path': '/v1/books/1', ':method': 'POST' })
  t.equal(post.status, 403, 'an unsafe method is refused, not redirected')
})
