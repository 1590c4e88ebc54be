import compress from '@fastify/compress'
import { httpErrors, restwellErrors } from '@restwell/errors'
import { AUTHENTICATES, installPipeline } from '@restwell/core/internal'
import Fastify, { type FastifyContextConfig, type FastifyInstance } from 'fastify'
import { test } from 'tap'
// @restwell/conditional is not a dependency of this package: its source is imported for one
// composition test (the root test/cache suite covers the full stack).
import { restwellConditional } from '@restwell/conditional'
import {
  type CacheControlOptions,
  type CacheRouteConfig,
  restwellCacheControl,
} from '../src/index.js'

/** The config of a route that checks credentials itself (`config.cache.authenticates`). */
function ownAuth(cache: CacheRouteConfig = {}): FastifyContextConfig {
  return { cache: { ...cache, authenticates: true } }
}

/**
 * A route config with `@restwell/auth`'s `config.auth` (not a dependency of this package: this
 * plugin only reads whether it is `false`; the umbrella's tests run the two together).
 */
function withAuth(auth: unknown, cache?: CacheRouteConfig): FastifyContextConfig {
  return { auth, cache } as FastifyContextConfig
}

async function build(
  options: CacheControlOptions = {},
  setup?: (app: FastifyInstance) => void,
  errors = true,
): Promise<FastifyInstance> {
  const app = Fastify()
  if (errors) await app.register(restwellErrors)
  await app.register(restwellCacheControl, options)
  app.get('/plain', async () => ({ ok: true }))
  app.post('/plain', async () => ({ ok: true }))
  app.put('/plain', async () => ({ ok: true }))
  app.patch('/plain', async () => ({ ok: true }))
  app.delete('/plain', async (_request, reply) => reply.code(204).send())
  app.options('/plain', async (_request, reply) => reply.header('allow', 'GET').send())
  app.get('/public', { config: { cache: { public: true, maxAge: 60 } } }, async () => 'x')
  app.get('/fail', async () => {
    throw httpErrors.notFound('gone')
  })
  app.get('/crash', { config: { cache: { public: true, maxAge: 60 } } }, async () => {
    throw new Error('kaput')
  })
  setup?.(app)
  return app
}

test('defaults: a successful GET or HEAD is no-cache, private when the request carries credentials', async (t) => {
  const app = await build()
  const get = await app.inject('/plain')
  t.equal(get.statusCode, 200)
  t.equal(get.headers['cache-control'], 'no-cache')
  t.equal(get.headers.vary, undefined, 'a route that does not authenticate varies on nothing')
  const head = await app.inject({ method: 'HEAD', url: '/plain' })
  t.equal(head.headers['cache-control'], 'no-cache')
  for (const headers of [{ authorization: 'Bearer a' }, { cookie: 'session=1' }]) {
    const res = await app.inject({ url: '/plain', headers })
    t.equal(res.headers['cache-control'], 'private, no-cache', Object.keys(headers).join())
    t.equal(res.headers.vary, undefined, 'the route does not answer by them')
  }
})

test('defaults: writes and OPTIONS are no-store', async (t) => {
  const app = await build()
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
    const res = await app.inject({ method, url: '/plain' })
    t.ok(res.statusCode < 300, `${method} succeeds`)
    t.equal(res.headers['cache-control'], 'no-store', method)
  }
})

test('defaults: errors are no-store, with or without @restwell/errors', async (t) => {
  for (const errors of [true, false]) {
    const app = await build({}, undefined, errors)
    for (const url of ['/fail', '/crash', '/nowhere']) {
      const res = await app.inject(url)
      t.ok(res.statusCode >= 400, `${url} fails`)
      t.equal(res.headers['cache-control'], 'no-store', `${url}, errors plugin: ${errors}`)
      t.equal(res.headers.vary, undefined, 'an error never gets Vary: Authorization')
    }
    const sent = await build(
      {},
      (app) => {
        app.get('/teapot', async (_request, reply) => reply.code(418).send('short and stout'))
      },
      errors,
    )
    t.equal(
      (await sent.inject('/teapot')).headers['cache-control'],
      'no-store',
      'a 4xx sent by hand',
    )
  }
})

