import { Writable } from 'node:stream'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import {
  checkRouteName,
  NamingError,
  type NamingOptions,
  resolveNamingOptions,
  resourceSegments,
  restwellNaming,
} from '../src/index.js'

const defaults = resolveNamingOptions({})
const rules = (url: string, options: NamingOptions = {}): string[] =>
  checkRouteName(url, resolveNamingOptions(options)).map((v) => `${v.rule} ${v.segment}`)

async function withLog(
  options: NamingOptions,
): Promise<{ app: FastifyInstance; warnings: Record<string, unknown>[] }> {
  const warnings: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _enc, cb) {
      const line = JSON.parse(String(chunk))
      if (line.level === 40) warnings.push(line)
      cb()
    },
  })
  const app = Fastify({ logger: { stream } })
  await app.register(restwellNaming, options)
  return { app, warnings }
}

test('paths that follow the rules pass', async (t) => {
  for (const url of [
    '/',
    '/books',
    '/books/',
    '/books/:id',
    '/books/:id/reviews',
    '/books/:bookId/reviews/:review_id',
    '/authors/:id/books/:bookId/chapters/:n',
    '/order-items/:id',
    '/people',
    '/news',
    '/v1/books/:id',
    '/v12/line-items',
    '/files/*',
    '/books/:id(^\\d+)',
  ]) {
    t.same(rules(url), [], url)
  }
})

test('collections are plural nouns, checked by an inflection library', async (t) => {
  t.same(rules('/book'), ['plural-collection book'])
  t.same(rules('/books/:id/review'), ['plural-collection review'])
  t.same(rules('/order-item'), ['plural-collection order-item'])
  t.same(rules('/status'), ['plural-collection status'])
  t.same(rules('/statuses'), [])
  t.same(rules('/children/:id/criteria'), [], 'irregular plurals are plurals')
  t.match(checkRouteName('/person', defaults)[0]?.message, /plural noun \(e\.g\. "people"\)/)
  t.same(rules('/me', { allow: ['me'] }), [], 'the allow-list accepts exceptions')
  t.same(
    rules('/user-status', { allow: ['Status'] }),
    [],
    'allow-list words match the last word too',
  )
})

test('names are lowercase words joined by hyphens', async (t) => {
  t.same(rules('/Books'), ['lowercase-hyphenated Books'])
  t.same(rules('/order_items'), ['lowercase-hyphenated order_items'])
  t.same(rules('/orderItems'), ['lowercase-hyphenated orderItems'])
  t.same(rules('/order--items'), ['lowercase-hyphenated order--items'])
  t.same(rules('/-items'), ['lowercase-hyphenated -items'])
  t.same(rules('/items-'), ['lowercase-hyphenated items-'])
  t.same(rules('/2items'), ['lowercase-hyphenated 2items'])
  t.same(rules('/oauth2-clients'), [])
  t.same(rules('/openapi.json'), ['lowercase-hyphenated openapi.json'])
})

test('collections and ids alternate: /{collection}/{id}/{sub-collection}/{sub_id}', async (t) => {
  t.same(rules('/:id'), ['alternation :id'])
  t.same(rules('/books/:id/:page'), ['alternation :page'])
  t.same(rules('/books/search'), ['alternation search', 'plural-collection search'])
  t.same(rules('/books/:id/reviews/latest'), ['alternation latest', 'plural-collection latest'])
})

test('nesting is at most 3 levels, or as configured', async (t) => {
  t.same(rules('/a-s/:a/b-s/:b/c-s/:c'), [])
  t.same(rules('/authors/:a/books/:b/chapters/:c/pages'), [
    'nesting-depth /authors/:a/books/:b/chapters/:c/pages',
  ])
  t.match(
    checkRouteName('/authors/:a/books/:b/chapters/:c/pages', defaults)[0]?.message,
    /4 collections deep; at most 3/,
  )
  t.same(rules('/authors/:a/books', { maxDepth: 1 }), ['nesting-depth /authors/:a/books'])
})

