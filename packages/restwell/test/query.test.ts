/** QUERY (RFC 10008) through every convention of the umbrella. */
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import { conditionalQueryRequests } from '../../../test/helpers/hono-query.js'
import restwell, { type RestwellOptions } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const BOOKS = Array.from({ length: 30 }, (_, i) => ({
  id: i + 1,
  title: `Book ${i + 1} ${'of a long and compressible shelf '.repeat(3)}`,
  genre: i % 2 === 0 ? 'sf' : 'crime',
  version: 1,
}))

const SEARCH = {
  type: 'object',
  properties: { genre: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } },
  additionalProperties: false,
}

type Search = { genre?: string; fields?: string[] }

function search(body: unknown): unknown[] {
  const { genre, fields } = (body ?? {}) as Search
  return BOOKS.filter((book) => genre === undefined || book.genre === genre).map((book) =>
    fields === undefined
      ? book
      : Object.fromEntries(Object.entries(book).filter(([key]) => fields.includes(key))),
  )
}

async function build(options: RestwellOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, {
    rateLimit: false,
    auth: { verify: (token: string) => (token === 'good' ? { sub: 'u' } : null) },
    batch: {},
    compress: { threshold: 64 },
    cors: { origin: ['https://app.example'] },
    ...options,
  })
  app.route({
    method: 'QUERY',
    url: '/books',
    schema: { body: SEARCH },
    config: { auth: false },
    handler: async (request) => ({ data: search(request.body) }),
  })
  app.get('/books', { config: { auth: false } }, async () => ({ data: BOOKS }))
  app.get('/authors', { config: { auth: false } }, async () => ({ data: [] }))
  app.route({
    method: 'QUERY',
    url: '/loans',
    handler: async (request) => ({ data: search(request.body) }),
  })
  app.route({
    method: 'QUERY',
    url: '/shelves',
    config: { auth: false, pagination: true },
    handler: async (request, reply) => {
      const { genre } = (request.body ?? {}) as Search
      if (genre !== undefined) reply.header('location', `/shelves/by-genre/${genre}`)
      const all = search(request.body)
      const { page, limit } = request.pagination as { page: number; limit: number }
      return reply.paginate(all.slice((page - 1) * limit, page * limit), { total: all.length })
    },
  })
  return app
}

const query = (
  app: FastifyInstance,
  url: string,
  payload: unknown,
  headers: Record<string, string> = {},
) => app.inject({ method: 'QUERY', url, payload: payload as object, headers })

