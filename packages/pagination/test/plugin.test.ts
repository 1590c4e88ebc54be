import { ErrorCode } from '@restwell/errors'
import { addRewriter } from '@restwell/reroute'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import { applyPagination, pagination, restwellPagination } from '../src/index.js'
import { BOOKS, buildApp, links } from './helpers.js'
import { rawGet } from '../../../test/helpers/raw-http.js'

const sortable = ['title', 'year', 'id', 'published']

async function booksApp(config: Record<string, unknown> = {}, options = {}) {
  const h = await buildApp(options)
  h.app.get(
    '/books',
    {
      config: { pagination: { sortable, ...config } },
      schema: {
        querystring: {
          type: 'object',
          properties: {
            year: { type: 'integer' },
            genre: { type: 'string', enum: ['novel', 'poetry', 'essay'] },
            available: { type: 'boolean' },
          },
        },
      },
    },
    async (request, reply) => {
      const slice = applyPagination(BOOKS, request.pagination!)
      return reply.paginate(slice.items, { total: slice.total })
    },
  )
  return h
}

test('first page: Link has first, next, last; X-Total-Count; envelope; reply[PAGE]', async (t) => {
  const { app, page } = await booksApp()
  const res = await app.inject('/books?limit=10')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-total-count'], '45')
  t.equal(
    res.headers.link,
    '</books?page=1&limit=10>; rel="first", </books?page=2&limit=10>; rel="next", </books?page=5&limit=10>; rel="last"',
  )
  const body = res.json()
  t.same(
    body.data.map((b: { id: number }) => b.id),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  )
  t.strictSame(body.meta, { page: 1, limit: 10, total: 45, totalPages: 5 })
  t.strictSame(body.links, {
    self: '/books?page=1&limit=10',
    first: '/books?page=1&limit=10',
    next: '/books?page=2&limit=10',
    last: '/books?page=5&limit=10',
  })
  const info = page()
  t.ok(info)
  t.same(
    info?.items.map((b) => (b as { id: number }).id),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  )
  t.strictSame(info?.links, body.links)
  t.strictSame(info?.meta, { page: 1, limit: 10, total: 45, totalPages: 5 })
})

test('middle page has prev and next; other parameters are kept in order', async (t) => {
  const { app, page } = await booksApp()
  const res = await app.inject('/books?genre=novel&page=2&limit=5&sort=-year,id&format=json')
  t.equal(res.statusCode, 200)
  const novels = BOOKS.filter((b) => b.genre === 'novel')
  t.equal(res.headers['x-total-count'], String(novels.length))
  const l = links(res.headers.link)
  const base = '/books?genre=novel&sort=-year,id&format=json'
  t.strictSame(l, {
    first: `${base}&page=1&limit=5`,
    prev: `${base}&page=1&limit=5`,
    next: `${base}&page=3&limit=5`,
    last: `${base}&page=3&limit=5`,
  })
  t.equal(Object.keys(l).join(), 'first,prev,next,last', 'stable relation order')
  t.strictSame(page()?.links.self, `${base}&page=2&limit=5`)
  t.strictSame(page()?.meta, { page: 2, limit: 5, total: 15, totalPages: 3 })
  const ids = res.json().data.map((b: { id: number }) => b.id)
  const expected = [...novels]
    .sort((a, b) => b.year - a.year || a.id - b.id)
    .slice(5, 10)
    .map((b) => b.id)
  t.same(ids, expected)
})

test('last page has no next; page 1 of 1 has first and last only', async (t) => {
  const { app, page } = await booksApp()
  const res = await app.inject('/books?page=5&limit=10')
  t.strictSame(links(res.headers.link), {
    first: '/books?page=1&limit=10',
    prev: '/books?page=4&limit=10',
    last: '/books?page=5&limit=10',
  })
  t.equal(page()?.items.length, 5)
  t.strictSame(page()?.meta, { page: 5, limit: 10, total: 45, totalPages: 5 })
  const one = await app.inject('/books?year=2001&limit=50')
  t.strictSame(links(one.headers.link), {
    first: '/books?year=2001&page=1&limit=50',
    last: '/books?year=2001&page=1&limit=50',
  })
})

test('empty collection: 200, empty data, total 0, first = last = page 1', async (t) => {
  const { app, page } = await booksApp()
  const res = await app.inject('/books?year=1999')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-total-count'], '0')
  t.strictSame(res.json().data, [])
  t.strictSame(page()?.items, [])
  t.strictSame(page()?.meta, { page: 1, limit: 20, total: 0, totalPages: 0 })
  t.strictSame(page()?.links, {
    self: '/books?year=1999&page=1&limit=20',
    first: '/books?year=1999&page=1&limit=20',
    last: '/books?year=1999&page=1&limit=20',
  })
})