test('a route policy replaces the default for GET and HEAD only', async (t) => {
  const app = await build({}, (app) => {
    app.route({
      method: ['GET', 'POST'],
      url: '/both',
      config: { cache: { public: true, maxAge: 30, staleWhileRevalidate: 10 } },
      handler: async () => 'x',
    })
  })
  const get = await app.inject('/both')
  t.equal(get.headers['cache-control'], 'public, max-age=30, stale-while-revalidate=10')
  const head = await app.inject({ method: 'HEAD', url: '/both' })
  t.equal(head.headers['cache-control'], 'public, max-age=30, stale-while-revalidate=10')
  const post = await app.inject({ method: 'POST', url: '/both' })
  t.equal(post.headers['cache-control'], 'no-store', 'a write never takes the read policy')
})

test('the plugin-wide policy', async (t) => {
  const app = await build({ policy: { maxAge: 5, mustRevalidate: true } })
  t.equal((await app.inject('/plain')).headers['cache-control'], 'max-age=5, must-revalidate')
  t.equal(
    (await app.inject('/public')).headers['cache-control'],
    'public, max-age=60',
    'a route replaces it whole',
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/plain' })).headers['cache-control'],
    'no-store',
  )
  t.equal((await app.inject('/fail')).headers['cache-control'], 'no-store')
})

test('a 304 and a redirect take the route policy; a 5xx from a public route is no-store', async (t) => {
  const app = await build({}, (app) => {
    app.get('/same', { config: { cache: { public: true, maxAge: 9 } } }, async (_request, reply) =>
      reply.code(304).send(),
    )
    app.get('/moved', async (_request, reply) => reply.redirect('/plain', 301))
  })
  t.equal((await app.inject('/same')).headers['cache-control'], 'public, max-age=9')
  t.equal((await app.inject('/moved')).headers['cache-control'], 'no-cache')
  t.equal((await app.inject('/crash')).headers['cache-control'], 'no-store')
})

test('reply.cachePolicy() sets this response policy, for any method', async (t) => {
  const app = await build({}, (app) => {
    app.get('/per-response', async (request, reply) => {
      if (request.query && (request.query as { shared?: string }).shared === '1') {
        reply.cachePolicy({ public: true, maxAge: 120, immutable: true })
      } else {
        reply.cachePolicy({ noStore: true })
      }
      return 'x'
    })
    app.post('/search', async (_request, reply) => reply.cachePolicy({ maxAge: 10 }).send('x'))
    app.get('/then-fails', async (_request, reply) => {
      reply.cachePolicy({ public: true, maxAge: 600 })
      throw httpErrors.conflict('no')
    })
    app.get('/bad', async (_request, reply) => reply.cachePolicy({ public: true, private: true }))
  })
  const shared = await app.inject('/per-response?shared=1')
  t.equal(shared.headers['cache-control'], 'public, max-age=120, immutable')
  t.equal(shared.headers.vary, undefined)
  t.equal((await app.inject('/per-response')).headers['cache-control'], 'no-store')
  t.equal(
    (await app.inject({ method: 'POST', url: '/search' })).headers['cache-control'],
    'max-age=10',
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/search', headers: { cookie: 'a=1' } })).headers[
      'cache-control'
    ],
    'private, max-age=10',
    'private with credentials, as a route policy',
  )
  const failed = await app.inject('/then-fails')
  t.equal(failed.statusCode, 409)
  t.equal(failed.headers['cache-control'], 'no-store', 'the policy never leaks onto an error')
  const bad = await app.inject('/bad')
  t.equal(bad.statusCode, 500, 'an impossible policy is a programming error')
  t.equal(bad.headers['cache-control'], 'no-store')
})

test('reply.cachePolicy() never leaks onto an error, even without @restwell/errors', async (t) => {
  const app = await build(
    {},
    (app) => {
      app.get('/then-fails', async (_request, reply) => {
        reply.cachePolicy({ public: true, maxAge: 600 })
        throw httpErrors.conflict('no')
      })
    },
    false,
  )
  const res = await app.inject('/then-fails')
  t.equal(res.statusCode, 409)
  t.equal(res.headers['cache-control'], 'no-store')
})

