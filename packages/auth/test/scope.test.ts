import { OptionsError, restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { test } from 'tap'
import { type AuthOptions, restwellAuth } from '../src/index.js'

const verify = async (token: string): Promise<{ id: string } | null> =>
  token === 'ok' ? { id: 'alice' } : null
const TOKEN = { authorization: 'Bearer ok' }

/** The plugin in `register(api, { prefix: '/api' })`, `@restwell/errors` nowhere or at the root. */
async function prefixed(
  errors: 'none' | 'root',
  options: Partial<AuthOptions> = {},
): Promise<FastifyInstance> {
  const app = Fastify()
  if (errors === 'root') await app.register(restwellErrors)
  await app.register(
    async (api) => {
      await api.register(restwellAuth, { verify, ...options })
      api.get('/books', async () => [])
      api.get('/admin/secret-reports', async () => [])
    },
    { prefix: '/api' },
  )
  await app.ready()
  return app
}

test('in a sub-plugin with a route prefix, hideRoutes hides unknown paths and methods', async (t) => {
  for (const errors of ['none', 'root'] as const) {
    const app = await prefixed(errors)
    for (const [method, url] of [
      ['GET', '/api/books'],
      ['GET', '/api/admin/secret-report'],
      ['DELETE', '/api/admin/secret-reports'],
      ['OPTIONS', '/api/books'],
    ] as const) {
      const res = await app.inject({ method, url })
      t.equal(res.statusCode, 401, `${errors}: anonymous ${method} ${url}`)
      t.equal(res.headers['www-authenticate'], 'Bearer realm="api"')
      const code = errors === 'root' ? res.json().error.code : res.json().code
      t.equal(code, 'MISSING_CREDENTIALS')
    }
    t.equal((await app.inject({ url: '/api/books', headers: TOKEN })).statusCode, 200)
    const missing = await app.inject({ url: '/api/admin/secret-report', headers: TOKEN })
    t.equal(missing.statusCode, 404, `${errors}: a valid token learns of the 404`)
    const body = missing.json()
    t.equal(
      errors === 'root' ? body.error.message : body.message,
      'Route GET /api/admin/secret-report not found',
    )
  }
})

test('the 404 in a sub-plugin is the one @restwell/errors sends at the root', async (t) => {
  const app = await prefixed('root')
  const stable = (body: string): unknown => {
    const { error } = JSON.parse(body)
    return { ...error, requestId: undefined, timestamp: undefined }
  }
  const inScope = await app.inject({ url: '/api/nope', headers: TOKEN })
  const atRoot = await app.inject({ url: '/nope' })
  t.equal(inScope.headers['cache-control'], 'no-store')
  t.equal(inScope.headers['content-type'], atRoot.headers['content-type'])
  t.same(stable(inScope.body), {
    ...(stable(atRoot.body) as object),
    message: 'Route GET /api/nope not found',
  })
  // A HEAD is named as GET, so its Content-Length is GET's; a long path is cut in the message.
  const head = await app.inject({ method: 'HEAD', url: '/api/nope', headers: TOKEN })
  t.equal(head.statusCode, 404)
  t.equal(head.headers['content-length'], inScope.headers['content-length'])
  const long = await app.inject({ url: `/api/${'x'.repeat(300)}`, headers: TOKEN })
  t.equal(long.json().error.message, `Route GET /api/${'x'.repeat(195)}... not found`)
})

test('in a sub-plugin with a route prefix, https.required reaches unknown paths too', async (t) => {
  const app = await prefixed('root', { hideRoutes: false, https: { required: true } })
  const res = await app.inject({ url: '/api/nope', headers: { host: 'api.test' } })
  t.equal(res.statusCode, 308)
  t.equal(res.headers.location, 'https://api.test/api/nope')
})

test('neither hideRoutes nor https.required: no not-found handler is set', async (t) => {
  const app = await prefixed('none', { hideRoutes: false })
  // Fastify's own root not-found handler still answers under the prefix.
  t.equal((await app.inject({ url: '/api/nope' })).json().message, 'Route GET:/api/nope not found')
})

test('@restwell/errors in the same sub-plugin: its not-found handler is used', async (t) => {
  const app = Fastify()
  await app.register(
    async (api) => {
      await api.register(restwellErrors)
      await api.register(restwellAuth, { verify })
    },
    { prefix: '/api' },
  )
  t.equal((await app.inject({ url: '/api/nope' })).statusCode, 401)
  t.equal((await app.inject({ url: '/api/nope', headers: TOKEN })).json().error.code, 'NOT_FOUND')
})

test("a sub-plugin's own not-found handler, set before the plugin, is kept", async (t) => {
  for (const errors of [false, true]) {
    const app = Fastify()
    if (errors) await app.register(restwellErrors)
    await app.register(
      async (api) => {
        api.setNotFoundHandler((_request, reply) => reply.code(404).send('custom'))
        await api.register(restwellAuth, { verify })
      },
      { prefix: '/api' },
    )
    t.equal((await app.inject({ url: '/api/nope' })).statusCode, 401)
    t.equal((await app.inject({ url: '/api/nope', headers: TOKEN })).body, 'custom')
  }
})

test('a sub-plugin without a prefix and no not-found handler anywhere: hides app-wide', async (t) => {
  const app = Fastify()
  await app.register(async (child) => {
    await child.register(restwellAuth, { verify })
  })
  t.equal((await app.inject({ url: '/nope' })).statusCode, 401)
  t.equal((await app.inject({ url: '/nope', headers: TOKEN })).statusCode, 404)
})

test('refused where @restwell/errors set the not-found handler in a parent, same prefix', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  app.register(async (child) => {
    await child.register(restwellAuth, { verify })
  })
  await t.rejects(
    async () => {
      await app.ready()
    },
    {
      message:
        "@restwell/auth: registered in a plugin whose unmatched requests are answered by the not-found handler @restwell/errors set in a parent plugin, which does not run this plugin's hooks (hideRoutes and https.required would not reach unknown paths): register @restwell/auth in the plugin that registers @restwell/errors, or in a plugin with a route prefix of its own",
    },
  )
})

