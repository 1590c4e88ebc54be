/**
 * A version's routes and their unprefixed twins: `versioned()`, twins of routes declared with
 * their `/v<N>` prefix, and what routing once means (one pass, one `onResponse`, one id).
 */
import { restwellErrors } from '@restwell/errors'
import { restwellMethodOverride } from '@restwell/method-override'
import { restwellMethods } from '@restwell/methods'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { test } from 'tap'
import { restwellVersioning, VERSION_CONSTRAINT, versioned } from '../src/index.js'

const echo = (served: string) => async (request: FastifyRequest) => ({
  served,
  apiVersion: request.apiVersion ?? null,
  url: request.url,
})

test('versioned(): both copies have the plugin’s hooks and decorators; routed once', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellVersioning)
  const setups: string[] = []
  const books = async (scope: FastifyInstance, options: { label: string }) => {
    setups.push(options.label)
    scope.decorateRequest('edition', options.label)
    scope.addHook('onRequest', async (request) => {
      ;(request as FastifyRequest & { hooked?: boolean }).hooked = true
    })
    scope.get('/books/:id', async (request) => ({
      edition: (request as FastifyRequest & { edition: string }).edition,
      hooked: (request as FastifyRequest & { hooked?: boolean }).hooked === true,
      apiVersion: request.apiVersion,
      url: request.url,
      route: request.routeOptions.url,
    }))
  }
  await app.register(versioned(1, books, { label: 'first' }))
  await app.register(versioned(2, books, { label: 'second' }))
  const responses: string[] = []
  const ids: string[] = []
  app.addHook('onResponse', async (request, reply) => {
    responses.push(`${request.method} ${request.url} ${reply.statusCode}`)
    ids.push(request.id)
  })
  t.same(setups, ['first', 'first', 'second', 'second'], 'the plugin runs once per copy')

  const prefixed = await app.inject('/v1/books/3')
  t.same(prefixed.json(), {
    edition: 'first',
    hooked: true,
    apiVersion: 1,
    url: '/v1/books/3',
    route: '/v1/books/:id',
  })
  const byDefault = await app.inject('/books/3')
  t.same(byDefault.json(), {
    edition: 'second',
    hooked: true,
    apiVersion: 2,
    url: '/books/3',
    route: '/books/:id',
  })
  t.equal(byDefault.headers['api-version'], '2')
  const byAccept = await app.inject({
    url: '/books/3',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.match(byAccept.json(), { edition: 'first', apiVersion: 1 })
  t.equal(byAccept.headers['content-type'], 'application/vnd.api.v1+json; charset=utf-8')
  t.same(
    responses,
    ['GET /v1/books/3 200', 'GET /books/3 200', 'GET /books/3 200'],
    'onResponse ran once per request',
  )
  t.equal(new Set(ids).size, 3)
  t.match(
    app.printRoutes({ commonPrefix: false }),
    /\/books\/:id \(GET, HEAD\) \{"restwellVersion":"1"\}/,
    'the twin is a route of its own, under the version constraint',
  )
})

test('versioned(): options.prefix goes under the version; the root route answers both ways', async (t) => {
  const app = Fastify()
  await app.register(restwellVersioning)
  await app.register(
    versioned(
      3,
      async (scope) => {
        scope.get('/', echo('shelf root'))
        scope.get('/:id', echo('shelf item'))
      },
      { prefix: '/shelves' },
    ),
  )
  t.match((await app.inject('/v3/shelves/7')).json(), { served: 'shelf item', apiVersion: 3 })
  t.match((await app.inject('/shelves/7')).json(), { served: 'shelf item', apiVersion: 3 })
  t.match((await app.inject('/v3/shelves')).json(), { served: 'shelf root' })
  t.match((await app.inject('/v3/shelves/')).json(), { served: 'shelf root' })
  t.match((await app.inject('/shelves')).json(), { served: 'shelf root', apiVersion: 3 })
})

test('versioned(): mistakes fail at registration, naming the fix', async (t) => {
  const plugin = async () => {}
  t.throws(
    () => versioned(-1, plugin),
    /version must be a whole number from 0 to 999999999 \(got -1\)/,
  )
  t.throws(() => versioned(1.5, plugin), /got 1.5/)
  t.throws(() => versioned(1e10, plugin), /got 10000000000/)
  t.throws(
    () => versioned(1, 'routes' as never),
    /versioned\(1, plugin\): plugin must be a Fastify plugin function/,
  )
  t.throws(
    () => versioned(1, plugin, { prefix: 'books' }),
    /options.prefix must be a path starting with '\/' \(got "books"\)/,
  )

  const early = Fastify()
  early.register(versioned(1, async (scope) => scope.get('/x', echo('x'))))
  await t.rejects(
    async () => early.ready(),
    /versioned\(1, …\): register restwell \(or @restwell\/versioning\) before the versions' routes/,
  )

  const wrapped = Fastify()
  await wrapped.register(restwellVersioning)
  await t.rejects(
    async () =>
      wrapped.register(
        versioned(
          1,
          fp(async (scope) => {
            scope.get('/x', echo('x'))
          }),
        ),
      ),
    /versioned\(1, plugin\): route GET \/x did not get the prefix \/v1; a plugin wrapped with fastify-plugin ignores prefixes/,
  )
})