test('a Cache-Control set by the handler is never overwritten', async (t) => {
  const app = await build({}, (app) => {
    app.get('/own', async (_request, reply) => reply.header('cache-control', 'max-age=3').send('x'))
    app.post('/own', async (_request, reply) =>
      reply.header('cache-control', 'private, max-age=3').send('x'),
    )
    app.get('/own-no-store', async (_request, reply) =>
      reply.header('cache-control', 'private, no-store').send('x'),
    )
    app.get('/own-404', async (_request, reply) =>
      reply.code(404).header('cache-control', 'public, max-age=30').send('none'),
    )
    app.get('/own-error', async () => {
      throw httpErrors.notFound('none', { headers: { 'cache-control': 'public, max-age=30' } })
    })
    app.get('/own-mine', { config: ownAuth() }, async (_request, reply) =>
      reply.header('cache-control', 'max-age=3').send('x'),
    )
    app.get('/own-mine-no-store', { config: ownAuth() }, async (_request, reply) =>
      reply.header('cache-control', 'private, no-store').send('x'),
    )
  })
  const own = await app.inject({ url: '/own', headers: { cookie: 'a=1' } })
  t.equal(own.headers['cache-control'], 'max-age=3', 'kept, credentials or not')
  t.equal(own.headers.vary, undefined, 'the route does not authenticate')
  const post = await app.inject({ method: 'POST', url: '/own' })
  t.equal(post.headers['cache-control'], 'private, max-age=3')
  const mine = await app.inject('/own-mine')
  t.equal(mine.headers['cache-control'], 'max-age=3')
  t.equal(mine.headers.vary, 'Authorization', 'storable, on a route that authenticates')
  t.equal((await app.inject('/own-mine-no-store')).headers.vary, undefined, 'never stored')
  const never = await app.inject('/own-no-store')
  t.equal(never.headers['cache-control'], 'private, no-store')
  t.equal(never.headers.vary, undefined, 'never stored: nothing to key')
  t.equal((await app.inject('/own-404')).headers['cache-control'], 'public, max-age=30')
  t.equal((await app.inject('/own-error')).headers['cache-control'], 'public, max-age=30')
})

test('Vary: Authorization only on routes that authenticate, whatever their policy', async (t) => {
  const app = await build({}, (app) => {
    app.get('/shared', { config: { cache: { sMaxAge: 60 } } }, async () => 'x')
    app.get('/mine-public', { config: ownAuth({ public: true, maxAge: 60 }) }, async () => 'x')
    app.get(
      '/no-vary',
      { config: ownAuth({ public: true, varyAuthorization: false }) },
      async () => 'x',
    )
  })
  for (const headers of [{}, { authorization: 'Bearer a' }]) {
    const pub = await app.inject({ url: '/public', headers })
    t.equal(pub.headers['cache-control'], 'public, max-age=60', 'public stays public')
    t.equal(pub.headers.vary, undefined, 'a public route answers everyone alike')
    t.equal((await app.inject({ url: '/shared', headers })).headers.vary, undefined)
    const mine = await app.inject({ url: '/mine-public', headers })
    t.equal(mine.headers.vary, 'Authorization', 'with and without credentials alike')
    t.equal((await app.inject({ url: '/no-vary', headers })).headers.vary, undefined)
  }
  const off = await build({ varyAuthorization: false }, (app) => {
    app.get('/mine', { config: ownAuth() }, async () => 'x')
  })
  const mine = await off.inject('/mine')
  t.equal(mine.headers.vary, undefined, 'turned off for the plugin')
  t.equal(mine.headers['cache-control'], 'private, no-cache', 'still private')
})

