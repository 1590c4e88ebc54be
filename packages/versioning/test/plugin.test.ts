import { httpErrors, restwellErrors } from '@restwell/errors'
import fc from 'fast-check'
import Fastify, { type FastifyInstance, type FastifyRequest, type onSendHookHandler } from 'fastify'
import { test } from 'tap'
import { restwellMethodOverride } from '@restwell/method-override'
import { restwellMethods } from '@restwell/methods'
import { restwellReroute } from '@restwell/reroute'
import {
  API_VERSIONS,
  restwellVersioning,
  type VersioningOptions,
  versioned,
} from '../src/index.js'
import { rawGet } from '../../../test/helpers/raw-http.js'

const echo = (version: string) => async (request: FastifyRequest) => ({
  served: version,
  apiVersion: request.apiVersion ?? null,
  method: request.method,
  url: request.url,
  query: request.query,
})

/** Books in v1 and v2, authors in v1 only, an unversioned /health and a /legacy with a v2 twin. */
async function build(
  options: VersioningOptions = {},
  before?: (app: FastifyInstance) => Promise<void>,
): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  if (before) await before(app)
  await app.register(restwellVersioning, options)
  await app.register(
    versioned(1, async (v1) => {
      v1.get('/books', echo('v1'))
      v1.get('/books/:id', echo('v1'))
      v1.post('/books', echo('v1'))
      v1.get('/authors', echo('v1'))
    }),
  )
  await app.register(
    versioned(2, async (v2) => {
      v2.get('/books', echo('v2'))
      v2.get('/books/:id', echo('v2'))
      v2.delete('/books/:id', async (_request, reply) => reply.code(204).send())
      v2.get('/legacy', echo('v2'))
      v2.get('/linked', async (_request, reply) => {
        reply.header('link', '</v2/linked?page=2>; rel="next"').header('vary', 'Origin')
        return { ok: true }
      })
      v2.get('/quiet', { config: { versioning: false } }, echo('v2'))
      v2.get('/', echo('v2 root'))
    }),
  )
  app.get('/health', echo('none'))
  app.get('/legacy', echo('none'))
  return app
}

test('API-Version on 2xx/3xx only: an error from a versioned route does not state it', async (t) => {
  const app = await build({}, async (instance) => {
    instance.addHook('onRequest', async (request) => {
      if (request.headers.authorization === undefined && request.url.includes('/books/')) {
        throw httpErrors.unauthorized('no token')
      }
    })
  })
  const refused = await app.inject('/v1/books/7')
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['api-version'], undefined)
  const unknown = await app.inject('/v1/nothing/7')
  t.same(
    [unknown.statusCode, unknown.headers['api-version']],
    [404, undefined],
    'as on an unknown path',
  )
  const ok = await app.inject({ url: '/v1/books/7', headers: { authorization: 'x' } })
  t.equal(ok.headers['api-version'], '1')
})

test('API-Version is removed from an error a later step makes of a 2xx (a 416, a 412)', async (t) => {
  const app = await build()
  // After versioning's onRoute hook: this route's send hook runs after versioning's step, as
  // conditional's does under the umbrella.
  app.addHook('onRoute', (route) => {
    const refuse: onSendHookHandler = async (request, reply) => {
      if (request.headers.range !== undefined && reply.statusCode === 200) {
        throw httpErrors.rangeNotSatisfiable('no such range')
      }
    }
    route.onSend = [...[route.onSend ?? []].flat(), refuse]
  })
  await app.register(versioned(1, async (v1) => v1.get('/ranged', echo('v1'))))
  const refused = await app.inject({ url: '/v1/ranged', headers: { range: 'bytes=900-' } })
  t.equal(refused.statusCode, 416)
  t.equal(refused.headers['api-version'], undefined)
  const ok = await app.inject('/v1/ranged')
  t.same([ok.statusCode, ok.headers['api-version']], [200, '1'])
})

test('URL prefix: /v<N>/ serves that version and states it', async (t) => {
  const app = await build()
  const res = await app.inject('/v1/books')
  t.equal(res.statusCode, 200)
  t.match(res.json(), { served: 'v1', apiVersion: 1 })
  t.equal(res.headers['api-version'], '1')
  t.equal(res.headers.vary, 'Accept', 'a versioned Accept would change the media type: Vary')
  t.match(res.headers['content-type'], /^application\/json/)
})

test('Accept: application/vnd.api.v<N>+json routes an unprefixed request to that version', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/books/3?x=1',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.equal(res.statusCode, 200)
  t.match(
    res.json(),
    { served: 'v1', apiVersion: 1, url: '/books/3?x=1', query: { x: '1' } },
    "v1's unprefixed twin: the handler sees the URL the client sent",
  )
  t.equal(res.headers['content-type'], 'application/vnd.api.v1+json; charset=utf-8')
  t.equal(res.headers['api-version'], '1')
  t.equal(res.headers.vary, 'Accept')
  const prefixed = await app.inject({
    url: '/v2/books',
    headers: { accept: 'Application/VND.api.v2+JSON' },
  })
  t.equal(prefixed.headers['content-type'], 'application/vnd.api.v2+json; charset=utf-8')
  t.equal(prefixed.headers.vary, 'Accept', 'the header carried it: Vary')
  const root = await app.inject({
    url: '/?a=b',
    headers: { accept: 'application/vnd.api.v2+json' },
  })
  t.match(root.json(), { served: 'v2 root', url: '/?a=b' })
  const bare = await app.inject({ url: '/', headers: { accept: 'application/vnd.api.v2+json' } })
  t.match(bare.json(), { served: 'v2 root', url: '/' })
})