test('version prefix and configured prefixes are not resource names', async (t) => {
  t.same(resourceSegments('/api/v2/books/:id', resolveNamingOptions({ prefixes: ['/api/'] })), [
    'books',
    ':id',
  ])
  t.same(
    resourceSegments('/api/v2/books', resolveNamingOptions({ prefixes: ['/api', '/api/v2'] })),
    ['books'],
  )
  t.same(resourceSegments('/apis/books', resolveNamingOptions({ prefixes: ['/api'] })), [
    'apis',
    'books',
  ])
  t.same(resourceSegments('/x/books', resolveNamingOptions({ prefixes: ['/'] })), ['x', 'books'])
  t.same(rules('/v2/books', { versionPrefix: false }), [
    'plural-collection v2',
    'alternation books',
  ])
  t.same(
    rules('/v/books'),
    ['plural-collection v', 'alternation books'],
    '/v alone is not a version',
  )
  t.same(rules('/vx/books'), ['plural-collection vx', 'alternation books'])
})

test('a leading /api names the API, not a collection: no option needed', async (t) => {
  for (const url of ['/api', '/api/books/:id', '/api/v1/books', '/v1/api/books']) {
    t.same(rules(url), [], url)
  }
  t.same(resourceSegments('/api/v2/books/:id', defaults), ['books', ':id'])
  t.same(resourceSegments('/v2/api/books', defaults), ['books'])
  t.same(rules('/api/api'), ['plural-collection api'], 'only the first api')
  t.same(rules('/api/v1/v2'), ['plural-collection v2'], 'one version')
  t.same(rules('/books/:id/api'), ['plural-collection api'], 'api further in is a name')
  t.same(rules('/api/books', { apiPrefix: false }), ['plural-collection api', 'alternation books'])
  const { app, warnings } = await withLog({})
  app.get('/api/v1/books', async () => [])
  app.get('/api/v1/book', async () => ({}))
  await app.ready()
  t.same(
    warnings.map((w) => w.msg),
    [
      '@restwell/naming: route /api/v1/book breaks "plural-collection": "book" must be a plural noun (e.g. "books")',
    ],
  )
  await app.close()
})

test('warn mode logs each rule a route breaks, once per path', async (t) => {
  const { app, warnings } = await withLog({})
  app.get('/Book/:id/:part', async () => ({}))
  app.post('/Book/:id/:part', async () => ({}))
  app.get('/books', async () => ({}))
  await app.ready()
  t.equal(warnings.length, 2, 'two rules, one path (GET, HEAD and POST checked once)')
  t.match(warnings[0], {
    route: '/Book/:id/:part',
    rule: 'lowercase-hyphenated',
    segment: 'Book',
    msg: '@restwell/naming: route /Book/:id/:part breaks "lowercase-hyphenated": "Book" must be lowercase words joined by hyphens',
  })
  t.match(warnings[1], { route: '/Book/:id/:part', rule: 'alternation', segment: ':part' })
})

test('warn mode without a logger: a RestwellWarning on the process, once per process', async (t) => {
  const seen: Error[] = []
  const listener = (warning: Error): void => {
    seen.push(warning)
  }
  process.on('warning', listener)
  t.teardown(() => process.off('warning', listener))
  for (let i = 0; i < 2; i++) {
    const app = Fastify() // Fastify's default: logger false
    await app.register(restwellNaming)
    app.get('/Librarians/:id/:part', async () => ({}))
    app.get('/librarians', async () => ({}))
    await app.ready()
  }
  const logged = await withLog({})
  logged.app.get('/Logged-routes', async () => ({}))
  await logged.app.ready()
  await new Promise((resolve) => setImmediate(resolve))
  t.match(seen, [
    {
      name: 'RestwellWarning',
      code: 'RESTWELL_ROUTE_NAMING',
      message:
        '@restwell/naming: route /Librarians/:id/:part breaks "lowercase-hyphenated": "Librarians" must be lowercase words joined by hyphens',
    },
    { name: 'RestwellWarning', code: 'RESTWELL_ROUTE_NAMING', message: /breaks "alternation"/ },
  ])
  t.equal(seen.length, 2, 'the second app repeats no warning; the logged app writes its own log')
  t.equal(logged.warnings.length, 1, 'a logger that shows warnings gets the line only')
})