test('a route that authenticates is private and varies by Authorization; auth: false does not', async (t) => {
  const app = await build({}, (app) => {
    const byWho = async (request: { headers: { authorization?: string } }) => ({
      for: request.headers.authorization ?? 'anonymous',
    })
    // No config.auth, no authentication plugin: nothing says the answer depends on who asks.
    app.get('/plain-lifetime', { config: { cache: { maxAge: 300 } } }, byWho)
    app.get('/feed', { config: ownAuth({ maxAge: 300 }) }, byWho)
    app.get('/mine', { config: ownAuth({ maxAge: 300 }) }, async (request, reply) => {
      if (request.headers['if-none-match'] === '"v1"') return reply.code(304).send()
      return reply.header('etag', '"v1"').send('x')
    })
    app.post('/mine', { config: ownAuth() }, async () => 'done')
    app.get('/open', { config: withAuth(false, { maxAge: 300 }) }, async () => 'same for all')
    app.get('/open-shared', { config: withAuth(false, { public: true, maxAge: 60 }) }, byWho)
    app.get('/same', { config: ownAuth({ maxAge: 300, varyAuthorization: false }) }, byWho)
  })
  const anonymous = {}
  const alice = { authorization: 'Bearer alice' }
  const bob = { authorization: 'Bearer bob' }
  for (const url of ['/feed', '/mine']) {
    for (const headers of [anonymous, alice, bob]) {
      const res = await app.inject({ url, headers })
      t.equal(res.headers['cache-control'], 'private, max-age=300', url)
      t.equal(res.headers.vary, 'Authorization', `${url}: with and without credentials alike`)
    }
  }
  const same = await app.inject({ url: '/mine', headers: { ...alice, 'if-none-match': '"v1"' } })
  t.equal(same.statusCode, 304)
  t.equal(same.headers['cache-control'], 'private, max-age=300', 'the 304 carries the 200 policy')
  t.equal(same.headers.vary, 'Authorization', 'and the Vary the 200 would')
  const write = await app.inject({ method: 'POST', url: '/mine', headers: alice })
  t.equal(write.headers['cache-control'], 'no-store')
  t.equal(write.headers.vary, undefined, 'never stored: nothing to key')
  const error = await app.inject({ url: '/fail', headers: alice })
  t.equal(error.headers['cache-control'], 'no-store')
  t.equal(error.headers.vary, undefined, 'an error is never stored')

  for (const url of ['/open', '/plain-lifetime']) {
    const open = await app.inject(url)
    t.equal(open.headers['cache-control'], 'max-age=300', `${url}: no credentials, not private`)
    t.equal(open.headers.vary, undefined, `${url}: nothing varies`)
    const openAlice = await app.inject({ url, headers: alice })
    t.equal(openAlice.headers['cache-control'], 'private, max-age=300', `${url}: a credential`)
    t.equal(openAlice.headers.vary, undefined, `${url}: the answer is the same for all`)
  }
  t.equal((await app.inject({ url: '/open-shared', headers: alice })).headers.vary, undefined)
  const opted = await app.inject({ url: '/same', headers: alice })
  t.equal(opted.headers['cache-control'], 'private, max-age=300')
  t.equal(opted.headers.vary, undefined, 'opted out')
})

test("an authentication plugin's mark (AUTHENTICATES) counts, whatever the registration order", async (t) => {
  const mark = (app: FastifyInstance) =>
    app.addHook('onRoute', (route) => {
      if (route.url === '/guarded') (route as { [AUTHENTICATES]?: boolean })[AUTHENTICATES] = true
    })
  for (const before of [true, false]) {
    const app = Fastify()
    if (before) mark(app)
    await app.register(restwellCacheControl)
    if (!before) mark(app)
    app.get('/guarded', async () => 'x')
    app.get('/other', async () => 'x')
    const guarded = await app.inject('/guarded')
    t.equal(
      guarded.headers['cache-control'],
      'private, no-cache',
      `marked ${before ? 'before' : 'after'}`,
    )
    t.equal(guarded.headers.vary, 'Authorization')
    t.equal((await app.inject('/other')).headers['cache-control'], 'no-cache')
  }
})