test('a page beyond the last is empty and its prev points at the last page', async (t) => {
  const { app, page } = await booksApp()
  const res = await app.inject('/books?page=9&limit=10')
  t.equal(res.statusCode, 200)
  t.strictSame(page()?.items, [])
  t.equal(page()?.links.prev, '/books?page=5&limit=10')
  t.notOk(page()?.links.next)
})

test('unknown total: next when the page is full, no last, no X-Total-Count', async (t) => {
  const { app, page } = await buildApp()
  app.get('/feed', { config: { pagination: true } }, async (request, reply) => {
    const slice = applyPagination(BOOKS, request.pagination!)
    return reply.paginate(slice.items)
  })
  const full = await app.inject('/feed?page=2&limit=20')
  t.notOk(full.headers['x-total-count'])
  t.strictSame(links(full.headers.link), {
    first: '/feed?page=1&limit=20',
    prev: '/feed?page=1&limit=20',
    next: '/feed?page=3&limit=20',
  })
  t.strictSame(page()?.meta, { page: 2, limit: 20 })
  const partial = await app.inject('/feed?page=3&limit=20')
  t.notOk(links(partial.headers.link).next)
})

test('hasMore and over-fetching (limit + 1 items) decide next without a total', async (t) => {
  const { app, page } = await buildApp()
  app.get('/over', { config: { pagination: true } }, async (request, reply) => {
    const { offset, limit } = request.pagination!
    return reply.paginate(BOOKS.slice(offset, offset + limit + 1))
  })
  app.get('/explicit', { config: { pagination: true } }, async (_request, reply) =>
    reply.paginate(BOOKS.slice(0, 20), { hasMore: false, total: 1000 }),
  )
  const over = await app.inject('/over?limit=10')
  t.equal(page()?.items.length, 10, 'the extra item is dropped')
  t.equal(over.json().data.length, 10)
  t.ok(page()?.links.next)
  await app.inject('/over?page=5&limit=10')
  t.equal(page()?.items.length, 5)
  t.notOk(page()?.links.next)
  await app.inject('/explicit')
  t.notOk(page()?.links.next, 'hasMore wins over the total')
  t.equal(page()?.links.last, '/explicit?page=50&limit=20')
})

test('defaults and bounds: plugin-wide and per route', async (t) => {
  const { app, page } = await buildApp({ defaultLimit: 5, maxLimit: 10 })
  app.get('/a', { config: { pagination: true } }, async (_q, reply) => reply.paginate([]))
  app.get('/b', { config: { pagination: { defaultLimit: 30, maxLimit: 50 } } }, async (_q, reply) =>
    reply.paginate([]),
  )
  await app.inject('/a')
  t.equal(page()?.meta.limit, 5)
  t.equal((await app.inject('/a?limit=11')).statusCode, 400)
  await app.inject('/b')
  t.equal(page()?.meta.limit, 30)
  t.equal((await app.inject('/b?limit=50')).statusCode, 200)
  t.equal((await app.inject('/b?limit=51')).statusCode, 400)
})

test('bad page and limit: 400 INVALID_PAGINATION naming the parameter', async (t) => {
  const { app } = await booksApp()
  const cases: [string, string, RegExp][] = [
    ['page=0', 'page', /at least 1/],
    ['page=abc', 'page', /positive integer/],
    ['page=1.5', 'page', /positive integer/],
    ['page=-1', 'page', /positive integer/],
    ['page=', 'page', /positive integer/],
    ['page=1&page=2', 'page', /once/],
    ['page=99999999999999999999', 'page', /at most/],
    ['limit=0', 'limit', /at least 1/],
    ['limit=101', 'limit', /at most 100/],
    ['limit=ten', 'limit', /positive integer/],
    ['cursor=abc', 'cursor', /paginated with "page"/],
  ]
  for (const [query, param, message] of cases) {
    const res = await app.inject(`/books?${query}`)
    t.equal(res.statusCode, 400, query)
    const error = res.json().error
    t.equal(
      error.code,
      param === 'cursor' ? ErrorCode.INVALID_CURSOR : ErrorCode.INVALID_PAGINATION,
      query,
    )
    t.equal(error.details.length, 1)
    t.equal(error.details[0].field, `querystring/${param}`, query)
    t.match(error.details[0].message, message, query)
    t.equal(error.details[0].code, error.code)
  }
})