test('error mode fails registration naming the route and the rule', async (t) => {
  const app = Fastify()
  await app.register(restwellNaming, { mode: 'error' })
  app.get('/books/:id', async () => ({}))
  let thrown: unknown
  try {
    app.get('/books/:id/review', async () => ({}))
  } catch (error) {
    thrown = error
  }
  t.ok(thrown instanceof NamingError)
  const error = thrown as NamingError
  t.equal(error.code, 'RESTWELL_ROUTE_NAMING')
  t.equal(error.route, '/books/:id/review')
  t.match(
    error.message,
    /route \/books\/:id\/review breaks "plural-collection": "review" must be a plural noun/,
  )
  t.same(
    error.violations.map((v) => v.rule),
    ['plural-collection'],
  )

  const inPlugin = Fastify()
  await inPlugin.register(restwellNaming, { mode: 'error' })
  inPlugin.register(async (child) => {
    child.get('/Users', async () => ({}))
  })
  await t.rejects(async () => inPlugin.ready(), /route \/Users breaks/)
})

test('per-route opt-out, excluded prefixes and mode off', async (t) => {
  const { app, warnings } = await withLog({ exclude: ['/docs/'], prefixes: ['/api'] })
  app.get('/search', { config: { naming: false } }, async () => ({}))
  app.get('/docs/json', async () => ({}))
  app.get('/docs', async () => ({}))
  app.get('/docset', async () => ({}))
  app.get('/api/v1/books/:id', async () => ({}))
  // Well-known URIs (RFC 8615) are named by their registry, beside the app's own exclusions.
  app.get('/.well-known/jwks.json', async () => ({}))
  app.get('/.well-knowns', async () => ({}))
  await app.ready()
  t.same(
    warnings.map((w) => w.route),
    ['/docset', '/.well-knowns'],
    'only /docset (singular) and /.well-knowns (not lowercase-hyphenated) are checked',
  )

  const off = Fastify()
  await off.register(restwellNaming, { mode: 'off' })
  t.doesNotThrow(() => off.get('/Whatever/:a/:b', async () => ({})))
})

test('routes registered before the plugin are checked when it loads', async (t) => {
  const app = Fastify()
  app.get('/Early', async () => ({}))
  await t.rejects(async () => app.register(restwellNaming, { mode: 'error' }), /\/Early/)
})

test('bad options are refused', async (t) => {
  for (const options of [
    { mode: 'loud' },
    { maxDepth: 0 },
    { prefixes: ['api'] },
    { allow: [''] },
    { x: 1 },
  ]) {
    const app = Fastify()
    await t.rejects(
      async () => app.register(restwellNaming, options as NamingOptions),
      /@restwell\/naming: option/,
    )
  }
})

test('property: the checks never throw, and a clean path has no violations', async (t) => {
  const segment = fc.oneof(
    fc.constantFrom(
      'books',
      ':id',
      'Book',
      'order-items',
      '*',
      'v2',
      'me',
      '',
      'a--b',
      ':x(^\\d+)',
    ),
    fc.string({ maxLength: 12 }),
  )
  fc.assert(
    fc.property(fc.array(segment, { maxLength: 10 }), (segments) => {
      const violations = checkRouteName(`/${segments.join('/')}`, defaults)
      return violations.every((v) => typeof v.message === 'string' && v.message.length > 0)
    }),
  )
  const clean = fc
    .array(fc.constantFrom('books', 'order-items', 'people', 'line-items'), {
      minLength: 1,
      maxLength: 3,
    })
    .map((names) => `/${names.map((n, i) => `${n}/:p${i}`).join('/')}`)
  fc.assert(fc.property(clean, (url) => checkRouteName(url, defaults).length === 0))
  t.pass('properties held')
})
