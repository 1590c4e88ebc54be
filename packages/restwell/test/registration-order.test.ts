/**
 * Routes registered before or after restwell behave the same. The same routes are declared
 * three ways, and the same requests must get the same answers (status, headers, body; the
 * date, request id and timestamp aside):
 * - `before`: routes first, then `app.register(restwell)`;
 * - `unawaited`: `app.register(restwell)` without await, then routes (Fastify adds the routes
 *   at once, restwell loads at ready);
 * - `after`: `await app.register(restwell)`, then routes.
 */
import { gunzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import tap, { test } from 'tap'
import { markDeleted } from '@restwell/soft-delete'
import restwell, { httpErrors, type RestwellOptions } from '../src/index.js'

interface Book {
  id: number
  title: string
  version: number
  deletedAt?: string
}

const bookSchema = {
  type: 'object',
  required: ['id', 'title', 'version'],
  properties: {
    id: { type: 'integer', readOnly: true },
    title: { type: 'string', minLength: 1 },
    version: { type: 'integer', readOnly: true },
    deletedAt: { type: 'string' },
  },
} as const

const options: RestwellOptions = {
  auth: {
    verify: (token: string) =>
      token === 'reader' ? { scopes: ['read'] } : token === 'writer' ? { scopes: ['write'] } : null,
    requirement: { scopes: ['read'] },
  },
  negotiation: { languages: ['en', 'de'] },
  versioning: { versions: [1, 2], retired: { 1: { deprecation: '2026-01-01T00:00:00Z' } } },
  naming: { mode: 'error' },
  softDelete: { gone: true },
  conditional: { requirePrecondition: true },
}

function routes(app: FastifyInstance): void {
  const books = new Map<number, Book>()
  for (let id = 1; id <= 30; id++)
    books.set(id, { id, title: `Book ${id} ${'x'.repeat(60)}`, version: 1 })
  const find = (params: unknown): Book | undefined =>
    books.get(Number((params as { id: string }).id))
  const getValidator = (request: { params: unknown }) => {
    const book = find(request.params)
    return book === undefined ? null : { etag: `v${book.version}` }
  }
  app.get(
    '/books',
    { config: { pagination: { sortable: ['id', 'title'] } } },
    async (request, reply) => {
      const { offset, limit } = request.pagination!
      const all = [...books.values()].filter((b) => b.deletedAt === undefined)
      return reply.paginate(all.slice(offset, offset + limit), { total: all.length })
    },
  )
  app.get(
    '/books/:id',
    {
      schema: { response: { 200: bookSchema } },
      config: { conditional: { etagField: 'version' }, softDelete: true },
    },
    async (request) => find(request.params) ?? httpErrors.notFound('No such book'),
  )
  app.patch(
    '/books/:id',
    {
      schema: { response: { 200: bookSchema } },
      config: { conditional: { getValidator }, auth: { scopes: ['write'] } },
    },
    async (request) => {
      const current = find(request.params)
      if (current === undefined) throw httpErrors.notFound('No such book')
      const next = (await request.applyPatch(current)) as Book
      const stored = { ...next, version: current.version + 1 }
      books.set(current.id, stored)
      return stored
    },
  )
  app.delete(
    '/books/:id',
    { config: { softDelete: true, auth: { scopes: ['write'] } } },
    async (request) => {
      const current = find(request.params)
      if (current === undefined) throw httpErrors.notFound('No such book')
      const deleted = markDeleted(current, new Date('2026-01-01T00:00:00Z')) as Book
      books.set(current.id, deleted)
      return deleted
    },
  )
  app.get('/v1/shelves', async () => [{ id: 1, name: 'fiction' }])
  app.get('/v2/shelves', async () => [{ id: 1, name: 'fiction', books: 12 }])
  app.get('/failures', { config: { auth: false } }, async () => {
    throw new Error('secret detail of the database')
  })
  app.get(
    '/statuses',
    { config: { auth: false, cache: { public: true, maxAge: 5 } } },
    async () => ({
      ok: true,
    }),
  )
}

async function build(order: 'before' | 'unawaited' | 'after'): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  if (order === 'before') {
    routes(app)
    await app.register(restwell, options)
  } else if (order === 'unawaited') {
    app.register(restwell, options)
    routes(app)
  } else {
    await app.register(restwell, options)
    routes(app)
  }
  await app.ready()
  return app
}

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const READ = { authorization: 'Bearer reader' }
const WRITE = { authorization: 'Bearer writer' }