test('alone, a route whose config.auth nothing checks fails ready(), named with the fixes', async (t) => {
  const app = await build({}, (app) => {
    app.get('/me', { config: withAuth(true) }, async () => 'mine')
    app.get('/feed', { config: withAuth({ optional: true }) }, async () => 'feed')
  })
  await t.rejects(async () => app.ready(), {
    name: 'OptionsError',
    code: 'RESTWELL_INVALID_OPTION',
    option: 'config.auth',
    message:
      '@restwell/cache-control: option "config.auth" of GET /me, HEAD /me, GET /feed, HEAD /feed asks for authentication that no authentication plugin checks there, so the route would be public. Register @restwell/auth (restwell: its `auth: { verify }` option) where it reaches the route, or drop config.auth; a route that checks credentials itself says so with `config.cache: { authenticates: true }`.',
  })
})

test("a guard's mark makes config.auth checked; under a pipeline the umbrella decides", async (t) => {
  const guarded = Fastify()
  t.teardown(() => guarded.close())
  // An authentication plugin's guard marks the routes it checks (as @restwell/auth does).
  guarded.addHook('onRoute', (route) => {
    if (route.config?.auth === true) (route as { [AUTHENTICATES]?: boolean })[AUTHENTICATES] = true
  })
  await guarded.register(restwellCacheControl)
  guarded.get('/me', { config: withAuth(true) }, async () => 'mine')
  const me = await guarded.inject('/me')
  t.equal(me.headers['cache-control'], 'private, no-cache')
  t.equal(me.headers.vary, 'Authorization')

  const under = Fastify()
  t.teardown(() => under.close())
  installPipeline(under)
  await under.register(restwellCacheControl)
  under.get('/me', { config: withAuth(true) }, async () => 'mine')
  await t.resolves(
    async () => under.ready(),
    'the umbrella refuses it when its auth option is not given',
  )
})

test('config.cache.authenticates is true or absent', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwellCacheControl)
  t.throws(
    () => app.get('/me', { config: { cache: { authenticates: false } } } as object, async () => ''),
    { option: 'authenticates', message: /config\.cache of GET \/me.*"authenticates" must be true/ },
  )
})

test('an explicit private: false is honoured, with credentials too', async (t) => {
  const app = await build({ policy: { private: false } }, (app) => {
    app.get('/route', { config: { cache: { private: false, maxAge: 30 } } }, async () => 'x')
    app.get('/reply', async (_request, reply) => reply.cachePolicy({ private: false }).send('x'))
  })
  const cookie = { cookie: 'a=1' }
  const plugin = await app.inject({ url: '/plain', headers: cookie })
  t.equal(plugin.headers['cache-control'], 'no-cache', 'the plugin policy, credentials or not')
  t.equal(plugin.headers.vary, undefined)
  const route = await app.inject({ url: '/route', headers: cookie })
  t.equal(route.headers['cache-control'], 'max-age=30', 'a route policy')
  t.equal(
    (await app.inject({ url: '/reply', headers: cookie })).headers['cache-control'],
    'no-cache',
    'one response',
  )
})

test('vary names from the plugin and the route, once each, merged with what is there', async (t) => {
  const app = await build({ vary: ['X-Api-Version'] }, (app) => {
    app.get(
      '/negotiated',
      { config: { cache: { public: true, maxAge: 1, vary: ['Accept', 'x-api-version'] } } },
      async (_request, reply) => reply.header('vary', 'accept, Accept-Encoding').send('x'),
    )
    app.get('/star', async (_request, reply) => reply.header('vary', '*').send('x'))
    app.get('/dup', async (_request, reply) => reply.header('vary', 'Origin, origin').send('x'))
  })
  const res = await app.inject('/negotiated')
  t.equal(res.headers.vary, 'Accept, Accept-Encoding, X-Api-Version', 'one spelling per field')
  t.equal((await app.inject('/plain')).headers.vary, 'X-Api-Version')
  t.equal((await app.inject('/fail')).headers.vary, 'X-Api-Version', 'an error states it too')
  t.equal((await app.inject('/nowhere')).headers.vary, 'X-Api-Version', 'the not-found path too')
  t.equal((await app.inject('/star')).headers.vary, '*')
  const bare = await build()
  bare.get('/dup', async (_request, reply) => reply.header('vary', 'Origin, origin').send('x'))
  t.equal((await bare.inject('/dup')).headers.vary, 'Origin', 'de-duplicated')
})

