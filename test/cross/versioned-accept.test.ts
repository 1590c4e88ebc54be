/** Cross-plugin: versioning tells negotiation which versioned JSON ranges it can answer. */
import Fastify from 'fastify'
import restwell from 'restwell'
import { test } from 'tap'

test('a versioned JSON range reads as JSON only for a version the app serves', async (t) => {
  const app = Fastify()
  await app.register(restwell, { rateLimit: false })
  for (const version of [1, 2]) {
    app.get(`/v${version}/books/:id`, { config: { auth: false } }, async () => ({ id: 1, version }))
  }
  t.teardown(() => app.close())
  const served = await app.inject({
    url: '/books/1',
    headers: { accept: 'application/vnd.api.v1+json, application/xml;q=0.5' },
  })
  t.equal(served.statusCode, 200)
  t.match(served.headers['content-type'], /^application\/vnd\.api\.v1\+json/)
  t.equal(served.headers['api-version'], '1')
  const unknown = await app.inject({
    url: '/v2/books/1',
    headers: { accept: 'application/vnd.api.v9+json, application/xml;q=0.5' },
  })
  t.equal(unknown.statusCode, 200)
  t.match(unknown.headers['content-type'], /^application\/xml/, 'v9 JSON is not on offer: XML is')
})
