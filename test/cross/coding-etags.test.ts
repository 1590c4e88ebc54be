/** Cross-plugin: each content coding gets its own ETag (RFC 9110 §8.8.3), over a socket. */
import { request as httpRequest } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import restwell from 'restwell'
import { test } from 'tap'

const BOOKS = Array.from({ length: 60 }, (_, i) => ({ id: i, title: `Book number ${i}` }))

/** The umbrella: conditional's steps around its compression step, in the pipeline's order. */
async function listen(t: {
  teardown(fn: () => unknown): void
}): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify()
  await app.register(restwell, { rateLimit: false, cors: false, negotiation: false })
  app.get('/books', async () => BOOKS)
  app.get('/versioned', async (_req, reply) => reply.etag('v9').send(BOOKS))
  app.get('/negotiated', async (_req, reply) => reply.header('vary', 'accept').send(BOOKS))
  app.get('/no-compress', { compress: false }, async () => BOOKS)
  app.get('/small', async () => ({ id: 1 }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const address = app.server.address() as { port: number }
  return { app, url: `http://127.0.0.1:${address.port}` }
}

async function get(url: string, headers: Record<string, string>, method = 'GET') {
  const res = await fetch(url, { method, headers })
  const body = Buffer.from(await res.arrayBuffer())
  return { status: res.status, headers: res.headers, body }
}

test('gzip and identity bodies get different ETags; each answers its own 304', async (t) => {
  const { url } = await listen(t)
  const identity = await get(`${url}/books`, { 'accept-encoding': 'identity' })
  t.equal(identity.status, 200)
  t.equal(identity.headers.get('content-encoding'), null)
  t.equal(identity.headers.get('vary'), 'Accept-Encoding', 'identity 200 varies on the coding')
  t.equal(identity.headers.get('accept-ranges'), 'bytes')
  const etag = identity.headers.get('etag') as string
  t.match(etag, /^"[A-Za-z0-9_-]{27}"$/)

  // fetch decodes gzip itself; the ETag header is what went over the wire
  const gzip = await get(`${url}/books`, { 'accept-encoding': 'gzip' })
  t.equal(gzip.status, 200)
  t.equal(gzip.headers.get('content-encoding'), 'gzip')
  t.equal(gzip.headers.get('etag'), `${etag.slice(0, -1)}-gzip"`)
  t.equal(gzip.headers.get('vary'), 'Accept-Encoding')
  t.equal(gzip.headers.get('accept-ranges'), null, 'ranges are offered on identity bodies only')
  t.same(JSON.parse(gzip.body.toString()), BOOKS)

  const br = await get(`${url}/books`, { 'accept-encoding': 'br' })
  t.equal(br.headers.get('etag'), `${etag.slice(0, -1)}-br"`)

  const gz304 = await get(`${url}/books`, {
    'accept-encoding': 'gzip',
    'if-none-match': `${etag.slice(0, -1)}-gzip"`,
  })
  t.equal(gz304.status, 304)
  t.equal(gz304.body.length, 0)
  t.equal(gz304.headers.get('etag'), `${etag.slice(0, -1)}-gzip"`, 'the 304 names the gzip copy')
  t.equal(gz304.headers.get('vary'), 'Accept-Encoding')
  t.equal(gz304.headers.get('content-encoding'), null)
  t.equal(gz304.headers.get('content-length'), null)
  t.equal(gz304.headers.get('content-type'), null)

  const id304 = await get(`${url}/books`, { 'accept-encoding': 'identity', 'if-none-match': etag })
  t.equal(id304.status, 304)
  t.equal(id304.headers.get('etag'), etag)
  t.equal(id304.headers.get('vary'), 'Accept-Encoding')

  const plain304 = await get(`${url}/books`, { 'accept-encoding': 'gzip', 'if-none-match': etag })
  t.equal(plain304.status, 304, 'a client holding the identity copy is not sent the gzip one')
  t.equal(plain304.headers.get('etag'), etag)
})

/** A GET over a socket with exactly these headers (fetch would add its own Accept-Encoding). */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      httpRequest(url, { headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode as number,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        )
      })
        .on('error', reject)
        .end()
    },
  )
}

test('If-None-Match names an encoded copy: 304 only when the request accepts that coding', async (t) => {
  const { url } = await listen(t)
  const identity = await rawGet(`${url}/books`, {})
  const etag = identity.headers.etag as string
  const gzipTag = `${etag.slice(0, -1)}-gzip"`
  // A shared cache holding the gzip copy revalidates for a client that sent no Accept-Encoding
  // (or refused gzip): a 304 naming the gzip copy would have the cache send it gzip bytes.
  for (const headers of [
    {} as Record<string, string>,
    { 'accept-encoding': 'identity' },
    { 'accept-encoding': 'gzip;q=0, br' },
    { 'accept-encoding': '*, gzip;q=0' },
  ]) {
    const res = await rawGet(`${url}/books`, { ...headers, 'if-none-match': gzipTag })
    t.equal(res.status, 200, `a full answer for ${JSON.stringify(headers)}`)
    t.ok(res.body.length > 0)
  }
  const plain = await rawGet(`${url}/books`, { 'if-none-match': gzipTag })
  t.equal(plain.headers.etag, etag, 'the full answer names the identity bytes it sends')
  t.equal(plain.headers['content-encoding'], undefined)
  // Both copies held (a cache sends every tag it stores): the one the request can take.
  const both = await rawGet(`${url}/books`, { 'if-none-match': `${gzipTag}, ${etag}` })
  t.equal(both.status, 304)
  t.equal(both.headers.etag, etag)
  // A request that takes gzip, by name, by alias or through `*`: the cache may send its copy.
  for (const coding of ['gzip', 'x-gzip', 'GZIP;q=0.5', 'br, *;q=0.1']) {
    const res = await rawGet(`${url}/books`, {
      'accept-encoding': coding,
      'if-none-match': gzipTag,
    })
    t.equal(res.status, 304, `304 with Accept-Encoding: ${coding}`)
    t.equal(res.headers.etag, gzipTag)
  }
})