interface Wire {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** A QUERY over a real socket, its bytes as they came. */
function send(port: number, path: string, body: string, headers: Record<string, string>) {
  return new Promise<Wire>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'QUERY', path, headers: { ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

test('over the wire: a QUERY answer is compressed, tagged and revalidated by its content', async (t) => {
  const app = await build()
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const json = { 'content-type': 'application/json', 'accept-encoding': 'gzip' }
  const sf = JSON.stringify({ genre: 'sf' })
  const crime = JSON.stringify({ genre: 'crime' })
  const a = await send(port, '/books', sf, json)
  t.equal(a.status, 200)
  t.equal(a.headers['content-encoding'], 'gzip')
  t.equal(a.headers['cache-control'], 'no-cache', 'cacheable, as a GET')
  t.match(a.headers.vary, /Accept-Encoding/)
  t.match(a.headers.etag, /^"[^"]+;q\.[^"]+-gzip"$/)
  t.same(JSON.parse(gunzipSync(a.body).toString()), { data: search({ genre: 'sf' }) })
  // The compressed-body cache answers the same query again, and never another one.
  const again = await send(port, '/books', sf, json)
  t.equal(again.headers.etag, a.headers.etag)
  t.same(again.body, a.body)
  const b = await send(port, '/books', crime, json)
  t.not(b.headers.etag, a.headers.etag)
  t.same(JSON.parse(gunzipSync(b.body).toString()), { data: search({ genre: 'crime' }) })
  const revalidated = await send(port, '/books', sf, {
    ...json,
    'if-none-match': `${a.headers.etag}`,
  })
  t.equal(revalidated.status, 304)
  t.equal(revalidated.body.length, 0)
  const other = await send(port, '/books', crime, { ...json, 'if-none-match': `${a.headers.etag}` })
  t.equal(other.status, 200, "query A's tag sent with query B")
})

test('the same items with other fields: other bytes, other tags, other cached bodies', async (t) => {
  const app = await build()
  const headers = { 'accept-encoding': 'gzip' }
  const all = await query(app, '/books', {}, headers)
  const ids = await query(app, '/books', { fields: ['id', 'version'] }, headers)
  t.not(ids.headers.etag, all.headers.etag)
  t.not(ids.rawPayload.length, all.rawPayload.length)
  const plain = await query(app, '/books', { fields: ['id', 'version'] })
  t.same(JSON.parse(gunzipSync(ids.rawPayload).toString()), plain.json())
})

test('Allow, 405 and an automatic OPTIONS with Accept-Query', async (t) => {
  const app = await build()
  // Auth hides the methods of a path from who is not signed in (hideRoutes).
  const bearer = { authorization: 'Bearer good' }
  const options = await app.inject({ method: 'OPTIONS', url: '/books', headers: bearer })
  t.equal(options.statusCode, 200)
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS, QUERY')
  t.equal(options.headers['accept-query'], 'application/json')
  const notAllowed = await query(app, '/authors', {}, bearer)
  t.equal(notAllowed.statusCode, 405)
  t.equal(notAllowed.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(notAllowed.headers['accept-query'], undefined)
  const put = await app.inject({ method: 'PUT', url: '/books', payload: {}, headers: bearer })
  t.equal(put.statusCode, 405)
  t.equal(put.headers.allow, 'GET, HEAD, OPTIONS, QUERY')
  t.equal(put.headers['accept-query'], 'application/json')
})

test('request content: 400 without Content-Type, 400 malformed, 415 with Accept-Query, 422', async (t) => {
  const app = await build()
  const bare = await app.inject({ method: 'QUERY', url: '/books' })
  t.equal(bare.statusCode, 400)
  t.equal(bare.json().error.code, 'CONTENT_TYPE_REQUIRED')
  const malformed = await query(app, '/books', '{', { 'content-type': 'application/json' })
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().error.code, 'MALFORMED_JSON')
  const xml = await query(app, '/books', '<q/>', { 'content-type': 'application/xml' })
  t.equal(xml.statusCode, 415)
  t.equal(xml.headers['accept-query'], 'application/json')
  const invalid = await query(app, '/books', { genre: 3 })
  t.equal(invalid.statusCode, 422, 'strictJson: a number is no string')
  t.equal(invalid.json().error.details[0].field, 'body/genre')
  t.equal(invalid.headers['cache-control'], 'no-store')
})

test('negotiation as for GET: XML, 406 and Vary: Accept', async (t) => {
  const app = await build()
  const xml = await query(app, '/books', { genre: 'sf' }, { accept: 'application/xml' })
  t.equal(xml.statusCode, 200)
  t.match(xml.headers['content-type'], /^application\/xml/)
  t.match(xml.headers.vary, /Accept/)
  const json = await query(app, '/books', { genre: 'sf' })
  t.not(xml.headers.etag, json.headers.etag, 'each representation its tag')
  const refused = await query(app, '/books', { genre: 'sf' }, { accept: 'text/csv' })
  t.equal(refused.statusCode, 406)
})

test('POST with X-HTTP-Method-Override: QUERY is served by the QUERY route, with its ETag and 304', async (t) => {
  const app = await build()
  const direct = await query(app, '/books', { genre: 'sf' })
  const overridden = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'x-http-method-override': 'QUERY' },
    payload: { genre: 'sf' },
  })
  t.equal(overridden.statusCode, 200)
  t.same(overridden.json(), direct.json())
  t.equal(overridden.headers.etag, direct.headers.etag)
  const notModified = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'x-http-method-override': 'QUERY', 'if-none-match': direct.headers.etag as string },
    payload: { genre: 'sf' },
  })
  t.equal(notModified.statusCode, 304)
  const other = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'x-http-method-override': 'QUERY', 'if-none-match': direct.headers.etag as string },
    payload: { genre: 'crime' },
  })
  t.equal(other.statusCode, 200)
})

test('CORS: a preflight for QUERY is allowed QUERY only where the path has a QUERY route', async (t) => {
  const app = await build()
  const preflight = (url: string, method: string) =>
    app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: 'https://app.example', 'access-control-request-method': method },
    })
  const books = await preflight('/books', 'QUERY')
  t.equal(books.statusCode, 200)
  t.equal(
    books.headers['access-control-allow-methods'],
    'GET, HEAD, POST, PUT, PATCH, DELETE, QUERY',
  )
  const authors = await preflight('/authors', 'QUERY')
  t.equal(authors.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE')
  const get = await preflight('/books', 'GET')
  t.notMatch(get.headers['access-control-allow-methods'], /QUERY/, 'asked for GET: not listed')
  const actual = await query(app, '/books', {}, { origin: 'https://app.example' })
  t.equal(actual.headers['access-control-allow-origin'], 'https://app.example')
  t.match(actual.headers['access-control-expose-headers'], /Accept-Query/)
})

test('batch: a QUERY operation carries its body; the same QUERY again is a 208', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'POST',
    url: '/batch',
    headers: { authorization: 'Bearer good' },
    payload: {
      requests: [
        { id: 'sf', method: 'QUERY', url: '/books', body: { genre: 'sf' } },
        { id: 'crime', method: 'QUERY', url: '/books', body: { genre: 'crime' } },
        { id: 'sf-again', method: 'QUERY', url: '/books', body: { genre: 'sf' } },
      ],
    },
  })
  t.equal(res.statusCode, 207)
  const [sf, crime, again] = res.json().responses
  t.equal(sf.status, 200)
  t.same(sf.body, { data: search({ genre: 'sf' }) })
  t.equal(crime.status, 200)
  t.same(crime.body, { data: search({ genre: 'crime' }) })
  t.equal(again.status, 208)
  t.equal(again.sameAs, 'sf')
})