test('clamp: out-of-range page and limit are brought into range, garbage still 400', async (t) => {
  const { app, page } = await booksApp({ clamp: true })
  await app.inject('/books?limit=500&page=0')
  t.strictSame(page()?.meta, { page: 1, limit: 100, total: 45, totalPages: 1 })
  await app.inject('/books?limit=0')
  t.equal(page()?.meta.limit, 1)
  await app.inject('/books?page=99999999999999999999&limit=100')
  t.equal(page()?.meta.page, Math.floor(Number.MAX_SAFE_INTEGER / 100))
  t.equal((await app.inject('/books?limit=x')).statusCode, 400)
  const plugin = await buildApp({ clamp: true, maxLimit: 7 })
  plugin.app.get('/x', { config: { pagination: true } }, async (_q, reply) => reply.paginate([]))
  await plugin.app.inject('/x?limit=8')
  t.equal(plugin.page()?.meta.limit, 7, 'plugin-wide clamp')
})

test('sort: fields, directions, default sort, and 400 INVALID_SORT', async (t) => {
  const seen: unknown[] = []
  const { app } = await buildApp()
  app.get(
    '/s',
    { config: { pagination: { sortable: ['title', 'year'], defaultSort: '-year' } } },
    async (request, reply) => {
      seen.push(request.pagination?.sort)
      return reply.paginate([])
    },
  )
  app.get('/none', { config: { pagination: true } }, async (_q, reply) => reply.paginate([]))
  await app.inject('/s')
  await app.inject('/s?sort=title,-year')
  await app.inject('/s?sort=%2Btitle')
  await app.inject('/s?sort=+title')
  t.strictSame(seen, [
    [{ field: 'year', direction: 'desc' }],
    [
      { field: 'title', direction: 'asc' },
      { field: 'year', direction: 'desc' },
    ],
    [{ field: 'title', direction: 'asc' }],
    [{ field: 'title', direction: 'asc' }],
  ])
  const bad: [string, string, RegExp][] = [
    ['/s?sort=author', 'sort', /cannot sort by "author"; sortable fields: title, year/],
    ['/s?sort=title,title', 'sort', /more than once/],
    ['/s?sort=title,', 'sort', /comma-separated/],
    ['/s?sort=-', 'sort', /comma-separated/],
    ['/s?sort=a&sort=b', 'sort', /once/],
    [`/s?sort=${'x'.repeat(1025)}`, 'sort', /at most 1024/],
    ['/none?sort=title', 'sort', /cannot be sorted/],
  ]
  for (const [url, param, message] of bad) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, url)
    const error = res.json().error
    t.equal(error.code, ErrorCode.INVALID_SORT)
    t.strictSame(error.details, [
      {
        field: `querystring/${param}`,
        message: error.details[0].message,
        code: ErrorCode.INVALID_SORT,
      },
    ])
    t.match(error.details[0].message, message, url)
  }
})

test('filters from the querystring schema are coerced to their types', async (t) => {
  const seen: unknown[] = []
  const { app } = await buildApp()
  app.get(
    '/f',
    {
      config: { pagination: true },
      schema: {
        querystring: {
          type: 'object',
          properties: {
            year: { type: 'integer' },
            price: { type: ['number', 'null'] },
            available: { type: 'boolean' },
            genre: { anyOf: [{ const: 'novel' }, { const: 'poetry' }] },
            tag: { type: 'array', items: { type: 'string' } },
            q: { type: 'string' },
          },
        },
      },
    },
    async (request, reply) => {
      seen.push({ filters: request.pagination?.filters, query: request.query })
      return reply.paginate([])
    },
  )
  const ok = await app.inject('/f?year=2001&price=9.5&available=false&genre=poetry&tag=a&tag=b&q=x')
  t.equal(ok.statusCode, 200)
  t.strictSame((seen[0] as { filters: unknown }).filters, {
    year: 2001,
    price: 9.5,
    available: false,
    genre: 'poetry',
    tag: ['a', 'b'],
    q: 'x',
  })
  t.match((seen[0] as { query: unknown }).query, { year: 2001, page: 1, limit: 20 })
  const bad: [string, string, RegExp][] = [
    ['year=abc', 'year', /must be an integer/],
    ['year=1.5', 'year', /must be an integer/],
    ['price=1e999', 'price', /must be a number/],
    ['price=', 'price', /must be a number/],
    ['available=yes', 'available', /must be a boolean/],
    ['genre=essay', 'genre', /one of "novel", "poetry"/],
    ['year=1&year=2', 'year', /once/],
    ['color=red', 'color', /not a filter/],
  ]
  for (const [query, param, message] of bad) {
    const res = await app.inject(`/f?${query}`)
    t.equal(res.statusCode, 400, query)
    const error = res.json().error
    t.equal(error.code, ErrorCode.INVALID_FILTER, query)
    t.equal(error.details[0].field, `querystring/${param}`)
    t.match(error.details[0].message, message, query)
  }
})