test('config.cache: false leaves the route alone', async (t) => {
  const app = await build({}, (app) => {
    app.get('/off', { config: { cache: false } }, async () => 'x')
  })
  const res = await app.inject('/off')
  t.equal(res.headers['cache-control'], undefined)
})

test('routes registered before the plugin get their policy too, and so does the not-found path', async (t) => {
  const app = Fastify()
  app.get('/early', async () => 'x')
  app.get('/early-public', { config: { cache: { public: true, maxAge: 60 } } }, async () => 'x')
  await app.register(restwellCacheControl)
  t.equal((await app.inject('/early')).headers['cache-control'], 'no-cache')
  t.equal((await app.inject('/early-public')).headers['cache-control'], 'public, max-age=60')
  t.equal((await app.inject('/missing')).headers['cache-control'], 'no-store')
})

test('a custom not-found handler that answers 200 gets the plugin policy', async (t) => {
  const app = Fastify()
  await app.register(restwellCacheControl, { policy: { public: true, maxAge: 5 } })
  app.setNotFoundHandler(async (_request, reply) => reply.send('fallback'))
  const res = await app.inject('/anything')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'public, max-age=5')
  t.equal(res.headers.vary, undefined)
})

test('route onSend hooks given as one function or a list are kept, and run first', async (t) => {
  const app = await build({}, (app) => {
    app.get(
      '/one',
      {
        onSend: (_request, reply, payload, done) => {
          reply.header('vary', 'Accept')
          done(null, payload)
        },
      },
      async () => 'x',
    )
    app.get(
      '/list',
      {
        config: { cache: { public: true } },
        onSend: [
          (_request, reply, payload, done) => {
            reply.header('vary', 'Accept-Language')
            done(null, payload)
          },
        ],
      },
      async () => 'x',
    )
  })
  t.equal((await app.inject('/one')).headers.vary, 'Accept')
  t.equal((await app.inject('/list')).headers.vary, 'Accept-Language')
})

test('the policy is decided after compression and preconditions', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  // Alone beside @fastify/compress, conditional's tags are weak (its README, Decisions).
  await app.register(restwellConditional, { weak: true })
  await app.register(compress, { threshold: 1 })
  await app.register(restwellCacheControl)
  app.get('/doc', { config: { cache: { public: true, maxAge: 60 } } }, async () => ({
    a: 'b'.repeat(50),
  }))
  app.put(
    '/doc',
    { config: { conditional: { getValidator: () => ({ etag: 'v1' }) } } },
    async () => 'ok',
  )
  const res = await app.inject({ url: '/doc', headers: { 'accept-encoding': 'gzip' } })
  t.equal(res.headers['content-encoding'], 'gzip')
  t.equal(res.headers.vary, 'Accept-Encoding')
  const etag = res.headers.etag as string
  const same = await app.inject({
    url: '/doc',
    headers: { 'accept-encoding': 'gzip', 'if-none-match': etag },
  })
  t.equal(same.statusCode, 304)
  t.equal(same.headers['cache-control'], 'public, max-age=60', 'the 304 carries the 200 policy')
  t.equal(same.headers.vary, 'Accept-Encoding', 'and the same Vary')
  t.equal(same.headers['content-length'], undefined)
  t.equal(same.headers['content-type'], undefined)
  const failed = await app.inject({ method: 'PUT', url: '/doc', headers: { 'if-match': '"v0"' } })
  t.equal(failed.statusCode, 412)
  t.equal(failed.headers['cache-control'], 'no-store')
})

