/**
 * Cross-plugin: the whole `Vary` and `Cache-Control` of a few routes under the umbrella. `Vary`
 * names only what the route's answer depends on, in one spelling, the same on the 200 and its
 * 304 (RFC 9110 §12.5.5, §15.4.5; RFC 9111 §4.1); `private` only where credentials matter.
 */
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import restwell, { type RestwellOptions } from 'restwell'
import tap, { type Test, test } from 'tap'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const ONE = { produces: ['application/json' as const], languages: ['en'] }

async function build(options: RestwellOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, {
    rateLimit: false,
    auth: { verify: async (token) => (token === 'alice' ? { id: 'alice' } : null) },
    negotiation: { languages: ['en', 'de'] },
    ...options,
  })
  // Public, one representation, one language.
  app.get('/genres', { config: { auth: false, negotiation: ONE } }, async () => ['sf', 'crime'])
  // Authenticated (auth's default), one representation.
  app.get('/profiles', { config: { negotiation: ONE } }, async (request) => [request.principal])
  // Public, negotiated: five media types, two languages.
  app.get('/books', { config: { auth: false } }, async () => [{ id: 1, title: 'Dune' }])
  // Public, an error.
  app.get('/crashes', { config: { auth: false } }, async () => {
    throw new Error('kaput')
  })
  // Public, never compressed.
  app.get('/covers', { config: { auth: false, negotiation: ONE }, compress: false }, async () => [])
  return app
}

/** The answer and its 304, which must agree on both headers. */
async function withRevalidation(
  t: Test,
  app: FastifyInstance,
  url: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const ok = await app.inject({ url, headers })
  t.equal(ok.statusCode, 200, url)
  const same = await app.inject({
    url,
    headers: { ...headers, 'if-none-match': ok.headers.etag as string },
  })
  t.equal(same.statusCode, 304, `${url}: revalidated`)
  t.equal(same.headers.vary, ok.headers.vary, `${url}: the 304 varies as the 200`)
  t.equal(same.headers['cache-control'], ok.headers['cache-control'], `${url}: same policy`)
  return ok
}

test('a public GET with one representation varies only on Accept-Encoding, no-cache', async (t) => {
  const app = await build()
  const ok = await withRevalidation(t, app, '/genres')
  t.equal(ok.headers.vary, 'Accept-Encoding')
  t.equal(ok.headers['cache-control'], 'no-cache')
  t.equal(ok.headers['access-control-allow-origin'], '*', "'*' goes to every request: no Origin")
  const cookie = await withRevalidation(t, app, '/genres', { cookie: 'session=1' })
  t.equal(cookie.headers['cache-control'], 'private, no-cache', 'credentials make it private')
  t.equal(cookie.headers.vary, 'Accept-Encoding')
  const uncompressed = await withRevalidation(t, app, '/covers')
  t.equal(uncompressed.headers.vary, undefined, 'a route never compressed varies on nothing')
})

test('an authenticated GET is private and varies on Authorization, its 304 too', async (t) => {
  const app = await build()
  const ok = await withRevalidation(t, app, '/profiles', { authorization: 'Bearer alice' })
  t.equal(ok.headers.vary, 'Accept-Encoding, Authorization')
  t.equal(ok.headers['cache-control'], 'private, no-cache')
  const refused = await app.inject('/profiles')
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['cache-control'], 'no-store')
  t.equal(refused.headers.vary, 'Accept', 'the error body was negotiated by Accept')
})

test('a negotiated GET varies on Accept and Accept-Language, its 304 too', async (t) => {
  const app = await build()
  for (const accept of ['application/json', 'application/xml']) {
    const ok = await withRevalidation(t, app, '/books', { accept, 'accept-language': 'de' })
    t.equal(ok.headers.vary, 'Accept, Accept-Language, Accept-Encoding', accept)
    t.equal(ok.headers['cache-control'], 'no-cache')
    t.equal(ok.headers['content-language'], 'de')
  }
})

test('an error varies on what chose its form, and is never stored', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/crashes', headers: { accept: 'application/xml' } })
  t.equal(res.statusCode, 500)
  t.match(res.headers['content-type'], /xml/)
  t.equal(res.headers.vary, 'Accept')
  t.equal(res.headers['cache-control'], 'no-store')
})

test('Origin is in Vary only when the CORS answer depends on it', async (t) => {
  const listed = await build({ cors: { origin: ['https://a.test'] } })
  const origins: Record<string, string>[] = [
    {},
    { origin: 'https://a.test' },
    { origin: 'https://b.test' },
  ]
  for (const headers of origins) {
    const ok = await withRevalidation(t, listed, '/genres', headers)
    t.equal(ok.headers.vary, 'Origin, Accept-Encoding', JSON.stringify(headers))
  }
  const reflected = await build({ cors: { origin: true } })
  const ok = await reflected.inject({ url: '/genres', headers: { origin: 'https://c.test' } })
  t.equal(ok.headers['access-control-allow-origin'], 'https://c.test')
  t.equal(ok.headers.vary, 'Origin, Accept-Encoding')
  const any = await build()
  const cors = await any.inject({ url: '/genres', headers: { origin: 'https://c.test' } })
  t.equal(cors.headers['access-control-allow-origin'], '*')
  t.equal(cors.headers.vary, 'Accept-Encoding', "'*' for every origin: nothing varies")
})