interface Step {
  name: string
  method?: 'GET' | 'HEAD' | 'PATCH' | 'DELETE' | 'PUT' | 'OPTIONS'
  url: string
  headers?: Record<string, string>
  body?: string
  /** Takes a header of the previous answer into this request. */
  from?: { header: string; as: string }
}

const steps: Step[] = [
  { name: 'item', url: '/books/1', headers: READ },
  {
    name: 'item gzip (a 1 KB JSON is compressed)',
    url: '/books?limit=20',
    headers: { ...READ, 'accept-encoding': 'gzip' },
  },
  { name: 'item again', url: '/books/2', headers: READ },
  {
    name: '304 from the ETag',
    url: '/books/2',
    headers: READ,
    from: { header: 'etag', as: 'if-none-match' },
  },
  { name: 'XML', url: '/books/3', headers: { ...READ, accept: 'application/xml' } },
  { name: 'HAL', url: '/books/3', headers: { ...READ, accept: 'application/hal+json' } },
  { name: '406', url: '/books/3', headers: { ...READ, accept: 'image/png' } },
  { name: 'language', url: '/books/3', headers: { ...READ, 'accept-language': 'de' } },
  { name: 'range', url: '/books/4', headers: { ...READ, range: 'bytes=0-9' } },
  { name: 'page 2', url: '/books?page=2&limit=5&sort=-id', headers: READ },
  { name: 'bad limit', url: '/books?limit=abc', headers: READ },
  { name: 'no token', url: '/books/1' },
  { name: 'bad token', url: '/books/1', headers: { authorization: 'Bearer nope' } },
  {
    name: 'missing scope',
    method: 'PATCH',
    url: '/books/1',
    headers: { ...READ, 'content-type': 'application/merge-patch+json' },
    body: '{"title":"x"}',
  },
  {
    name: '428',
    method: 'PATCH',
    url: '/books/1',
    headers: { ...WRITE, 'content-type': 'application/merge-patch+json' },
    body: '{"title":"Renamed"}',
  },
  {
    name: '415',
    method: 'PATCH',
    url: '/books/1',
    headers: { ...WRITE, 'content-type': 'application/json', 'if-match': '"v1"' },
    body: '{"title":"x"}',
  },
  {
    name: 'merge patch',
    method: 'PATCH',
    url: '/books/1',
    headers: { ...WRITE, 'content-type': 'application/merge-patch+json', 'if-match': '"v1"' },
    body: '{"title":"Renamed"}',
  },
  {
    name: '412',
    method: 'PATCH',
    url: '/books/1',
    headers: { ...WRITE, 'content-type': 'application/merge-patch+json', 'if-match': '"v1"' },
    body: '{"title":"Again"}',
  },
  {
    name: 'read-only',
    method: 'PATCH',
    url: '/books/1',
    headers: { ...WRITE, 'content-type': 'application/json-patch+json', 'if-match': '"v2"' },
    body: '[{"op":"replace","path":"/id","value":9}]',
  },
  { name: 'soft delete', method: 'DELETE', url: '/books/5', headers: WRITE },
  { name: 'deleted item', url: '/books/5', headers: READ },
  { name: 'deleted item included', url: '/books/5?deleted=include', headers: READ },
  { name: '405', method: 'PUT', url: '/books/1', headers: READ },
  { name: 'OPTIONS', method: 'OPTIONS', url: '/books/1', headers: READ },
  { name: 'HEAD', method: 'HEAD', url: '/books/1', headers: READ },
  { name: 'v1 (retired)', url: '/v1/shelves', headers: READ },
  { name: 'v2', url: '/v2/shelves', headers: READ },
  {
    name: 'version by Accept',
    url: '/shelves',
    headers: { ...READ, accept: 'application/vnd.api.v2+json' },
  },
  { name: '500 masked', url: '/failures' },
  { name: 'cache policy', url: '/statuses' },
  {
    name: 'preflight',
    method: 'OPTIONS',
    url: '/books/1',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH' },
  },
  { name: 'not found', url: '/nowhere', headers: READ },
]

interface Seen {
  status: number
  headers: Record<string, unknown>
  body: string
}

function normalize(res: LightMyRequestResponse): Seen {
  const headers: Record<string, unknown> = { ...res.headers }
  for (const volatile of ['date', 'x-request-id', 'x-ratelimit-reset', 'content-length']) {
    delete headers[volatile]
  }
  const raw = headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload
  const body = raw
    .toString()
    .replace(/"requestId":"[^"]*"/g, '"requestId":"-"')
    .replace(/"timestamp":"[^"]*"/g, '"timestamp":"-"')
    .replace(/<requestId>[^<]*<\/requestId>/g, '<requestId>-</requestId>')
    .replace(/<timestamp>[^<]*<\/timestamp>/g, '<timestamp>-</timestamp>')
  return { status: res.statusCode, headers, body }
}