test('Accept q-values: the best supported version wins; other types fall back to the default', async (t) => {
  const app = await build()
  const best = await app.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.v1+json;q=0.5, application/vnd.api.v2+json' },
  })
  t.equal(best.json().served, 'v2')
  const tie = await app.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.v2+json;q=0.8, application/vnd.api.v1+json;q=0.8' },
  })
  t.equal(tie.json().served, 'v2', 'equal q: the higher version')
  const fallback = await app.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.v9+json, application/json;q=0.1' },
  })
  t.equal(fallback.statusCode, 200)
  t.equal(fallback.json().served, 'v2', 'v9 unknown but JSON acceptable: the default version')
  t.match(fallback.headers['content-type'], /^application\/json/)
  t.equal(fallback.headers.vary, 'Accept')
  const badQ = await app.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.v1+json;q=2, application/vnd.api.v1+json;q=0.3' },
  })
  t.equal(badQ.json().served, 'v1', 'a malformed q skips that range only')
  const plain = await app.inject({ url: '/books', headers: { accept: 'application/vnd.api+json' } })
  t.equal(plain.json().served, 'v2', 'JSON:API media type is not a version carrier')
})

test('?version=<N> routes too, and is kept in the query', async (t) => {
  const app = await build()
  const res = await app.inject('/books?version=1')
  t.match(res.json(), { served: 'v1', url: '/books?version=1', query: { version: '1' } })
  t.match(res.headers['content-type'], /^application\/json/)
  const same = await app.inject('/v1/books?version=1&version=1')
  t.equal(same.json().served, 'v1')
})

test('carriers that name no usable version leave the choice to the others', async (t) => {
  const app = await build()
  const inName = await app.inject('/books?myversion=1')
  t.equal(inName.statusCode, 200)
  t.equal(inName.json().served, 'v2', "the parameter's name inside another's carries nothing")
  const noNumber = await app.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.vx+json' },
  })
  t.equal(noNumber.statusCode, 200)
  t.equal(noNumber.json().served, 'v2', 'a vendor type naming no version: the default one')
  const pinned = await app.inject({
    url: '/v1/books',
    headers: { accept: 'application/vnd.api.v9+json, application/json' },
  })
  t.equal(pinned.statusCode, 200, 'JSON is acceptable too: the prefix decides')
  t.equal(pinned.json().served, 'v1')
  t.match(pinned.headers['content-type'], /^application\/json/, 'the plain type, not v9')
})

test('default version: an unprefixed path without a route is served by the default version', async (t) => {
  const app = await build()
  const res = await app.inject('/books/5')
  t.match(res.json(), { served: 'v2', apiVersion: 2, url: '/books/5' })
  t.equal(res.headers['api-version'], '2')
  t.equal(res.headers.vary, 'Accept', 'an unprefixed URL varies by Accept')
  const chosen = await build({ defaultVersion: 1 })
  t.equal((await chosen.inject('/books')).json().served, 'v1')
  const off = await build({ routeToDefault: false })
  t.equal((await off.inject('/books')).statusCode, 404)
  const missing = await app.inject('/nothing-here')
  t.equal(missing.statusCode, 404, 'the default version has no such route either: 404')
})

test('an unprefixed resource asked with another method is its own 405, not the default version', async (t) => {
  const app = await build()
  await app.register(restwellMethods)
  app.options('*', async () => 'a catch-all OPTIONS route, as @fastify/cors adds')
  t.equal((await app.inject('/books/5')).json().served, 'v2', 'OPTIONS * makes no resource')
  const res = await app.inject({ method: 'PUT', url: '/health' })
  t.equal(res.statusCode, 405, 'PUT /health: /health exists for GET')
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(res.json().error.message.includes('/v2'), false)
  const versioned = await app.inject({ method: 'DELETE', url: '/books/5' })
  t.equal(versioned.statusCode, 204, 'no unprefixed /books/5: the default version serves it')
})