test('applyPagination: a filter on an array field matches the items that contain the value', async (t) => {
  const notes = [
    { id: 1, tags: ['work', 'home'] },
    { id: 2, tags: ['home'] },
    { id: 3, tags: ['work'] },
  ]
  const { app } = await buildApp()
  app.get(
    '/notes',
    {
      config: { pagination: true },
      schema: {
        querystring: {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
    async (request, reply) => {
      const { items, ...page } = applyPagination(notes, request.pagination!)
      return reply.paginate(items, page)
    },
  )
  const work = await app.inject('/notes?tags=work')
  t.equal(work.statusCode, 200)
  t.strictSame(
    work.json().data.map((n: { id: number }) => n.id),
    [1, 3],
  )
  t.equal(work.json().meta.total, 2)
  const either = await app.inject('/notes?tags=work&tags=home')
  t.equal(either.json().meta.total, 3)
})

test('passthrough parameters of other plugins are neither filters nor rejected', async (t) => {
  const { app, page } = await buildApp()
  app.get('/p', { config: { pagination: true } }, async (request, reply) => {
    t.strictSame(request.pagination?.filters, {})
    return reply.paginate([])
  })
  const res = await app.inject(
    '/p?format=xml&deleted=include&_method=GET&version=2&include=deleted',
  )
  t.equal(res.statusCode, 200)
  t.equal(
    page()?.links.first,
    '/p?format=xml&deleted=include&_method=GET&version=2&include=deleted&page=1&limit=20',
  )
  const custom = await buildApp({ passthrough: ['trace'] })
  custom.app.get('/p', { config: { pagination: true } }, async (_q, reply) => reply.paginate([]))
  t.equal((await custom.app.inject('/p?trace=1')).statusCode, 200)
  t.equal(
    (await custom.app.inject('/p?format=xml')).statusCode,
    400,
    'the list replaces the default',
  )
})

test('a request served under another URL links to the URL the client sent', async (t) => {
  // Fastify's `rewriteUrl` serves `/books…` by `/v1/books…` (no public URL), and a rewriter on
  // @restwell/reroute turns a POST carrying `_method=GET` into a GET in place, as method
  // override does once its twin route is reached.
  const { app, page } = await buildApp(
    {},
    {
      rewriteUrl: (req) =>
        (req.url as string).startsWith('/books') ? `/v1${req.url}` : (req.url as string),
    },
  )
  addRewriter(app, {
    name: 'test-override',
    order: 10,
    rewrite: (target) => {
      if (target.method === 'POST' && target.url.includes('_method=GET')) {
        target.method = 'GET'
        target.url = target.url.replace('_method=GET&', '')
      }
    },
  })
  const list = async (request: FastifyRequest, reply: FastifyReply) => {
    const slice = applyPagination(BOOKS, request.pagination!)
    return reply.paginate(slice.items, { total: slice.total })
  }
  app.get('/v1/books', { config: { pagination: true } }, list)
  // The route an overridden POST reaches (method override's twin of the GET route).
  app.post('/v1/books', { config: { pagination: true } }, list)
  const res = await app.inject('/books?version=1&page=2&limit=10')
  t.equal(res.statusCode, 200)
  const base = '/books?version=1'
  t.strictSame(links(res.headers.link), {
    first: `${base}&page=1&limit=10`,
    prev: `${base}&page=1&limit=10`,
    next: `${base}&page=3&limit=10`,
    last: `${base}&page=5&limit=10`,
  })
  t.equal(res.json().links.self, `${base}&page=2&limit=10`)
  t.equal(page()?.links.next, `${base}&page=3&limit=10`, 'reply[PAGE] too (HAL, JSON:API, Siren)')
  const next = await app.inject(res.json().links.next)
  t.equal(next.statusCode, 200, 'following next repeats the request as the client made it')
  t.equal(next.json().meta.page, 3)
  const overridden = await app.inject({
    method: 'POST',
    url: '/books?_method=GET&version=1&page=2&limit=10',
  })
  t.equal(overridden.statusCode, 200)
  t.equal(
    links(overridden.headers.link).next,
    `${base}&page=3&limit=10`,
    "the client's path, the query the route saw: no method override in a link followed by GET",
  )
  const bare = await app.inject('/books')
  t.equal(links(bare.headers.link).next, '/books?page=2&limit=20', 'no query: the path alone')
  const direct = await app.inject('/v1/books?page=2&limit=10')
  t.equal(links(direct.headers.link).next, '/v1/books?page=3&limit=10', 'not rewritten: as sent')
})

test('schema properties named like passthrough parameters are not filters', async (t) => {
  const { app } = await buildApp()
  app.get(
    '/x',
    {
      config: { pagination: true },
      schema: {
        querystring: {
          type: 'object',
          properties: {
            deleted: { type: 'string', enum: ['exclude', 'include', 'only'] },
            year: { type: 'integer' },
          },
        },
      },
    },
    async (request, reply) => reply.paginate([request.pagination?.filters]),
  )
  const res = await app.inject('/x?deleted=only&year=2001')
  t.equal(res.statusCode, 200)
  t.strictSame(res.json().data, [{ year: 2001 }])
})

test('unknown filters: ignore plugin-wide or per route', async (t) => {
  const plugin = await buildApp({ unknownFilters: 'ignore' })
  plugin.app.get('/x', { config: { pagination: true } }, async (request, reply) => {
    t.strictSame(request.pagination?.filters, {})
    return reply.paginate([])
  })
  t.equal((await plugin.app.inject('/x?color=red')).statusCode, 200)
  const route = await buildApp()
  route.app.get('/x', { config: { pagination: { unknownFilters: 'ignore' } } }, async (_q, reply) =>
    reply.paginate([]),
  )
  t.equal((await route.app.inject('/x?color=red')).statusCode, 200)
})

test('explicit filterable: other schema properties are allowed but not filters', async (t) => {
  const { app } = await buildApp()
  const seen: unknown[] = []
  app.get(
    '/x',
    {
      config: { pagination: { filterable: ['status', 'year'] } },
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { year: { type: 'integer' }, fields: { type: 'string' } },
        },
      },
    },
    async (request, reply) => {
      seen.push([request.pagination?.filters, request.query])
      return reply.paginate([])
    },
  )
  const res = await app.inject('/x?status=open&year=2001&fields=title')
  t.equal(res.statusCode, 200)
  t.same(seen[0], [
    { status: 'open', year: 2001 },
    { status: 'open', year: 2001, fields: 'title', page: 1, limit: 20 },
  ])
  t.equal((await app.inject('/x?color=red')).statusCode, 400)
})

test('a querystring schema that does not declare page and limit still sees them', async (t) => {
  const { app } = await buildApp()
  app.get(
    '/x',
    {
      config: { pagination: true },
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { q: { type: 'string' } },
        },
      },
    },
    async (request, reply) => {
      t.equal(request.pagination?.page, 3)
      t.equal((request.query as { page: number }).page, 3, 'not stripped by additionalProperties')
      return reply.paginate([])
    },
  )
  t.equal((await app.inject('/x?page=3&limit=2&q=a')).statusCode, 200)
})