test('registered before conditional and compress: its hook runs first, the answer is still described', async (t) => {
  // Without @restwell/errors (which sets no-store on every error itself).
  const app = Fastify()
  const policy = { config: { cache: { public: true, maxAge: 60 } } }
  const body = async () => ({ a: 'b'.repeat(50) })
  app.get('/early', policy, body)
  await app.register(restwellCacheControl)
  await app.register(restwellConditional, { weak: true })
  await app.register(compress, { threshold: 1 })
  app.get('/late', policy, body)
  for (const url of ['/early', '/late']) {
    const ok = await app.inject(url)
    t.equal(ok.headers['cache-control'], 'public, max-age=60', url)
    const head = await app.inject({ method: 'HEAD', url })
    t.equal(head.headers['cache-control'], 'public, max-age=60', `HEAD ${url}`)
    t.equal(head.headers['content-length'], ok.headers['content-length'], `HEAD ${url}`)
    // Conditional's hook, after this plugin's, makes the 412 from the bytes: the error answer
    // then passes this plugin's hook again.
    const failed = await app.inject({ url, headers: { 'if-match': '"nope"' } })
    t.equal(failed.statusCode, 412, url)
    t.equal(failed.headers['cache-control'], 'no-store', `${url}: the 412 is not cacheable`)
  }
  // Alone, hooks run in the order the plugins were registered: conditional's and
  // @fastify/compress's `Vary` come after this plugin's hook, and @fastify/compress looks for its
  // own lower-case spelling only, so it adds a second one (registered after them, this plugin
  // merges the two: the test above).
  const gzip = await app.inject({ url: '/late', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.equal(gzip.headers.vary, 'Accept-Encoding, accept-encoding')
})

test('invalid options and route configs throw at registration, naming them', async (t) => {
  await t.rejects(
    async () => {
      const app = Fastify()
      await app.register(restwellCacheControl, { policy: { maxAge: -1 } })
    },
    { code: 'RESTWELL_INVALID_OPTION', message: /policy\.maxAge/ },
  )
  await t.rejects(async () => {
    const app = Fastify()
    await app.register(restwellCacheControl, { policy: { public: true, private: true } })
  }, /option policy.*both public and private/)
  await t.rejects(async () => {
    const app = Fastify()
    await app.register(restwellCacheControl, { vary: ['bad header'] } as CacheControlOptions)
  }, /vary/)
  await t.rejects(async () => {
    const app = Fastify()
    await app.register(restwellCacheControl)
    app.get('/x', { config: { cache: { maxAge: 'soon' as unknown as number } } }, async () => 'x')
    await app.ready()
  }, /config\.cache of GET \/x.*maxAge/)
  await t.rejects(async () => {
    const app = Fastify()
    await app.register(restwellCacheControl)
    app.get('/y', { config: { cache: { public: true, private: true } } }, async () => 'x')
    await app.ready()
  }, /config\.cache of GET \/y\): Cache-Control cannot be both public and private/)
})

test('a QUERY answer is cacheable: the read policy, the route policy, no-store on errors', async (t) => {
  const app = await build({}, (app) => {
    app.route({ method: 'QUERY', url: '/plain', handler: async () => ({ ok: true }) })
    app.route({
      method: 'QUERY',
      url: '/public',
      config: { cache: { public: true, maxAge: 60 } },
      handler: async () => ({ ok: true }),
    })
    app.route({
      method: 'QUERY',
      url: '/fail',
      handler: async () => {
        throw httpErrors.notFound('gone')
      },
    })
  })
  const plain = await app.inject({ method: 'QUERY', url: '/plain', payload: {} })
  t.equal(plain.headers['cache-control'], 'no-cache')
  const credentials = await app.inject({
    method: 'QUERY',
    url: '/plain',
    payload: {},
    headers: { authorization: 'Bearer x' },
  })
  t.equal(credentials.headers['cache-control'], 'private, no-cache')
  const policy = await app.inject({ method: 'QUERY', url: '/public', payload: {} })
  t.equal(policy.headers['cache-control'], 'public, max-age=60')
  const failed = await app.inject({ method: 'QUERY', url: '/fail', payload: {} })
  t.equal(failed.headers['cache-control'], 'no-store')
  const post = await app.inject({ method: 'POST', url: '/plain', payload: {} })
  t.equal(post.headers['cache-control'], 'no-store', 'a POST stays no-store')
})