test('a /v<N> route in a plugin registered with that prefix: refused, unless only the prefix carries versions', async (t) => {
  const app = Fastify()
  await app.register(restwellVersioning)
  await t.rejects(
    async () => app.register(async (v2) => v2.get('/books', echo('v2')), { prefix: '/v2' }),
    /route GET \/v2\/books is in a plugin registered with prefix '\/v2', where an unprefixed request \(Accept, \?version=, the default version\) cannot reach it; register the plugin with app\.register\(versioned\(2, plugin\)\) instead of app\.register\(plugin, \{ prefix: '\/v2' \}\)/,
  )

  for (const [options, named] of [
    [{ carriers: { accept: false, query: false } }, '(the default version)'],
    [{ routeToDefault: false, queryParameter: 'api' }, '(Accept, ?api=)'],
  ] as const) {
    const other = Fastify()
    await other.register(restwellVersioning, options)
    await t.rejects(
      async () => other.register(async (v2) => v2.get('/books', echo('v2')), { prefix: '/v2' }),
      {
        message: new RegExp(
          `where an unprefixed request ${named.replace(/[()?]/g, '\\$&')} cannot`,
        ),
      },
      'the message names the carriers that are on',
    )
  }

  const prefixOnly = Fastify()
  await prefixOnly.register(restwellVersioning, {
    carriers: { accept: false, query: false },
    routeToDefault: false,
  })
  await prefixOnly.register(async (v2) => v2.get('/books', echo('v2')), { prefix: '/v2' })
  t.match((await prefixOnly.inject('/v2/books')).json(), { served: 'v2', apiVersion: 2 })
  t.equal((await prefixOnly.inject('/books')).statusCode, 404, 'no twin: the prefix alone')
  t.notMatch(prefixOnly.printRoutes(), VERSION_CONSTRAINT)
})

test('a /v<N> route declared at the root gets its twin; its HEAD route one twin', async (t) => {
  const app = Fastify()
  await app.register(restwellVersioning)
  app.get('/v1/items/:id', echo('v1 item'))
  app.route({ method: ['GET', 'PUT'], url: '/v1/things', handler: echo('v1 things') })
  app.head('/v1/probe', async (_request, reply) => reply.header('x-probe', '1').send())
  app.get('/v1/probe', { exposeHeadRoute: false }, echo('probe'))
  // The same twin from two routes: `/v2` and `/v2/` both have the unprefixed root `/`.
  app.get('/v2', echo('v2 root'))
  app.get('/v2/', echo('v2 root, slash'))
  t.match((await app.inject('/items/4?version=1')).json(), {
    served: 'v1 item',
    url: '/items/4?version=1',
  })
  t.equal((await app.inject({ method: 'HEAD', url: '/items/4?version=1' })).statusCode, 200)
  t.match((await app.inject({ method: 'PUT', url: '/things?version=1' })).json(), {
    served: 'v1 things',
  })
  const probe = await app.inject({ method: 'HEAD', url: '/probe?version=1' })
  t.equal(probe.headers['x-probe'], '1', 'the explicit HEAD route has its twin')
  t.match((await app.inject('/')).json(), { served: 'v2 root' }, 'the default version')
})