test('route schema gains the parameters and the Link and total headers; shared schemas are not mutated', async (t) => {
  const { app } = await buildApp()
  app.addSchema({ $id: 'q', type: 'object', properties: { q: { type: 'string' } } })
  const routes: Record<string, unknown> = {}
  app.addHook('onRoute', (route) => {
    routes[`${route.method} ${route.url}`] = route.schema
  })
  const shared = {
    querystring: {
      type: 'object',
      properties: { limit: { type: 'integer', maximum: 5 }, year: { type: 'integer' } },
    },
    response: { 200: { type: 'object', headers: { etag: { type: 'string' } } } },
  }
  const snapshot = JSON.stringify(shared)
  app.get(
    '/one',
    { config: { pagination: { sortable: ['year'], defaultSort: 'year' } }, schema: shared },
    async (_q, r) => r.paginate([]),
  )
  app.get(
    '/two',
    { config: { pagination: { cursor: true, filterable: ['status'] } } },
    async (_q, r) => r.paginate([]),
  )
  app.get(
    '/three',
    {
      config: { pagination: true },
      schema: { querystring: { $ref: 'q#' }, response: { '2xx': { type: 'object' } } },
    },
    async (_q, r) => r.paginate([]),
  )
  app.get(
    '/four',
    { config: { pagination: true }, schema: { response: { 201: { type: 'object' } } } },
    async (_q, r) => r.paginate([]),
  )
  app.get('/plain', async () => 'x')
  await app.ready()
  t.equal(JSON.stringify(shared), snapshot)
  const one = routes['GET /one'] as {
    querystring: { properties: Record<string, unknown> }
    response: Record<string, { headers: unknown }>
  }
  t.match(one.querystring.properties, {
    page: { type: 'integer', minimum: 1, default: 1 },
    limit: { type: 'integer', maximum: 5 },
    sort: { type: 'string', default: 'year', description: /Fields: year/ },
    year: { type: 'integer' },
  })
  t.notOk('cursor' in one.querystring.properties)
  t.match(one.response[200]?.headers, {
    link: { type: 'string' },
    'x-total-count': { type: 'integer' },
    etag: { type: 'string' },
  })
  const two = routes['GET /two'] as {
    querystring: { type: string; properties: Record<string, unknown> }
    response: Record<string, unknown>
  }
  t.equal(two.querystring.type, 'object')
  t.strictSame(Object.keys(two.querystring.properties), ['cursor', 'limit', 'status'])
  t.match(two.response, { 200: { description: /page/, headers: { link: {} } } })
  const three = routes['GET /three'] as { querystring: unknown; response: Record<string, unknown> }
  t.strictSame(three.querystring, { $ref: 'q#' }, 'a $ref querystring is left alone')
  t.match(three.response['2xx'], { type: 'object', headers: { link: {} } })
  const four = routes['GET /four'] as { response: Record<string, unknown> }
  t.ok(four.response[201])
  t.match(four.response[200], { headers: { link: {} } })
  t.equal(routes['GET /plain'], undefined, 'routes without config.pagination are untouched')
})

