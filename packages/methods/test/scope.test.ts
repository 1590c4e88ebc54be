import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellMethods } from '../src/index.js'

/** The plugin in `register(api, { prefix: '/api' })`, `@restwell/errors` nowhere or at the root. */
async function prefixed(errors: 'none' | 'root'): Promise<FastifyInstance> {
  const app = Fastify()
  if (errors === 'root') await app.register(restwellErrors)
  app.get('/root', async () => 'root')
  await app.register(
    async (api) => {
      await api.register(restwellMethods)
      api.get('/books', async () => [])
      api.delete('/books/:id', async (_request, reply) => reply.code(204).send())
    },
    { prefix: '/api' },
  )
  await app.ready()
  return app
}

test('in a sub-plugin with a route prefix, without @restwell/errors: 405, OPTIONS, 501 and 404', async (t) => {
  const app = await prefixed('none')
  const put = await app.inject({ method: 'PUT', url: '/api/books' })
  t.equal(put.statusCode, 405)
  t.equal(put.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(put.json().message, 'Method PUT is not allowed on /api/books')
  const options = await app.inject({ method: 'OPTIONS', url: '/api/books/7' })
  t.equal(options.statusCode, 200)
  t.equal(options.headers.allow, 'DELETE, OPTIONS')
  t.equal((await app.inject({ method: 'PROPFIND', url: '/api/books' })).statusCode, 501)
  const missing = await app.inject({ url: '/api/nope' })
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), {
    statusCode: 404,
    code: 'NOT_FOUND',
    error: 'Not Found',
    message: 'Route GET /api/nope not found',
  })
  // Outside the prefix the root's own not-found path is unchanged (Fastify's, no hooks of ours).
  t.equal((await app.inject({ method: 'PUT', url: '/root' })).statusCode, 404)
})

test('in a sub-plugin with a route prefix, @restwell/errors at the root: its 404, and 405', async (t) => {
  const app = await prefixed('root')
  const del = await app.inject({ method: 'DELETE', url: '/api/books' })
  t.equal(del.statusCode, 405)
  t.equal(del.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(del.json().error.code, 'METHOD_NOT_ALLOWED')
  const options = await app.inject({ method: 'OPTIONS', url: '/api/books' })
  t.equal(options.statusCode, 200)
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal((await app.inject({ method: 'PROPFIND', url: '/api/books' })).statusCode, 501)
  // The 404 is the one @restwell/errors' not-found handler sends at the root, path aside.
  const stable = (body: string): unknown => {
    const { error } = JSON.parse(body)
    return { ...error, requestId: undefined, timestamp: undefined }
  }
  const inScope = await app.inject({ url: '/api/nope' })
  const atRoot = await app.inject({ url: '/nope' })
  t.equal(inScope.statusCode, 404)
  t.equal(inScope.headers['cache-control'], 'no-store')
  t.equal(inScope.headers['content-type'], atRoot.headers['content-type'])
  t.ok(inScope.headers['x-request-id'])
  t.same(stable(inScope.body), {
    ...(stable(atRoot.body) as object),
    message: 'Route GET /api/nope not found',
  })
  t.same(stable(inScope.body), {
    code: 'NOT_FOUND',
    message: 'Route GET /api/nope not found',
    details: [],
    requestId: undefined,
    timestamp: undefined,
  })
  // A HEAD is named as GET, so its Content-Length is GET's; a long path is cut in the message.
  const head = await app.inject({ method: 'HEAD', url: '/api/nope' })
  t.equal(head.headers['content-length'], inScope.headers['content-length'])
  const long = await app.inject({ url: `/api/${'x'.repeat(300)}` })
  t.equal(long.json().error.message, `Route GET /api/${'x'.repeat(195)}... not found`)
})

test('@restwell/errors in the same sub-plugin: its not-found handler is used, no second one', async (t) => {
  const app = Fastify()
  await app.register(
    async (api) => {
      await api.register(restwellErrors)
      await api.register(restwellMethods)
      api.get('/books', async () => [])
    },
    { prefix: '/api' },
  )
  const put = await app.inject({ method: 'PUT', url: '/api/books' })
  t.equal(put.statusCode, 405)
  t.equal(put.json().error.code, 'METHOD_NOT_ALLOWED')
  t.equal((await app.inject({ url: '/api/nope' })).json().error.code, 'NOT_FOUND')
})

test("a sub-plugin's own not-found handler, set before the plugin, is kept", async (t) => {
  for (const errors of [false, true]) {
    const app = Fastify()
    if (errors) await app.register(restwellErrors)
    await app.register(
      async (api) => {
        api.setNotFoundHandler((_request, reply) => reply.code(404).send('custom'))
        await api.register(restwellMethods)
        api.get('/books', async () => [])
      },
      { prefix: '/api' },
    )
    t.equal((await app.inject({ method: 'PUT', url: '/api/books' })).statusCode, 405)
    t.equal((await app.inject({ url: '/api/nope' })).body, 'custom')
  }
})

test('a sub-plugin without a prefix and no not-found handler anywhere: answers app-wide', async (t) => {
  const app = Fastify()
  app.get('/root', async () => 'root')
  await app.register(async (child) => {
    await child.register(restwellMethods)
    child.get('/books', async () => [])
  })
  t.equal((await app.inject({ method: 'PUT', url: '/books' })).statusCode, 405)
  t.equal((await app.inject({ method: 'PUT', url: '/root' })).statusCode, 405)
  t.equal((await app.inject({ url: '/nope' })).json().message, 'Route GET /nope not found')
})

test('refused where @restwell/errors set the not-found handler in a parent, same prefix', async (t) => {
  const message =
    /^@restwell\/methods: registered in a plugin whose unmatched requests are answered by the not-found handler @restwell\/errors set in a parent plugin, which does not run this plugin's hooks \(no 405, OPTIONS or 501 there\): register @restwell\/methods in the plugin that registers @restwell\/errors, or in a plugin with a route prefix of its own$/
  // errors at the root, the plugin in a sub-plugin without a prefix
  const unprefixed = Fastify()
  await unprefixed.register(restwellErrors)
  unprefixed.register(async (child) => {
    await child.register(restwellMethods)
  })
  await t.rejects(
    async () => {
      await unprefixed.ready()
    },
    { message },
  )
  // errors in /api, the plugin in a sub-plugin of it without a prefix of its own
  const nested = Fastify()
  nested.register(
    async (api) => {
      await api.register(restwellErrors)
      await api.register(async (inner) => {
        await inner.register(restwellMethods)
      })
    },
    { prefix: '/api' },
  )
  await t.rejects(
    async () => {
      await nested.ready()
    },
    { message },
  )
  // ... and with a prefix of its own it works
  const own = Fastify()
  await own.register(
    async (api) => {
      await api.register(restwellErrors)
      await api.register(
        async (v1) => {
          await v1.register(restwellMethods)
          v1.get('/books', async () => [])
        },
        { prefix: '/v1' },
      )
    },
    { prefix: '/api' },
  )
  const put = await own.inject({ method: 'PUT', url: '/api/v1/books' })
  t.equal(put.statusCode, 405)
  t.equal(put.json().error.code, 'METHOD_NOT_ALLOWED')
  t.equal((await own.inject({ url: '/api/v1/nope' })).json().error.code, 'NOT_FOUND')
})