test('auth, rate limits and errors as for any route', async (t) => {
  const app = await build({ rateLimit: { max: 2, timeWindow: 60_000 } })
  const anonymous = await query(app, '/loans', {})
  t.equal(anonymous.statusCode, 401)
  t.match(anonymous.headers['www-authenticate'], /^Bearer/)
  const known = await query(app, '/loans', {}, { authorization: 'Bearer good' })
  t.equal(known.statusCode, 200)
  t.match(known.headers['cache-control'], /private/, 'an authenticated answer stays private')
  const limited = await query(app, '/loans', {}, { authorization: 'Bearer good' })
  t.equal(limited.statusCode, 429)
})

test('redirects keep QUERY: 308 to https, 308 from a moved path', async (t) => {
  const secure = await build({
    auth: { verify: () => ({ sub: 'u' }), https: { required: true } },
  })
  const insecure = await query(secure, '/books', {}, { host: 'api.example' })
  t.equal(insecure.statusCode, 308, 'QUERY is safe: redirected, with the method kept')
  t.equal(insecure.headers.location, 'https://api.example/books')
  const moved = await build({ versioning: { moved: { '/v0/books': '/v2/books' } } })
  moved.route({
    method: 'QUERY',
    url: '/v2/books',
    config: { auth: false },
    handler: async () => ({ data: [] }),
  })
  const res = await query(moved, '/v0/books', {})
  t.equal(res.statusCode, 308, 'not 301: a 301 may be replayed as GET')
  t.equal(res.headers.location, '/v2/books')
  const get = await moved.inject({ method: 'GET', url: '/v0/books' })
  t.equal(get.statusCode, 301)
})

test('pagination: links under the Location of a QUERY answer, else the QUERY URL', async (t) => {
  const app = await build()
  const located = await query(app, '/shelves?limit=5', { genre: 'sf' })
  t.equal(located.statusCode, 200)
  t.equal(located.headers.location, '/shelves/by-genre/sf')
  t.match(located.json().links, {
    self: '/shelves/by-genre/sf?page=1&limit=5',
    next: '/shelves/by-genre/sf?page=2&limit=5',
  })
  t.match(located.headers.link, /<\/shelves\/by-genre\/sf\?page=2&limit=5>; rel="next"/)
  const unlocated = await query(app, '/shelves?limit=5', {})
  t.match(unlocated.json().links, {
    self: '/shelves?page=1&limit=5',
    next: '/shelves?page=2&limit=5',
  })
  const second = await query(app, '/shelves?page=2&limit=5', { genre: 'sf' })
  t.not(second.headers.etag, located.headers.etag)
})

// Hono's etag test "Should handle conditional QUERY requests" (honojs/hono,
// src/middleware/etag/index.test.ts), against the umbrella over a real socket: fetch sends a
// string body as text/plain, which the route takes.
test('Should handle conditional QUERY requests (umbrella)', async (t) => {
  const app = await build()
  app.route({
    method: 'QUERY',
    url: '/etag/query',
    config: { auth: false, negotiation: { consumes: ['text/plain'] } },
    handler: async (_request, reply) => reply.type('text/plain').send('Hono is great'),
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  await conditionalQueryRequests(t, port)
})

test('a QUERY names its GET-able equivalent (Location) and its result (Content-Location); a 304 keeps both', async (t) => {
  const app = await build()
  app.route({
    method: 'QUERY',
    url: '/searches',
    config: { auth: false },
    handler: async (request, reply) => {
      const { genre } = (request.body ?? {}) as Search
      reply
        .header('location', `/books?genre=${genre}`)
        .header('content-location', `/searches/results/${genre}`)
      return { data: search(request.body) }
    },
  })
  app.get('/searches/results/:genre', { config: { auth: false } }, async (request) => ({
    data: search({ genre: (request.params as { genre: string }).genre }),
  }))
  const res = await query(app, '/searches', { genre: 'sf' }, { origin: 'https://app.example' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers.location, '/books?genre=sf')
  t.equal(res.headers['content-location'], '/searches/results/sf')
  t.match(res.headers['access-control-expose-headers'], /Content-Location/)
  const notModified = await query(
    app,
    '/searches',
    { genre: 'sf' },
    {
      'if-none-match': res.headers.etag as string,
    },
  )
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers.location, '/books?genre=sf')
  t.equal(notModified.headers['content-location'], '/searches/results/sf', 'RFC 9110 §15.4.5')
  const result = await app.inject(res.headers['content-location'] as string)
  t.same(result.json(), res.json(), 'the result is GET-able where Content-Location says')
})