test('totalHeader: renamed or turned off', async (t) => {
  const renamed = await buildApp({ totalHeader: 'X-Count' })
  renamed.app.get('/x', { config: { pagination: true } }, async (_q, r) =>
    r.paginate([1], { total: 1 }),
  )
  t.equal((await renamed.app.inject('/x')).headers['x-count'], '1')
  const off = await buildApp({ totalHeader: false })
  let schema: unknown
  off.app.addHook('onRoute', (route) => {
    schema = route.schema
  })
  off.app.get('/x', { config: { pagination: true } }, async (_q, r) =>
    r.paginate([1], { total: 1 }),
  )
  const res = await off.app.inject('/x')
  t.notOk(res.headers['x-total-count'])
  t.equal(res.json().meta.total, 1)
  await off.app.ready()
  t.strictSame(
    Object.keys((schema as { response: { 200: { headers: object } } }).response[200].headers),
    ['link'],
  )
})

test('routes without config.pagination pay nothing and cannot paginate', async (t) => {
  const app = Fastify()
  await app.register(restwellPagination)
  let preValidation: unknown = 'unset'
  app.addHook('onRoute', (route) => {
    if (route.url === '/plain' && route.method === 'GET') preValidation = route.preValidation
  })
  app.get('/plain', async (request, reply) => {
    t.equal(request.pagination, null)
    return reply.paginate([])
  })
  app.get('/off', { config: { pagination: false } }, async (request) => ({ p: request.pagination }))
  const res = await app.inject('/plain?page=abc')
  t.equal(res.statusCode, 500)
  t.equal(
    res.json().message,
    '@restwell/pagination: reply.paginate() needs a route with config.pagination, and route GET /plain has none: add config: { pagination: true } (or its settings) to it',
    "without @restwell/errors, Fastify's own handler shows it",
  )
  t.equal(preValidation, undefined)
  t.strictSame((await app.inject('/off?page=abc')).json(), { p: null })
})

test('reply.paginate() without config.pagination: the error names the route, the client sees a masked 500', async (t) => {
  const { app } = await buildApp()
  const thrown: Error[] = []
  app.addHook('onError', async (_request, _reply, error) => {
    thrown.push(error)
  })
  app.get('/reports/:year', async (_request, reply) => reply.paginate([{ id: 1 }]))
  const res = await app.inject('/reports/2024?page=2')
  t.equal(res.statusCode, 500)
  t.match(thrown, [
    {
      message:
        '@restwell/pagination: reply.paginate() needs a route with config.pagination, and route GET /reports/:year has none: add config: { pagination: true } (or its settings) to it',
    },
  ])
  const body = res.json()
  t.match(body, { error: { message: 'Internal Server Error', requestId: /\S/ } })
  t.notMatch(res.body, /pagination|reports/, 'nothing of the message reaches the client')

  // Outside any route (a not-found handler), the path requested is named.
  const bare = Fastify()
  await bare.register(restwellPagination)
  bare.setNotFoundHandler((_request, reply) => reply.paginate([]))
  t.match((await bare.inject('/nowhere?x=1')).json(), {
    statusCode: 500,
    message: /and route GET \/nowhere\?x=1 has none/,
  })
})

test('a paginated route whose handler sends a plain array fails clearly instead of sending no page', async (t) => {
  const { app } = await buildApp()
  const thrown: Error[] = []
  app.addHook('onError', async (_request, _reply, error) => {
    thrown.push(error)
  })
  app.get('/shelves', { config: { pagination: true } }, async () => [{ id: 1 }, { id: 2 }])
  app.get('/racks', { config: { pagination: true } }, async (_request, reply) => {
    reply.send([{ id: 1 }])
    return reply
  })
  app.get('/counts', { config: { pagination: true } }, async () => ({ count: 2 }))
  const expected =
    '@restwell/pagination: route GET /shelves has config.pagination, but its handler sent a plain array (no Link, no total): send the page with reply.paginate(items, { total }); for a whole collection held in memory, cut the page first: const { items, ...page } = applyPagination(all, request.pagination); return reply.paginate(items, page)'
  const res = await app.inject('/shelves')
  t.equal(res.statusCode, 500)
  t.equal(res.headers.link, undefined)
  t.match(res.json(), { error: { message: 'Internal Server Error', requestId: /\S/ } })
  t.notMatch(res.body, /pagination|shelves/, 'masked: the message is for the developer')
  t.equal(thrown[0]?.message, expected)
  t.equal((await app.inject({ method: 'HEAD', url: '/shelves' })).statusCode, 500, 'HEAD alike')
  t.equal((await app.inject('/racks')).statusCode, 500, 'reply.send(array) alike')
  t.match(thrown.at(-1), { message: /route GET \/racks has config.pagination/ })
  t.same((await app.inject('/counts')).json(), { count: 2 }, 'an object is not refused')
  t.equal(thrown.length, 3)
})