test('unversioned routes: served as registered; a version twin wins when one is asked for', async (t) => {
  const app = await build()
  const health = await app.inject({
    url: '/health',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.match(health.json(), { served: 'none', apiVersion: null, from: null })
  t.equal(health.headers['api-version'], undefined)
  t.equal((await app.inject('/legacy')).json().served, 'none', 'no carrier: the unprefixed route')
  const twin = await app.inject('/legacy?version=2')
  t.equal(twin.json().served, 'v2', 'asked for v2, and /v2/legacy exists')
  t.equal(
    (await app.inject('/legacy?version=1')).json().served,
    'none',
    'no /v1/legacy: unprefixed',
  )
  const unknown = await app.inject('/health?version=9')
  t.equal(unknown.statusCode, 400, 'an unknown version is refused even on an unversioned route')
})

test('carriers that disagree: 400 CONFLICTING_VERSIONS, never a silent choice', async (t) => {
  const app = await build()
  const cases: [string, Record<string, string>, string][] = [
    ['/v1/books?version=2', {}, 'querystring/version'],
    ['/v1/books', { accept: 'application/vnd.api.v2+json' }, 'headers/accept'],
    ['/books?version=1', { accept: 'application/vnd.api.v2+json' }, 'headers/accept'],
    ['/books?version=1&version=2', {}, 'querystring/version'],
    [
      '/v1/books',
      { accept: 'application/vnd.api.v1+json;q=0, application/json' },
      'headers/accept',
    ],
  ]
  for (const [url, headers, field] of cases) {
    const res = await app.inject({ url, headers })
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().error.code, 'CONFLICTING_VERSIONS')
    t.equal(res.json().error.details[0].field, field)
  }
  const agree = await app.inject({
    url: '/v1/books?version=1',
    headers: { accept: 'application/vnd.api.v2+json, application/vnd.api.v1+json;q=0.2' },
  })
  t.equal(agree.statusCode, 200, 'Accept lists the pinned version: they agree')
  t.equal(agree.headers['content-type'], 'application/vnd.api.v1+json; charset=utf-8')
})

test('an app with no /v<N> routes says it serves no version, without an empty Accept', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellVersioning)
  app.get('/books', async () => [])
  t.teardown(() => app.close())
  const byAccept = await app.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.v2+json' },
  })
  t.equal(byAccept.statusCode, 406)
  t.equal(
    byAccept.json().error.message,
    'Version 2 in Accept is not supported; supported versions: none',
  )
  t.equal(byAccept.headers.accept, undefined)
  const byQuery = await app.inject('/books?version=2')
  t.equal(byQuery.statusCode, 400)
  t.match(byQuery.json().error.message, /; supported versions: none$/)
  t.equal((await app.inject('/books')).statusCode, 200)
})

test('unknown versions: 404 by prefix, 406 by Accept, 400 by query, naming the supported ones', async (t) => {
  const app = await build()
  const byPrefix = await app.inject('/v9/books')
  t.equal(byPrefix.statusCode, 404)
  t.equal(byPrefix.json().error.code, 'UNKNOWN_VERSION')
  t.match(byPrefix.json().error.message, /supported versions: 1, 2/)
  t.same(byPrefix.json().error.details[0].field, 'path/0', 'the first segment of the path')
  const byAccept = await app.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.v9+json' },
  })
  t.equal(byAccept.statusCode, 406)
  t.equal(byAccept.json().error.code, 'UNKNOWN_VERSION')
  t.equal(byAccept.headers.accept, 'application/vnd.api.v1+json, application/vnd.api.v2+json')
  t.equal(
    byAccept.json().error.message,
    'Version 9 in Accept is not supported; supported versions: 1, 2',
  )
  t.same(byAccept.json().error.details, [
    { field: 'headers/accept', message: 'supported versions: 1, 2', code: 'UNKNOWN_VERSION' },
  ])
  const pinnedAccept = await app.inject({
    url: '/v1/books',
    headers: { accept: 'application/vnd.api.v9+json' },
  })
  t.equal(pinnedAccept.statusCode, 406)
  t.equal(
    pinnedAccept.json().error.message,
    'Version 9 in Accept is not supported; supported versions: 1, 2',
  )
  const refused = await app.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.v2+json;q=0' },
  })
  t.equal(refused.statusCode, 406, 'every version refused')
  t.equal(
    refused.json().error.message,
    'Accept accepts none of the versions it names (q=0); supported versions: 1, 2',
  )
  const pinnedRefused = await app.inject({
    url: '/v1/books',
    headers: { accept: 'application/vnd.api.v9+json;q=0' },
  })
  t.equal(
    pinnedRefused.json().error.message,
    'Accept accepts none of the versions it names (q=0); supported versions: 1, 2',
  )
  const several = await app.inject({
    url: '/books',
    headers: {
      accept:
        'application/vnd.api.v9+json, application/vnd.api.v2+json;q=0, application/vnd.api.v3+json;q=0.5, application/vnd.api.v9+json;q=0.1',
    },
  })
  t.equal(several.statusCode, 406)
  t.equal(
    several.json().error.message,
    'Versions 9, 3 in Accept are not supported; supported versions: 1, 2',
    'each asked version once, in header order; the refused v2 is not named',
  )
  const many = await app.inject({
    url: '/v2/books',
    headers: {
      accept: Array.from({ length: 12 }, (_, i) => `application/vnd.api.v${i + 10}+json`).join(),
    },
  })
  t.equal(
    many.json().error.message,
    'Versions 10, 11, 12, 13, 14, 15, 16, 17, … in Accept are not supported; supported versions: 1, 2',
    'at most eight named',
  )
  for (const url of [
    '/books?version=9',
    '/books?version=abc',
    '/books?version=01',
    '/books?version',
  ]) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().error.code, 'UNKNOWN_VERSION')
    t.match(res.json().error.details[0], {
      field: 'querystring/version',
      message: 'supported versions: 1, 2',
    })
  }
  t.equal(
    (await app.inject('/books?version=9')).json().error.message,
    'Version "9" is not supported; supported versions: 1, 2',
  )
  t.equal(byPrefix.json().error.message, 'Version 9 is not supported; supported versions: 1, 2')
  const notVersion = await app.inject('/v01/books')
  t.equal(notVersion.statusCode, 404)
  t.equal(notVersion.json().error.code, 'NOT_FOUND', '/v01 is not a version prefix')
})

