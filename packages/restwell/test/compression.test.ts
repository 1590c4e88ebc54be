/** Compression under the umbrella: after conditional's ETag and 304, in the pipeline's order. */
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import tap, { test } from 'tap'
import restwell from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

function comparable(res: LightMyRequestResponse) {
  const { date: _date, 'x-request-id': _id, ...headers } = res.headers
  return { status: res.statusCode, headers, body: res.rawPayload.toString('base64') }
}

test('the umbrella: cached and uncached answers are the same, 304 still comes first', async (t) => {
  const build = async (cacheBytes?: number) => {
    const app = Fastify()
    apps.push(app)
    await app.register(restwell, {
      rateLimit: false,
      compress: cacheBytes === undefined ? {} : { cacheBytes },
    })
    app.get('/items', async () =>
      Array.from({ length: 40 }, (_, id) => ({ id, title: `Item ${id} ${'t'.repeat(40)}` })),
    )
    return app
  }
  const cached = await build()
  const plain = await build(0)
  const gzip = { 'accept-encoding': 'gzip, br' }
  const answers = async (app: FastifyInstance) => {
    const out = []
    for (let i = 0; i < 3; i++)
      out.push(comparable(await app.inject({ url: '/items', headers: gzip })))
    return out
  }
  const a = await answers(cached)
  const b = await answers(plain)
  t.same(a, b)
  t.equal(a[0]!.headers['content-encoding'], 'gzip')
  t.match(a[0]!.headers.etag, /-gzip"$/)
  const etag = String(a[0]!.headers.etag)
  const notModified = await cached.inject({
    url: '/items',
    headers: { ...gzip, 'if-none-match': etag },
  })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.rawPayload.length, 0)
})