test('existing preValidation hooks run after pagination has read the query', async (t) => {
  const { app } = await buildApp()
  let seen: unknown
  app.get(
    '/x',
    {
      config: { pagination: true },
      preValidation: async (request) => {
        seen = request.pagination?.limit
      },
    },
    async (_q, r) => r.paginate([]),
  )
  app.get(
    '/y',
    { config: { pagination: true }, preValidation: [async () => {}] },
    async (request, r) => r.paginate([request.pagination?.page]),
  )
  await app.inject('/x?limit=7')
  t.equal(seen, 7)
  t.strictSame((await app.inject('/y?page=2')).json().data, [2])
})

test('registration errors: bad options and bad route config', async (t) => {
  await t.rejects(
    async () => {
      await Fastify().register(restwellPagination, { maxLimit: 0 })
    },
    {
      code: 'RESTWELL_INVALID_OPTION',
      message: /maxLimit/,
    },
  )
  await t.rejects(
    async () => {
      await Fastify().register(restwellPagination, { cursorSecret: 'short' })
    },
    {
      message: /cursorSecret/,
    },
  )
  const cases: [string, Record<string, unknown> | boolean, RegExp, Record<string, unknown>?][] = [
    [
      'defaultLimit above maxLimit',
      { defaultLimit: 50, maxLimit: 10 },
      /defaultLimit 50 is above maxLimit 10/,
    ],
    ['unknown key', { sortBy: ['x'] }, /config.pagination of GET \/x.*sortBy/],
    ['bad defaultSort', { sortable: ['a'], defaultSort: 'b' }, /defaultSort cannot sort by "b"/],
    ['reserved filter', { filterable: ['page'] }, /"page" cannot be a filter/],
    ['cursor without secret', { cursor: true }, /needs the plugin option "cursorSecret"/],
  ]
  for (const [name, config, message] of cases) {
    const app = Fastify()
    await app.register(restwellPagination)
    t.throws(
      () => app.get('/x', { config: { pagination: config as boolean } }, async () => 'x'),
      { message },
      name,
    )
  }
})

test('reply.paginate refuses a bad total', async (t) => {
  const { app } = await buildApp()
  app.get('/x', { config: { pagination: true } }, async (_q, r) => r.paginate([], { total: -1 }))
  app.get('/y', { config: { pagination: true } }, async (_q, r) => r.paginate([], { total: 1.5 }))
  t.equal((await app.inject('/x')).statusCode, 500)
  t.equal((await app.inject('/y')).statusCode, 500)
})

test('HEAD of a paginated route carries the Link header', async (t) => {
  const { app } = await booksApp()
  const res = await app.inject({ method: 'HEAD', url: '/books?limit=40' })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  t.equal(links(res.headers.link).next, '/books?page=2&limit=40')
  t.equal(res.headers['x-total-count'], '45')
})