test('moved paths: 301 for GET and HEAD, 308 otherwise, query kept', async (t) => {
  const app = await build({ moved: { '/v1/people': '/v2/persons/', '/v0': '/v1' } })
  const get = await app.inject('/v1/people/3?x=1&y=2')
  t.equal(get.statusCode, 301)
  t.equal(get.headers.location, '/v2/persons/3?x=1&y=2')
  const head = await app.inject({ method: 'HEAD', url: '/v1/people' })
  t.equal(head.statusCode, 301)
  t.equal(head.headers.location, '/v2/persons')
  const post = await app.inject({ method: 'POST', url: '/v1/people' })
  t.equal(post.statusCode, 308)
  const retiredVersion = await app.inject('/v0/books?a=1')
  t.equal(retiredVersion.statusCode, 301, 'a moved unknown version redirects instead of 404')
  t.equal(retiredVersion.headers.location, '/v1/books?a=1')
  const viaAccept = await app.inject({
    url: '/people/7',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.equal(viaAccept.statusCode, 301, 'rerouted to /v1/people/7, which moved')
  t.equal(viaAccept.headers.location, '/v2/persons/7')
  t.equal((await app.inject('/v1/peoples')).statusCode, 404, 'segment boundaries respected')
  t.equal((await app.inject('/v1/books')).statusCode, 200)
})

test('a path moved to / redirects within the site, never to a //host Location', async (t) => {
  const app = await build({ moved: { '/old': '/' } })
  const cases: [string, string][] = [
    ['/old', '/'],
    ['/old/books', '/books'],
    ['/old/evil.example/x', '/evil.example/x'],
    ['/old//evil.example/x', '/evil.example/x'],
    ['/old/\\evil.example/x', '/evil.example/x'],
    ['/old/?q=1', '/?q=1'],
    ['/old?next=//evil.example', '/?next=//evil.example'],
  ]
  for (const [url, location] of cases) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 301, url)
    t.equal(res.headers.location, location, url)
  }
  const followed = await app.inject('/old/books')
  t.equal((await app.inject(followed.headers.location as string)).json().served, 'v2')
  const piece = fc.constantFrom(
    '/',
    '\\',
    '\t',
    'old',
    'books',
    'evil.example',
    '.',
    '%2F',
    '?',
    '=',
  )
  await fc.assert(
    fc.asyncProperty(fc.array(piece, { maxLength: 10 }), async (pieces) => {
      // (`inject` resolves dot segments first: `/old/..` is `/`, no redirect.)
      const res = await app.inject(`/old/${pieces.join('')}`)
      if (res.headers.location === undefined) return res.statusCode !== 301
      // As a browser reads it (WHATWG URL removes every tab, LF and CR).
      const location = String(res.headers.location).replace(/[\t\n\r]/g, '')
      return location.startsWith('/') && !/^\/[/\\]/.test(location)
    }),
    { numRuns: 300 },
  )
})