/** Stands for `@restwell/methods`: the name is what `hasPlugin` reads; it answers 405 as methods does. */
const methodsLike: FastifyPluginAsync = fp(
  async (fastify) => {
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!request.is404) return done()
      reply.code(405).header('allow', 'GET, HEAD, OPTIONS').send()
    })
  },
  { fastify: '5.x', name: '@restwell/methods' },
)

test('hideRoutes refuses @restwell/methods registered before it', async (t) => {
  const wrong = Fastify()
  await wrong.register(methodsLike)
  const error = await wrong.register(restwellAuth, { verify }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  t.ok(error instanceof OptionsError)
  t.match(error, {
    code: 'RESTWELL_INVALID_OPTION',
    option: 'hideRoutes',
    message:
      '@restwell/auth: option "hideRoutes" needs @restwell/auth registered before @restwell/methods (its 405 and OPTIONS answers would reveal paths and methods to anonymous clients): register @restwell/auth first, or set hideRoutes: false',
  })
  // methods in a parent plugin counts too: its hooks run first in the sub-plugin
  const parent = Fastify()
  await parent.register(methodsLike)
  parent.register(
    async (api) => {
      await api.register(restwellAuth, { verify })
    },
    { prefix: '/api' },
  )
  await t.rejects(
    async () => {
      await parent.ready()
    },
    {
      name: 'OptionsError',
      message: /option "hideRoutes" needs @restwell\/auth registered before/,
    },
  )
  // the documented order, or hideRoutes off, are fine
  const right = Fastify()
  await right.register(restwellAuth, { verify })
  await right.register(methodsLike)
  right.get('/reports', async () => [])
  t.equal((await right.inject({ method: 'DELETE', url: '/reports' })).statusCode, 401)
  t.equal(
    (await right.inject({ method: 'DELETE', url: '/reports', headers: TOKEN })).statusCode,
    405,
  )
  const off = Fastify()
  await off.register(methodsLike)
  await off.register(restwellAuth, { verify, hideRoutes: false })
  off.get('/reports', async () => [])
  t.equal((await off.inject({ method: 'DELETE', url: '/reports' })).statusCode, 405)
})

test('a route asking for authentication beyond the reach of the plugin fails ready(), named', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (admin) => {
    await admin.register(restwellAuth, { verify })
    admin.get('/admin/reports', async () => [])
  })
  app.get('/health', { config: { auth: false } }, async () => ({ ok: true }))
  app.get('/public', async () => 'outside, asking nothing: the app scoped the plugin')
  await app.register(async (api) => {
    api.delete('/books/:id', { config: { auth: { scopes: ['write'] } } }, async () => ({}))
    api.get('/me', { config: { auth: true } }, async () => ({}))
  })
  await t.rejects(async () => app.ready(), {
    name: 'OptionsError',
    option: 'config.auth',
    message:
      '@restwell/auth: option "config.auth" of DELETE /books/:id, GET /me, HEAD /me asks for authentication, but the route is out of the reach of @restwell/auth (declared outside the plugin it was registered in, or in a plugin that loaded before it), so nothing checks it and it would be public. Register @restwell/auth at the root, before the plugins that declare routes, or wrap the plugin that registers it with `fastify-plugin`.',
  })

  const wrapped = Fastify()
  t.teardown(() => wrapped.close())
  await wrapped.register(fp(async (plugins) => plugins.register(restwellAuth, { verify })))
  await wrapped.register(async (api) => {
    api.get('/me', { config: { auth: true } }, async () => ({}))
  })
  t.equal((await wrapped.inject('/me')).statusCode, 401, 'within reach: guarded')
})