test('on the wire: Link and X-Total-Count over a real socket, unsafe path characters encoded', async (t) => {
  const { app } = await booksApp()
  app.get(
    '/weird path/books',
    { config: { pagination: { unknownFilters: 'ignore' } } },
    async (_q, r) => r.paginate([1, 2], { total: 2 }),
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const res = await fetch(`http://127.0.0.1:${port}/books?page=2&limit=10&genre=novel`)
  t.equal(res.status, 200)
  t.equal(res.headers.get('x-total-count'), '15')
  t.equal(
    res.headers.get('link'),
    '</books?genre=novel&page=1&limit=10>; rel="first", </books?genre=novel&page=1&limit=10>; rel="prev", </books?genre=novel&page=2&limit=10>; rel="last"',
  )
  const weird = await fetch(`http://127.0.0.1:${port}/weird%20path/books?a=%3E`)
  t.equal(
    weird.headers.get('link'),
    '</weird%20path/books?a=%3E&page=1&limit=20>; rel="first", </weird%20path/books?a=%3E&page=1&limit=20>; rel="last"',
  )
})

test('reply.paginate adds its links to a Link the route set earlier (RFC 8288 §3)', async (t) => {
  const { app } = await buildApp()
  app.get(
    '/books',
    {
      config: { pagination: true },
      preHandler: (_request, reply, done) => {
        reply.header('link', '</schemas/book>; rel="describedby"')
        done()
      },
    },
    async (_request, reply) => {
      reply.header('link', [
        String(reply.getHeader('link')),
        '</books/export>; rel="alternate"; type="text/csv"',
      ])
      return reply.paginate([{ id: 1 }, { id: 2 }], { total: 40 })
    },
  )
  app.get('/plain', { config: { pagination: true } }, async (_request, reply) =>
    reply.paginate([{ id: 1 }], { total: 1 }),
  )
  const res = await app.inject('/books?limit=2')
  t.equal(
    res.headers.link,
    '</schemas/book>; rel="describedby", </books/export>; rel="alternate"; type="text/csv", ' +
      '</books?page=1&limit=2>; rel="first", </books?page=2&limit=2>; rel="next", </books?page=20&limit=2>; rel="last"',
  )
  t.equal(
    (await app.inject('/plain')).headers.link,
    '</plain?page=1&limit=20>; rel="first", </plain?page=1&limit=20>; rel="last"',
    'alone: only its own links',
  )
})

test('a bare % in a kept query value is %25 in the links, and following them finds the same value', async (t) => {
  const seen: unknown[] = []
  const { app } = await buildApp()
  app.get(
    '/books',
    {
      config: { pagination: true },
      schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } },
    },
    async (request, reply) => {
      seen.push(request.pagination?.filters.q)
      return reply.paginate([{ id: 1 }], { total: 50 })
    },
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const raw = (target: string) => rawGet(port, target)
  const cases: [string, string, string][] = [
    ['100%', '100%25', '100%'],
    ['%zz', '%25zz', '%zz'],
    ['a%2', 'a%252', 'a%2'],
    ['a%25b', 'a%25b', 'a%b'],
  ]
  for (const [sent, linked, value] of cases) {
    seen.length = 0
    const response = await raw(`/books?q=${sent}&limit=1`)
    const next = links(/^link: (.*)$/im.exec(response)?.[1]).next as string
    t.equal(next, `/books?q=${linked}&page=2&limit=1`, sent)
    await raw(next)
    t.strictSame(seen, [value, value], `${sent}: the same filter value on the next page`)
  }
})

test('the convention contributes the query parameters it reads and the headers it sends', async (t) => {
  t.same(pagination.contributes?.(pagination.options({})), {
    queryParameters: ['page', 'limit', 'sort', 'cursor'],
    responseHeaders: ['Link', 'x-total-count'],
  })
  t.same(pagination.contributes?.(pagination.options({ totalHeader: 'X-Total' })), {
    queryParameters: ['page', 'limit', 'sort', 'cursor'],
    responseHeaders: ['Link', 'x-total'],
  })
  t.same(pagination.contributes?.(pagination.options({ totalHeader: false })).responseHeaders, [
    'Link',
  ])
})

test("a page's headers go on the routes that ask for pagination only", async (t) => {
  const options = pagination.options({ totalHeader: 'X-Total' })
  const on = (config: unknown) => pagination.routeResponseHeaders?.({ config } as never, options)
  t.same(on({}), ['Link', 'x-total'])
  t.same(on(undefined), [], 'not a paginated route')
})

test("a QUERY page's links: under its Location (GET-able), else its own URL (QUERY-able)", async (t) => {
  const { app } = await buildApp()
  app.route({
    method: 'QUERY',
    url: '/books',
    config: { pagination: true },
    handler: async (request, reply) => {
      const { location } = (request.body ?? {}) as { location?: string }
      if (location !== undefined) reply.header('location', location)
      const slice = applyPagination(BOOKS, request.pagination!)
      return reply.paginate(slice.items, { total: slice.total })
    },
  })
  const ask = (location?: string) =>
    app.inject({
      method: 'QUERY',
      url: '/books?limit=10&page=2',
      payload: location === undefined ? {} : { location },
    })
  const located = await ask('/books/searches/7')
  t.strictSame(located.json().links, {
    self: '/books/searches/7?page=2&limit=10',
    first: '/books/searches/7?page=1&limit=10',
    prev: '/books/searches/7?page=1&limit=10',
    next: '/books/searches/7?page=3&limit=10',
    last: '/books/searches/7?page=5&limit=10',
  })
  t.match(located.headers.link, /^<\/books\/searches\/7\?page=1&limit=10>; rel="first"/)
  for (const other of [undefined, 'https://api.example/books/searches/7', '//evil.example/x']) {
    const res = await ask(other)
    t.equal(res.json().links.next, '/books?page=3&limit=10', `${other}: the QUERY's own URL`)
  }
})