test('a moved source or target starting with // or /\\ is refused at registration', async (t) => {
  const refused: Record<string, string>[] = [
    { '/old': '//evil.example/x' },
    { '/old': '/\\evil.example/x' },
    { '/old': '//' },
    { '//old': '/v2' },
    { '/\\old': '/v2' },
  ]
  for (const moved of refused) {
    await t.rejects(
      async () => Fastify().register(restwellVersioning, { moved }),
      { name: 'OptionsError', message: /option "moved\./ },
      JSON.stringify(moved),
    )
  }
  await Fastify().register(restwellVersioning, { moved: { '/': '/', '/a/': '/b//c' } })
})

test('an unprefixed moved path redirects instead of going to the default version', async (t) => {
  const app = await build({ moved: { '/authors': '/v1/authors' } })
  const res = await app.inject('/authors?sort=name')
  t.equal(res.statusCode, 301)
  t.equal(res.headers.location, '/v1/authors?sort=name')
})

test('generated URLs with a /v<N> prefix drop ?version= (they would answer 400 CONFLICTING_VERSIONS)', async (t) => {
  const app = await build(
    {
      moved: { '/v1/people': '/v2/persons', '/v1/old': '/v1/books', '/v1/gone': '/elsewhere' },
      retired: { 1: { deprecation: '2024-01-01', successor: 2 } },
    },
    async (app) => {
      await app.register(restwellMethodOverride)
    },
  )
  app.get('/v2/persons/:id', echo('v2'))
  const byQuery = await app.inject('/books/7?a=1&version=1&b=%20')
  t.equal(byQuery.statusCode, 200)
  t.equal(byQuery.headers.link, '</v2/books/7?a=1&b=%20>; rel="successor-version"')
  const next = /<([^>]+)>/.exec(String(byQuery.headers.link))?.[1] as string
  t.equal((await app.inject(next)).statusCode, 200, 'the successor link answers')
  const escaped = await app.inject('/books/7?version=1&%76ersion=1')
  t.equal(escaped.headers.link, '</v2/books/7>; rel="successor-version"', 'an escaped name too')
  const prefixed = await app.inject('/v1/books/7?version=1&x=%25')
  t.equal(prefixed.headers.link, '</v2/books/7?x=%25>; rel="successor-version"')
  const moved = await app.inject('/people/7?version=1&x=1')
  t.equal(moved.statusCode, 301)
  t.equal(moved.headers.location, '/v2/persons/7?x=1')
  t.equal((await app.inject(moved.headers.location as string)).statusCode, 200, 'Location answers')
  const movedPrefixed = await app.inject('/v1/people/7?version=1')
  t.equal(movedPrefixed.headers.location, '/v2/persons/7')
  const sameVersion = await app.inject('/old/3?version=1')
  t.equal(sameVersion.headers.location, '/v1/books/3', 'dropped even when it would agree')
  const unversioned = await app.inject('/v1/gone/3?version=1')
  t.equal(unversioned.headers.location, '/elsewhere/3?version=1', 'no prefix: query kept as sent')
  const overridden = await app.inject({
    method: 'POST',
    url: '/people/7?_method=PUT&version=1',
  })
  t.equal(overridden.statusCode, 308)
  t.equal(overridden.headers.location, '/v2/persons/7?_method=PUT', 'a 308 replays the client URL')
  const queryOff = await build({
    carriers: { query: false },
    moved: { '/v1/people': '/v2/persons' },
    retired: { 1: { deprecation: '2024-01-01', successor: 2 } },
  })
  t.equal(
    (await queryOff.inject('/v1/people/7?version=1')).headers.location,
    '/v2/persons/7?version=1',
    'not a carrier: an ordinary parameter',
  )
  t.equal(
    (await queryOff.inject('/v1/books/7?version=1')).headers.link,
    '</v2/books/7?version=1>; rel="successor-version"',
  )
})

test('a moved 301 the Accept version took part in varies on Accept', async (t) => {
  const app = await build({ moved: { '/v1/people': '/v2/persons', '/authors': '/v1/authors' } })
  const viaAccept = await app.inject({
    url: '/people/7',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.equal(viaAccept.statusCode, 301)
  t.equal(viaAccept.headers.vary, 'Accept', 'Accept decided the version: RFC 9110 §12.5.5')
  const agreeing = await app.inject({
    url: '/v1/people/7',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.equal(agreeing.headers.vary, 'Accept', 'Accept agreed with the prefix (another would be 400)')
  const byQuery = await app.inject('/people/7?version=1')
  t.equal(byQuery.headers.vary, 'Accept', 'unprefixed: a versioned Accept would have decided')
  const unprefixed = await app.inject('/authors')
  t.equal(unprefixed.statusCode, 301)
  t.equal(unprefixed.headers.vary, 'Accept', 'Accept v1 would have served /v1/authors instead')
  const prefixed = await app.inject('/v1/people/7')
  t.equal(prefixed.statusCode, 301)
  t.equal(prefixed.headers.vary, undefined, 'the URL alone decided')
  const off = await build({ carriers: { accept: false }, moved: { '/authors': '/v1/authors' } })
  t.equal((await off.inject('/authors')).headers.vary, undefined, 'Accept carrier off')
})

test('API_VERSIONS contract: the versions whose JSON a request may be answered in', async (t) => {
  t.equal(API_VERSIONS, Symbol.for('restwell.api-versions'), 'the key @restwell/negotiation reads')
  const seen: ReadonlySet<number>[] = []
  const app = await build({}, async (app) => {
    app.addHook('preHandler', async (request) => {
      seen.push((request as unknown as { [API_VERSIONS]: ReadonlySet<number> })[API_VERSIONS])
    })
  })
  await app.inject('/v1/books')
  await app.inject({ url: '/books', headers: { accept: 'application/vnd.api.v1+json' } })
  await app.inject('/books?version=2')
  await app.inject('/health')
  await app.inject('/v1/authors')
  t.same(
    seen.map((set) => [...set]),
    [[1], [1], [2], [1, 2], [1]],
    '{N} on a /v<N> route; every supported version on an unversioned one',
  )
  t.equal(seen[0], seen[1], 'the same set object for the same version')
  t.equal(seen[0], seen[4])
})

test('retired versions: Deprecation (RFC 9745), Sunset (RFC 8594) and successor Link', async (t) => {
  const app = await build({
    retired: {
      1: {
        deprecation: '2024-01-01T00:00:00Z',
        sunset: new Date(Date.UTC(2026, 11, 31)),
        successor: 2,
        link: 'https://example.com/deprecation',
      },
      2: { deprecation: new Date(Date.UTC(2030, 0, 1)) },
    },
  })
  const res = await app.inject('/v1/books/1?x=1')
  t.equal(res.headers.deprecation, '@1704067200')
  t.equal(res.headers.sunset, 'Thu, 31 Dec 2026 00:00:00 GMT')
  t.equal(
    res.headers.link,
    '</v2/books/1?x=1>; rel="successor-version", <https://example.com/deprecation>; rel="deprecation"',
  )
  const v2 = await app.inject('/v2/linked')
  t.equal(v2.headers.deprecation, '@1893456000')
  t.equal(v2.headers.sunset, undefined)
  t.equal(v2.headers.link, '</v2/linked?page=2>; rel="next"', 'an existing Link is kept')
  const viaAccept = await app.inject({
    url: '/v2/linked',
    headers: { accept: 'application/vnd.api.v2+json' },
  })
  t.equal(viaAccept.headers.vary, 'Origin, Accept', 'Vary is appended to')
})

test('options: carriers switch off, names change, versions and default are explicit', async (t) => {
  const noPrefix = await build({ carriers: { prefix: false } })
  t.equal((await noPrefix.inject('/v1/books')).statusCode, 404, 'clients may not use the prefix')
  t.equal((await noPrefix.inject('/books?version=1')).json().served, 'v1')
  t.equal((await noPrefix.inject('/health')).statusCode, 200)

  const noAccept = await build({ carriers: { accept: false } })
  const ignored = await noAccept.inject({
    url: '/books',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.equal(ignored.json().served, 'v2')
  t.equal(ignored.headers.vary, undefined, 'Accept never decides: no Vary')

  const noQuery = await build({ carriers: { query: false } })
  t.equal((await noQuery.inject('/books?version=1')).json().served, 'v2')

  const named = await build({ queryParameter: 'api', responseHeader: 'X-Version' })
  const res = await named.inject('/books?api=1&version=2')
  t.equal(res.json().served, 'v1')
  t.equal(res.headers['x-version'], '1')
  t.equal(res.headers['api-version'], undefined)

  const silent = await build({ responseHeader: false })
  t.equal((await silent.inject('/v1/books')).headers['api-version'], undefined)

  await t.rejects(
    build({ versions: [1] }),
    /route GET \/v2\/books serves version 2, which `versions` does not list; add it there/,
    'versioned(2, …) where `versions` leaves 2 out: a mistake, named',
  )
  const only1 = Fastify()
  await only1.register(restwellVersioning, { versions: [1] })
  only1.get('/v1/books', echo('v1'))
  only1.get('/v2/books', echo('v2'))
  const v2 = await only1.inject('/v2/books')
  t.match(v2.json(), { served: 'v2', apiVersion: null }, '/v2 is not a version here, just a path')
  t.equal(v2.headers['api-version'], undefined)
  t.equal((await only1.inject('/books')).json().served, 'v1')
  t.equal((await only1.inject('/books?version=2')).statusCode, 400)

  const quiet = await build()
  const q = await quiet.inject({
    url: '/quiet',
    headers: { accept: 'application/vnd.api.v2+json' },
  })
  t.equal(q.json().apiVersion, 2)
  t.equal(q.headers['api-version'], undefined, 'config.versioning: false sends no version headers')
})

test('bad options and configurations are refused', async (t) => {
  const bad: [VersioningOptions, RegExp][] = [
    [{ versions: [1], defaultVersion: 2 }, /option "defaultVersion" must be one of versions/],
    [
      { retired: { 1: { deprecation: 'not a date' } } },
      /option "retired.1.deprecation" is not a date/,
    ],
    [
      { retired: { 1: { deprecation: '2024-01-01', sunset: 'later' } } },
      /"retired.1.sunset" is not a date/,
    ],
    [{ moved: { 'no-slash': '/v2' } }, /option "moved.no-slash"/],
    [{ retired: { v1: { deprecation: '2024-01-01' } } }, /option "retired.v1"/],
    [{ carriers: { header: true } } as never, /option "carriers.header"/],
  ]
  for (const [options, message] of bad) {
    const app = Fastify()
    await t.rejects(async () => app.register(restwellVersioning, options), message)
  }
  await t.rejects(
    build({ defaultVersion: 7 }).then((app) => app.ready()),
    /option "defaultVersion" 7 has no \/v7 routes/,
  )
  await t.rejects(
    build({ moved: { '/v0': '/v1' } }, async (app) => {
      await app.register(restwellMethods)
    }),
    /before @restwell\/methods/,
  )
  // The shared hook is early enough, but the moved-path hook would still run after 405s.
  await t.rejects(
    build({ moved: { '/v0': '/v1' } }, async (app) => {
      await app.register(restwellReroute)
      await app.register(restwellMethods)
    }),
    /@restwell\/versioning: register it before @restwell\/methods/,
  )
})

test('lifecycle options that break RFC 9745 are refused at registration', async (t) => {
  await t.rejects(
    async () =>
      Fastify().register(restwellVersioning, {
        retired: { 1: { deprecation: '2025-06-01', sunset: '2024-01-01' } },
      }),
    {
      name: 'OptionsError',
      option: 'retired.1.sunset',
      message: /is earlier than its deprecation .*RFC 9745/,
    },
  )
  await t.rejects(
    async () =>
      Fastify().register(restwellVersioning, {
        retired: { 1: { deprecation: '2025-01-01', successor: 1 } },
      }),
    { name: 'OptionsError', option: 'retired.1.successor', message: /another version than 1/ },
  )
  const same = await build({
    retired: { 1: { deprecation: '2025-01-01', sunset: new Date(Date.UTC(2025, 0, 1)) } },
  })
  const res = await same.inject('/v1/books')
  t.equal(res.headers.deprecation, '@1735689600', 'a sunset equal to the deprecation is fine')
  t.equal(res.headers.sunset, 'Wed, 01 Jan 2025 00:00:00 GMT')
})

test('the default version and successors must have routes (checked at ready)', async (t) => {
  const ready = (options: VersioningOptions) => build(options).then((app) => app.ready())
  await t.rejects(ready({ versions: [1, 2, 3] }), {
    name: 'OptionsError',
    option: 'versions',
    message:
      /option "versions" makes 3 \(the highest\) the default version, but it has no \/v3 routes.*versions with routes: 1, 2/,
  })
  await t.rejects(ready({ retired: { 1: { deprecation: '2025-01-01', successor: 8 } } }), {
    name: 'OptionsError',
    option: 'retired.1.successor',
    message: /8 is not a served version \(no \/v8 routes\)/,
  })
  await t.rejects(
    ready({
      versions: [1, 2, 3],
      defaultVersion: 2,
      retired: { 1: { deprecation: '2025-01-01', successor: 3 } },
    }),
    { option: 'retired.1.successor', message: /3 is not a served version/ },
    'listed in versions is not enough',
  )
  await t.rejects(
    async () => {
      const app = Fastify()
      await app.register(restwellVersioning, { versions: [5] })
      await app.ready()
    },
    { option: 'versions', message: /versions with routes: none/ },
  )
  // A listed version without routes is fine when it is neither the default nor a successor.
  const planned = await build({
    versions: [1, 2, 3],
    defaultVersion: 2,
    retired: { 1: { deprecation: '2025-01-01', successor: 2 } },
  })
  await planned.ready()
  const books = await planned.inject('/books')
  t.equal(books.json().served, 'v2')
  t.equal((await planned.inject('/v1/books')).headers.link, '</v2/books>; rel="successor-version"')
})

test('no versioned routes at all: the plugin stays out of the way', async (t) => {
  const app = Fastify()
  await app.register(restwellVersioning)
  app.get('/things', async (request) => ({ v: request.apiVersion ?? null }))
  t.same((await app.inject('/things')).json(), { v: null })
  t.equal((await app.inject('/other')).statusCode, 404)
})

test('override + versioning together: routed once, then 405 with Allow', async (t) => {
  const seen: string[] = []
  const app = await build({}, async (app) => {
    await app.register(restwellMethodOverride)
  })
  await app.register(restwellMethods)
  app.addHook('onRequest', async (request) => {
    seen.push(`${request.method} ${request.url}`)
  })
  const res = await app.inject({
    method: 'POST',
    url: '/books/7?_method=DELETE&keep=1',
    headers: { accept: 'application/vnd.api.v2+json' },
  })
  t.equal(res.statusCode, 204)
  t.same(seen, ['DELETE /books/7?keep=1'], 'hooks ran once, with the method the request stands for')
  const byQuery = await app.inject({ method: 'POST', url: '/books/7?version=2&_method=DELETE' })
  t.equal(byQuery.statusCode, 204)
  const notAllowed = await app.inject({
    method: 'POST',
    url: '/books/7?_method=DELETE',
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.equal(notAllowed.statusCode, 405, 'v1 books cannot be deleted')
  t.equal(notAllowed.headers.allow, 'GET, HEAD, OPTIONS')
  const viaDefault = await app.inject({ method: 'POST', url: '/books/7?_method=DELETE' })
  t.equal(viaDefault.statusCode, 204, 'override, then the default version')
})

test('over a real socket: Accept reroute, query, redirect and errors', async (t) => {
  const app = await build(
    {
      moved: { '/v1/people': '/v2/persons' },
      retired: {
        1: { deprecation: '2024-01-01T00:00:00Z', sunset: '2027-01-01T00:00:00Z', successor: 2 },
      },
    },
    async (app) => {
      await app.register(restwellMethodOverride)
    },
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const accept = await fetch(`${base}/books/1`, {
    headers: { accept: 'application/vnd.api.v1+json' },
  })
  t.equal(accept.status, 200)
  t.equal(accept.headers.get('content-type'), 'application/vnd.api.v1+json; charset=utf-8')
  t.equal(accept.headers.get('vary'), 'Accept')
  t.equal(accept.headers.get('api-version'), '1')
  t.equal(((await accept.json()) as { served: string }).served, 'v1')
  const query = await fetch(`${base}/books?version=2`)
  t.equal(((await query.json()) as { served: string }).served, 'v2')
  const moved = await fetch(`${base}/v1/people/2?x=1`, { redirect: 'manual' })
  t.equal(moved.status, 301)
  t.equal(moved.headers.get('location'), '/v2/persons/2?x=1')
  const both = await fetch(`${base}/books/3?_method=DELETE`, {
    method: 'POST',
    headers: { accept: 'application/vnd.api.v2+json' },
  })
  t.equal(both.status, 204)
  const conflict = await fetch(`${base}/v1/books?version=2`)
  t.equal(conflict.status, 400)
  t.equal(
    ((await conflict.json()) as { error: { code: string } }).error.code,
    'CONFLICTING_VERSIONS',
  )
  const unknown = await fetch(`${base}/books`, {
    headers: { accept: 'application/vnd.api.v7+json' },
  })
  t.equal(unknown.status, 406)
  t.equal(unknown.headers.get('accept'), 'application/vnd.api.v1+json, application/vnd.api.v2+json')
  const unknownPrefix = await fetch(`${base}/v7/books`)
  t.equal(unknownPrefix.status, 404)
  t.equal(
    ((await unknownPrefix.json()) as { error: { code: string } }).error.code,
    'UNKNOWN_VERSION',
  )
  const byDefault = await fetch(`${base}/books/4`)
  t.equal(byDefault.headers.get('api-version'), '2')
  t.match(await byDefault.json(), { served: 'v2', apiVersion: 2 })
  const retired = await fetch(`${base}/v1/books/4`)
  t.equal(retired.headers.get('deprecation'), '@1704067200')
  t.equal(retired.headers.get('sunset'), 'Fri, 01 Jan 2027 00:00:00 GMT')
  t.equal(retired.headers.get('link'), '</v2/books/4>; rel="successor-version"')
})

test('existing headers and route hooks are kept: Vary, Link lists, onSend hooks, method lists', async (t) => {
  const app = Fastify()
  await app.register(restwellVersioning, {
    retired: { 3: { deprecation: '2024-01-01', successor: 4 } },
  })
  const marks: string[] = []
  app.route({
    method: ['GET', 'POST'],
    url: '/v3/pair',
    onSend: async (_request, reply, payload) => {
      marks.push('route hook')
      reply.header('vary', 'accept')
      return payload
    },
    handler: async (_request, reply) => {
      reply.header('link', ['</a>; rel="a"', '</b>; rel="b"'])
      return { ok: true }
    },
  })
  app.get(
    '/v3/star',
    {
      onSend: [
        async (_request, reply, payload) => {
          reply.header('vary', '*')
          return payload
        },
      ],
    },
    async () => ({ ok: true }),
  )
  app.get('/v4', async (request) => ({ v: request.apiVersion }))
  const pair = await app.inject({
    method: 'POST',
    url: '/v3/pair',
    headers: { accept: 'application/vnd.api.v3+json' },
  })
  t.equal(pair.headers.vary, 'Accept', 'no duplicate Accept in Vary, one spelling')
  t.equal(pair.headers.link, '</a>; rel="a", </b>; rel="b", </v4/pair>; rel="successor-version"')
  t.same(marks, ['route hook'])
  const star = await app.inject({
    url: '/v3/star',
    headers: { accept: 'application/vnd.api.v3+json' },
  })
  t.equal(star.headers.vary, '*')
  const root = await app.inject({ url: '/', headers: { accept: 'application/vnd.api.v4+json' } })
  t.same(root.json(), { v: 4 }, '/v4 is the twin of /')
})

test('the successor link and a moved Location are valid URI-References, whatever the client sent', async (t) => {
  const app = await build({
    moved: { '/v1/people': '/v2/persons' },
    retired: { 1: { deprecation: '2024-01-01', successor: 2 } },
  })
  app.get('/v2/persons/:id', echo('v2'))
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const raw = (target: string) => rawGet(port, target)
  const header = (response: string, name: string) =>
    new RegExp(`^${name}: (.*)$`, 'im').exec(response)?.[1]
  const successors: [string, string][] = [
    ['/v1/books?q=a>b&limit=5', '/v2/books?q=a%3Eb&limit=5'],
    ['/v1/books?q="x"', '/v2/books?q=%22x%22'],
    ['/v1/books?q=[1]&r=a{b}|c', '/v2/books?q=%5B1%5D&r=a%7Bb%7D%7Cc'],
    ['/v1/books?q=100%&r=%zz&s=%41', '/v2/books?q=100%25&r=%25zz&s=%41'],
    ['/books?q=a>b&version=1', '/v2/books?q=a%3Eb'],
  ]
  for (const [target, successor] of successors) {
    const response = await raw(target)
    t.match(response, /^HTTP\/1\.1 200 /, target)
    t.equal(header(response, 'link'), `<${successor}>; rel="successor-version"`, target)
    t.match(await raw(successor), /^HTTP\/1\.1 200 /, `${successor} answers`)
  }
  const moved: [string, string][] = [
    ['/v1/people/7?q=a>b&x="y"', '/v2/persons/7?q=a%3Eb&x=%22y%22'],
    ['/v1/people/a{b}|c?q=[1]', '/v2/persons/a%7Bb%7D%7Cc?q=%5B1%5D'],
    ['/v1/people/7?q=100%', '/v2/persons/7?q=100%25'],
  ]
  for (const [target, location] of moved) {
    const response = await raw(target)
    t.match(response, /^HTTP\/1\.1 301 /, target)
    t.equal(header(response, 'location'), location, target)
  }
})
