/** Apps whose routes are validated or serialized by a type provider's compilers (Zod). */
import { ErrorCode } from '@restwell/errors'
import type { RouteEntry } from '@restwell/core'
import type { FastifySchema } from 'fastify'
import { test } from 'tap'
import { augmentRouteSchema } from '../src/index.js'
import { buildApp, links } from './helpers.js'
import {
  ZodLike,
  zAny,
  zObject,
  zodCompilers,
  useZodCompilers,
} from '../../../test/helpers/zod-like.js'

const plan = {
  cursor: false,
  defaultLimit: 20,
  maxLimit: 100,
  sortable: ['title'],
  defaultSort: undefined,
  filterable: [],
  totalHeader: 'x-total-count' as const,
}

test('with Zod compilers: paginated routes work, their schemas are left alone', async (t) => {
  const { app } = await buildApp()
  const zod = useZodCompilers(app)
  const schemas: Record<string, FastifySchema | undefined> = {}
  app.addHook('onRoute', (route: RouteEntry) => {
    if (route.method === 'GET') schemas[route.url] = route.schema
  })
  const querystring = zObject()
  const ok = zAny()
  const queries: Record<string, unknown> = {}
  app.get(
    '/books',
    {
      schema: { querystring, response: { 200: ok } },
      config: { pagination: { sortable: ['title'], defaultSort: '-title' } },
    },
    async (request, reply) => {
      queries.books = { ...(request.query as object) }
      return reply.paginate([{ id: 1 }, { id: 2 }], { total: 45 })
    },
  )
  app.get(
    '/authors',
    { config: { pagination: { sortable: ['name'], defaultSort: 'name' } } },
    async (request, reply) => {
      queries.authors = { ...(request.query as object) }
      return reply.paginate([{ id: 1 }], { total: 1 })
    },
  )
  await app.ready()
  t.ok(
    zod.compiled.every((schema) => schema instanceof ZodLike),
    'the compilers were handed their own schemas only',
  )
  t.equal(zod.compiled.length, 4, 'querystring and response of GET and HEAD /books')
  t.equal(schemas['/books']?.querystring, querystring, 'the Zod querystring is kept as it is')
  t.equal((schemas['/books']?.response as Record<string, unknown> | undefined)?.[200], ok)
  t.equal(schemas['/authors'], undefined, 'a route without a schema keeps none')

  const books = await app.inject('/books?page=2&limit=2')
  t.equal(books.statusCode, 200)
  t.same(books.json().data, [{ id: 1 }, { id: 2 }])
  t.equal(links(books.headers.link).next, '/books?page=3&limit=2')
  t.equal(books.headers['x-total-count'], '45')
  t.same(queries.books, { page: 2, limit: 2, sort: '-title' })

  const authors = await app.inject('/authors')
  t.equal(authors.statusCode, 200)
  t.equal(links(authors.headers.link).first, '/authors?page=1&limit=20')
  t.same(queries.authors, { limit: 20, page: 1, sort: 'name' }, 'as Fastify’s validator gives it')
})

test('with Zod compilers: bad page, limit and sort are still 400 in the error form', async (t) => {
  const { app } = await buildApp()
  useZodCompilers(app)
  let called = 0
  const handler = async (_request: unknown, reply: { paginate(items: unknown[]): unknown }) => {
    called++
    return reply.paginate([])
  }
  app.get(
    '/books',
    { schema: { querystring: zObject() }, config: { pagination: { sortable: ['title'] } } },
    handler,
  )
  app.get('/authors', { config: { pagination: { sortable: ['name'], maxLimit: 5 } } }, handler)
  const cases: [string, string, string, RegExp][] = [
    ['/books?page=0', 'page', ErrorCode.INVALID_PAGINATION, /at least 1/],
    ['/books?page=abc', 'page', ErrorCode.INVALID_PAGINATION, /positive integer/],
    ['/books?limit=101', 'limit', ErrorCode.INVALID_PAGINATION, /at most 100/],
    ['/books?limit=1&limit=2', 'limit', ErrorCode.INVALID_PAGINATION, /once/],
    ['/books?sort=author', 'sort', ErrorCode.INVALID_SORT, /cannot sort by "author"/],
    ['/books?color=red', 'color', ErrorCode.INVALID_FILTER, /not a filter/],
    ['/authors?limit=6', 'limit', ErrorCode.INVALID_PAGINATION, /at most 5/],
    ['/authors?page=1.5', 'page', ErrorCode.INVALID_PAGINATION, /positive integer/],
    ['/authors?sort=-', 'sort', ErrorCode.INVALID_SORT, /comma-separated/],
  ]
  for (const [url, param, code, message] of cases) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, url)
    const error = res.json().error
    t.equal(error.code, code, url)
    t.same(error.details, [
      { field: `querystring/${param}`, message: error.details[0].message, code },
    ])
    t.match(error.details[0].message, message, url)
  }
  t.equal(called, 0, 'no handler ran')
  t.equal((await app.inject('/authors?limit=5&sort=-name')).statusCode, 200)
})