test('an unprefixed path the app serves itself: its own route, or 405, never the default version', async (t) => {
  const app = Fastify({ caseSensitive: false })
  await app.register(restwellErrors)
  await app.register(restwellVersioning)
  await app.register(restwellMethods)
  app.get('/v1/Reports/:id', echo('v1 report'))
  app.delete('/v1/reports/:id', echo('v1 delete'))
  app.get('/REPORTS/:id', echo('own report'))
  t.match((await app.inject('/reports/1')).json(), { served: 'own report' }, 'case folded')
  const other = await app.inject({ method: 'DELETE', url: '/reports/1' })
  t.equal(other.statusCode, 405, 'the own resource, asked with another method')
  t.equal(other.headers.allow, 'GET, HEAD, OPTIONS')
  const encoded = await app.inject({ method: 'DELETE', url: '/%72eports/1' })
  t.equal(encoded.statusCode, 405, 'an escaped first segment is looked up')
  const asked = await app.inject({
    method: 'DELETE',
    url: '/reports/1',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.match(asked.json(), { served: 'v1 delete' }, 'a version asked for goes to its twin')

  const params = Fastify()
  await params.register(restwellVersioning)
  params.get('/v1/files/:id', echo('v1 file'))
  params.post('/:kind/:id', echo('own, any kind'))
  t.equal(
    (await params.inject('/files/1')).statusCode,
    404,
    'a parametric own route may serve any path: the router is asked, and POST serves it',
  )
  t.match((await params.inject('/files/1?version=1')).json(), { served: 'v1 file' })

  const semicolon = Fastify({ useSemicolonDelimiter: true })
  await semicolon.register(restwellVersioning)
  semicolon.get('/v1/books', echo('v1 books'))
  semicolon.get('/books', echo('own books'))
  t.match(
    (await semicolon.inject('/books;page=2')).json(),
    { served: 'own books' },
    'a `;` ends the first segment as it ends the path for the router',
  )

  const near = Fastify()
  await near.register(restwellVersioning)
  near.get('/v1/notes/:id', echo('v1 note'))
  near.get('/notes/pinned', echo('own pinned'))
  t.match((await near.inject('/notes/pinned')).json(), { served: 'own pinned' })
  t.match(
    (await near.inject('/notes/3')).json(),
    { served: 'v1 note' },
    'the same first segment, but no route of its own for this path: the default version',
  )
})

test('a 405 of an unprefixed path lists the methods of the version asked for', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellVersioning)
  await app.register(restwellMethods)
  await app.register(
    versioned(1, async (v1) => {
      v1.get('/books/:id', echo('v1'))
    }),
  )
  await app.register(
    versioned(2, async (v2) => {
      v2.get('/books/:id', echo('v2'))
      v2.patch('/books/:id', echo('v2'))
    }),
  )
  const v1 = await app.inject({
    method: 'PATCH',
    url: '/books/1',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.equal(v1.statusCode, 405)
  t.equal(v1.headers.allow, 'GET, HEAD, OPTIONS')
  const byDefault = await app.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(byDefault.statusCode, 405)
  t.equal(byDefault.headers.allow, 'GET, HEAD, PATCH, OPTIONS')
  const options = await app.inject({ method: 'OPTIONS', url: '/books/1?version=1' })
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
  const prefixed = await app.inject({ method: 'DELETE', url: '/v2/books/1' })
  t.equal(prefixed.headers.allow, 'GET, HEAD, PATCH, OPTIONS', 'a prefixed URL: its routes')
  const own = await app.inject({ method: 'DELETE', url: '/books/1/cover' })
  t.equal(own.statusCode, 404, 'a path no version serves')
})

test('a retired version links its successor from either URL; the root is /v<N>', async (t) => {
  const app = Fastify()
  await app.register(restwellVersioning, {
    retired: { 1: { deprecation: '2025-01-01', successor: 2 } },
    moved: { '/v1/old': '/v2/new' },
  })
  await app.register(versioned(1, async (v1) => v1.get('/', echo('v1 root'))))
  await app.register(versioned(2, async (v2) => v2.get('/', echo('v2 root'))))
  t.equal((await app.inject('/v1')).headers.link, '</v2>; rel="successor-version"')
  t.equal((await app.inject('/?version=1')).headers.link, '</v2>; rel="successor-version"')
  const moved = await app.inject('/old?version=1')
  t.equal(moved.statusCode, 301, 'a moved path under the version asked for')
  t.equal(moved.headers.location, '/v2/new')
})

test('an unprefixed twin is left out of the OpenAPI document', async (t) => {
  const { versionTwinDescription } = await import('../src/pair.js')
  t.same(versionTwinDescription({ schema: { summary: 'x' }, url: '/books' }), {
    schema: { summary: 'x', hide: true },
    url: '/books',
  })
})

test('method override registered first: a version twin has its POST twin, routed once', async (t) => {
  const app = Fastify()
  await app.register(restwellMethodOverride)
  await app.register(restwellVersioning)
  app.patch('/v1/books/:id', echo('v1 patch'))
  app.patch('/v2/books/:id', echo('v2 patch'))
  const seen: string[] = []
  app.addHook('onRequest', async (request) => {
    seen.push(`${request.method} ${request.url}`)
  })
  const res = await app.inject({ method: 'POST', url: '/books/1?_method=PATCH&version=1' })
  t.match(res.json(), { served: 'v1 patch', apiVersion: 1 })
  t.same(seen, ['PATCH /books/1?version=1'])
  t.match((await app.inject({ method: 'PATCH', url: '/books/1' })).json(), { served: 'v2 patch' })
  t.match((await app.inject({ method: 'POST', url: '/v1/books/1?_method=PATCH' })).json(), {
    served: 'v1 patch',
  })
})
