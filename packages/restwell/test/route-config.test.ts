import Fastify, { type FastifyRequest } from 'fastify'
import { test } from 'tap'
import { routeConfigKey } from '../src/route-config.js'

test('a route config key is read from the request only once some route sets it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/early', { config: { other: true } }, async () => 'early')
  const read = routeConfigKey(app, 'cors')
  let reads = 0
  const request = {
    get routeOptions() {
      reads++
      return { config: { cors: false } }
    },
  } as unknown as FastifyRequest
  app.get('/plain', async () => 'plain')
  t.equal(read(request), undefined)
  t.equal(reads, 0, 'no route sets cors: routeOptions is never built')
  app.get('/private', { config: { cors: false } }, async () => 'private')
  t.equal(read(request), false)
  t.equal(reads, 1)
  const earlier = Fastify()
  t.teardown(() => earlier.close())
  earlier.get('/private', { config: { cors: false } }, async () => 'private')
  t.equal(routeConfigKey(earlier, 'cors')(request), false, 'routes added before are seen')
})