test('only the parts Fastify compiles itself gain the pagination schema', async (t) => {
  const { app } = await buildApp()
  const zod = zodCompilers()
  const schemas: Record<string, FastifySchema | undefined> = {}
  app.addHook('onRoute', (route: RouteEntry) => {
    if (route.method === 'GET') schemas[route.url] = route.schema
  })
  const handler = async (_request: unknown, reply: { paginate(items: unknown[]): unknown }) =>
    reply.paginate([])
  // A route with its own validator compiler: its response is still Fastify's to serialize.
  app.get(
    '/own-validator',
    { validatorCompiler: zod.validatorCompiler, config: { pagination: true } },
    handler,
  )
  await app.register(async (child) => {
    child.setSerializerCompiler(zod.serializerCompiler)
    child.get('/own-serializer', { config: { pagination: true } }, handler)
  })
  await app.ready()
  const own = schemas['/own-validator'] as {
    querystring: unknown
    response: Record<string, unknown>
  }
  t.equal(own.querystring, undefined)
  t.match(own.response[200], { headers: { link: { type: 'string' } } })
  const child = schemas['/own-serializer'] as {
    querystring: { properties: Record<string, unknown> }
    response: unknown
  }
  t.strictSame(Object.keys(child.querystring.properties), ['page', 'limit'])
  t.equal(child.response, undefined)
  t.same(zod.compiled, [], 'nothing for the Zod compilers to compile')
  t.equal((await app.inject('/own-validator?page=2')).statusCode, 200)
  t.equal((await app.inject('/own-validator?page=x')).statusCode, 400)
  t.equal((await app.inject('/own-serializer?page=2')).statusCode, 200)
  t.equal((await app.inject('/own-serializer?page=x')).statusCode, 400)
})

test('augmentRouteSchema never copies a schema object that is not plain JSON Schema', async (t) => {
  const zod = zObject()
  t.equal(augmentRouteSchema(zod as FastifySchema, plan), zod, 'a whole schema of another kind')
  const none = { validation: false, response: false }
  t.equal(augmentRouteSchema(undefined, plan, none), undefined, 'nothing may be added')
  const given = { querystring: zod, response: { '2xx': zod, default: { type: 'object' } } }
  const out = augmentRouteSchema(given, plan) as {
    querystring: unknown
    response: Record<string, unknown>
  }
  t.equal(out.querystring, zod)
  t.equal(out.response['2xx'], zod)
  t.match(out.response.default, { type: 'object', headers: { link: {} } })
  t.notOk('200' in out.response, 'no 200 next to a 2xx of another kind')
  const map = Object.assign(Object.create({ inherited: true }), { 200: { type: 'object' } })
  t.equal(
    (augmentRouteSchema({ response: map }, plan) as { response: unknown }).response,
    map,
    'a response map that is not a plain object',
  )
  t.same(augmentRouteSchema({}, plan, { validation: true, response: false }), {
    querystring: {
      type: 'object',
      properties: {
        page: {
          type: 'integer',
          minimum: 1,
          maximum: Math.floor(Number.MAX_SAFE_INTEGER / 100),
          default: 1,
          description: 'Page number, starting at 1.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 100,
          default: 20,
          description: 'Items per page.',
        },
        sort: {
          type: 'string',
          maxLength: 1024,
          pattern: '^\\s*[+-]?(?:title)\\s*(?:,\\s*[+-]?(?:title)\\s*)*$',
          description: 'Comma-separated sort keys, `-` for descending. Fields: title.',
        },
      },
    },
  })
})