test('HEAD with gzip: the headers of GET, 304 on match, no body', async (t) => {
  const { url } = await listen(t)
  const getRes = await get(`${url}/books`, { 'accept-encoding': 'gzip' })
  const head = await get(`${url}/books`, { 'accept-encoding': 'gzip' }, 'HEAD')
  t.equal(head.status, 200)
  t.equal(head.body.length, 0)
  t.equal(head.headers.get('etag'), getRes.headers.get('etag'), 'HEAD = GET, coding included')
  t.equal(head.headers.get('content-encoding'), 'gzip')
  t.equal(head.headers.get('content-length'), getRes.headers.get('content-length'))
  const head304 = await get(
    `${url}/books`,
    { 'accept-encoding': 'gzip', 'if-none-match': getRes.headers.get('etag') as string },
    'HEAD',
  )
  t.equal(head304.status, 304)
  t.equal(head304.headers.get('content-length'), null)
  t.equal(head304.headers.get('vary'), 'Accept-Encoding')
  t.equal(head304.headers.get('etag'), getRes.headers.get('etag'))
})

test('handler-given ETag gets the coding suffix; Vary keeps the route’s own tokens', async (t) => {
  const { url } = await listen(t)
  const gz = await get(`${url}/versioned`, { 'accept-encoding': 'gzip' })
  t.equal(gz.headers.get('etag'), '"v9-gzip"')
  const id = await get(`${url}/versioned`, { 'accept-encoding': 'identity' })
  t.equal(id.headers.get('etag'), '"v9"')
  const nm = await get(`${url}/versioned`, {
    'accept-encoding': 'gzip',
    'if-none-match': '"v9-gzip"',
  })
  t.equal(nm.status, 304)
  t.equal(nm.headers.get('etag'), '"v9-gzip"')
  const neg = await get(`${url}/negotiated`, { 'accept-encoding': 'gzip' })
  t.equal(neg.headers.get('vary'), 'Accept, Accept-Encoding')
  const neg304 = await get(`${url}/negotiated`, {
    'accept-encoding': 'gzip',
    'if-none-match': neg.headers.get('etag') as string,
  })
  t.equal(neg304.status, 304)
  t.equal(neg304.headers.get('vary'), 'Accept, Accept-Encoding')
})

test('Range requests are answered on the identity bytes, never compressed', async (t) => {
  const { url } = await listen(t)
  const full = await get(`${url}/books`, { 'accept-encoding': 'identity' })
  const res = await get(`${url}/books`, { 'accept-encoding': 'gzip', range: 'bytes=0-9' })
  t.equal(res.status, 206)
  t.equal(res.headers.get('content-encoding'), null)
  t.equal(res.body.toString(), full.body.subarray(0, 10).toString())
  t.equal(res.headers.get('content-range'), `bytes 0-9/${full.body.length}`)
  t.equal(res.headers.get('etag'), full.headers.get('etag'))
})

test('compress: false and bodies under the threshold: no suffix, no Vary', async (t) => {
  const { url } = await listen(t)
  const off = await get(`${url}/no-compress`, { 'accept-encoding': 'gzip' })
  t.equal(off.headers.get('content-encoding'), null)
  t.equal(off.headers.get('vary'), null, 'no coding to vary on')
  t.notMatch(off.headers.get('etag'), /-gzip/)
  const small = await get(`${url}/small`, { 'accept-encoding': 'gzip' })
  t.equal(small.headers.get('content-encoding'), null)
  t.notMatch(small.headers.get('etag'), /-gzip/)
  t.equal(small.headers.get('vary'), 'Accept-Encoding')
})

const DATE = 'Mon, 01 Jan 2024 00:00:00 GMT'

test('with Last-Modified too: the 304 to the hashed tag of a gzip copy repeats that tag', async (t) => {
  const app = Fastify()
  await app.register(restwell, { rateLimit: false, compress: { threshold: 1 } })
  const big = { data: Array.from({ length: 50 }, (_, id) => ({ id, title: `Book ${id}` })) }
  app.get('/dated', async (_req, reply) => {
    reply.lastModified(DATE)
    return big
  })
  const gz = await app.inject({ url: '/dated', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gz.headers['content-encoding'], 'gzip')
  const etag = gz.headers.etag as string
  t.match(etag, /-gzip"$/)
  const again = await app.inject({
    url: '/dated',
    headers: { 'accept-encoding': 'gzip', 'if-none-match': etag, 'if-modified-since': DATE },
  })
  t.equal(again.statusCode, 304)
  t.equal(again.headers.etag, etag)
})
