/** Cross-plugin: headers an error must not carry (API-Version, a charset, Accept-Patch). */
import Fastify, { type FastifyInstance } from 'fastify'
import restwell from 'restwell'
import tap, { test } from 'tap'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const TOKEN = { authorization: 'Bearer ok' }

async function build(): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, {
    versioning: { versions: [1] },
    auth: { verify: (token: string) => (token === 'ok' ? { scopes: [] } : null), hideRoutes: true },
    errors: { format: 'problem' },
  })
  app.get('/v1/notes', async () => ({ text: 'hashed into its ETag' }))
  app.get('/v1/books/:id', async () => ({ id: 1 }))
  app.patch('/v1/books/:id', async () => ({ id: 1 }))
  return app
}

/** The names of a response's headers, without those whose presence says nothing of the path. */
const headerNames = (headers: Record<string, unknown>): string[] =>
  Object.keys(headers)
    .filter((name) => !['date', 'connection', 'content-length'].includes(name))
    .sort()

test('API-Version on a versioned GET, not on its 416 nor on the 412 of its hashed ETag', async (t) => {
  const app = await build()
  const ok = await app.inject({ url: '/v1/notes', headers: TOKEN })
  t.same([ok.statusCode, ok.headers['api-version']], [200, '1'])
  const range = await app.inject({ url: '/v1/notes', headers: { ...TOKEN, range: 'bytes=900-' } })
  t.same([range.statusCode, range.headers['api-version']], [416, undefined])
  const stale = await app.inject({ url: '/v1/notes', headers: { ...TOKEN, 'if-match': '"old"' } })
  t.same([stale.statusCode, stale.headers['api-version']], [412, undefined])
})

test('problem+json and problem+xml go without a charset parameter (RFC 9457 §6)', async (t) => {
  const app = await build()
  const json = await app.inject({ url: '/v1/nothing', headers: TOKEN })
  t.same([json.statusCode, json.headers['content-type']], [404, 'application/problem+json'])
  const xml = await app.inject({
    url: '/v1/nothing',
    headers: { ...TOKEN, accept: 'application/xml' },
  })
  t.same([xml.statusCode, xml.headers['content-type']], [404, 'application/problem+xml'])
  t.match(xml.body, /^<\?xml version="1.0" encoding="UTF-8"\?>/, 'the XML declaration names it')
})

test('hideRoutes: an anonymous OPTIONS gets the same 401 on a patch path and on no path', async (t) => {
  const app = await build()
  const existing = await app.inject({ method: 'OPTIONS', url: '/v1/books/1' })
  const unknown = await app.inject({ method: 'OPTIONS', url: '/v1/nothing/1' })
  t.same([existing.statusCode, unknown.statusCode], [401, 401])
  t.equal(existing.headers['accept-patch'], undefined)
  t.same(headerNames(existing.headers), headerNames(unknown.headers))
  t.equal(existing.headers.vary, unknown.headers.vary)
  const allowed = await app.inject({ method: 'OPTIONS', url: '/v1/books/1', headers: TOKEN })
  t.same(
    [allowed.statusCode, allowed.headers['accept-patch']],
    [200, 'application/json-patch+json, application/merge-patch+json'],
    'with a token, OPTIONS says it',
  )
})