async function run(app: FastifyInstance): Promise<Seen[]> {
  const seen: Seen[] = []
  let previous: LightMyRequestResponse | undefined
  for (const step of steps) {
    const headers = { ...step.headers }
    if (step.from !== undefined && previous !== undefined) {
      headers[step.from.as] = String(previous.headers[step.from.header])
    }
    const res = await app.inject({
      method: step.method ?? 'GET',
      url: step.url,
      headers,
      payload: step.body,
    })
    seen.push(normalize(res))
    previous = res
  }
  return seen
}

test('the same requests get the same answers whatever the order of registration', async (t) => {
  const after = await run(await build('after'))
  const before = await run(await build('before'))
  const unawaited = await run(await build('unawaited'))
  steps.forEach((step, i) => {
    t.same(before[i], after[i], `${step.name}: routes before restwell`)
    t.same(unawaited[i], after[i], `${step.name}: restwell registered without await`)
  })
  // The reference itself shows the conventions at work, so the comparison is not vacuous.
  const status = (name: string) => after[steps.findIndex((s) => s.name === name)]!
  t.equal(status('item').headers.etag, '"1"')
  t.equal(status('item gzip (a 1 KB JSON is compressed)').headers['content-encoding'], 'gzip')
  t.equal(status('304 from the ETag').status, 304)
  t.match(status('XML').headers['content-type'], /application\/xml/)
  t.equal(status('406').status, 406)
  t.equal(status('range').status, 206)
  t.equal(status('page 2').headers['x-total-count'], '30')
  t.equal(status('bad limit').status, 400)
  t.equal(status('no token').status, 401)
  t.equal(status('missing scope').status, 403)
  t.equal(status('428').status, 428)
  t.equal(status('415').status, 415)
  t.equal(status('merge patch').status, 200)
  t.equal(status('412').status, 412)
  t.equal(status('read-only').status, 422)
  t.equal(status('deleted item').status, 410)
  t.equal(status('405').status, 405)
  t.equal(status('v1 (retired)').headers.deprecation, '@1767225600', 'RFC 9745 date')
  t.equal(status('version by Accept').headers['api-version'], '2')
  t.equal(status('500 masked').status, 500)
  t.notMatch(status('500 masked').body, /secret/)
  t.equal(status('cache policy').headers['cache-control'], 'public, max-age=5')
  t.equal(status('preflight').status, 200)
})

test('a route that breaks the naming rules fails registration wherever it is declared', async (t) => {
  for (const order of ['before', 'after'] as const) {
    const app = Fastify()
    apps.push(app)
    if (order === 'before') app.get('/getBooks', async () => [])
    app.register(restwell, { naming: { mode: 'error' } })
    if (order === 'after') app.get('/getBooks', async () => [])
    await t.rejects(async () => app.ready(), /getBooks/, order)
  }
})

test('routes in plugins that loaded before restwell fail ready(), named with the fix', async (t) => {
  const app = Fastify()
  apps.push(app)
  app.get('/early', async () => 'x')
  await app.register(async (child) => {
    child.get('/inner', async () => 'x')
  })
  app.register(restwell)
  const error = await app.ready().then(
    () => undefined,
    (failure: unknown) => failure as { code: string; routes: string[]; message: string },
  )
  t.equal(error?.code, 'RESTWELL_ROUTES_OUT_OF_REACH')
  t.same(error?.routes, ['GET /inner', 'HEAD /inner'], 'a root route registered earlier is adopted')
  t.match(
    error?.message,
    /^restwell: GET \/inner, HEAD \/inner were declared in plugins that loaded before restwell/,
  )
  t.match(error?.message, /await app\.register\(restwell\)` before registering the plugins/)
})

test('a long list of routes out of reach is cut at ten', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(async (child) => {
    for (let i = 0; i < 6; i++) child.get(`/r${i}`, async () => 'x')
  })
  app.register(restwell)
  await t.rejects(async () => app.ready(), {
    message: /GET \/r4, HEAD \/r4 and 2 more were declared/,
  })
})

test('restwell registered first reaches the routes of every plugin after it', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell)
  await app.register(async (child) => {
    child.get('/inner', { config: { auth: false } }, async () => {
      throw new Error('db down: password=hunter2')
    })
  })
  const answer = await app.inject({ url: '/inner' })
  t.equal(answer.statusCode, 500)
  t.notMatch(answer.body, /hunter2/, 'the 500 is masked')
  t.match(answer.json(), { error: { requestId: String } })
})
