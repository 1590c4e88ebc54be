import { gzipSync } from 'node:zlib'
import { ErrorCode } from '@restwell/errors'
import { type PageInfo, pageOf } from '@restwell/core'
import { onEveryRoute, PAGE } from '@restwell/core/internal'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { test } from 'tap'
import { markDeleted, restwellSoftDelete } from '../src/index.js'
import { buildApp } from './helpers.js'

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

test('soft DELETE answers 200 with deleted: true and an ISO 8601 UTC deletedAt', async (t) => {
  const { app, store } = await buildApp()
  const before = Date.now()
  const res = await app.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  const body = res.json()
  t.equal(body.deleted, true)
  t.match(body.deletedAt, ISO_UTC)
  t.ok(Date.parse(body.deletedAt) >= before - 1000)
  t.strictSame(body, { id: 1, title: 'Dune', deleted: true, deletedAt: body.deletedAt })
  t.strictSame(store.get(1), body, 'the stored resource is the one sent')
})

test('a second soft DELETE is idempotent: 200 and the same deletedAt', async (t) => {
  const { app } = await buildApp()
  const first = (await app.inject({ method: 'DELETE', url: '/books/2' })).json()
  await new Promise((resolve) => setTimeout(resolve, 5))
  const again = await app.inject({ method: 'DELETE', url: '/books/2' })
  t.equal(again.statusCode, 200)
  t.strictSame(again.json(), first)
  const old = await app.inject({ method: 'DELETE', url: '/books/3' })
  t.equal(old.json().deletedAt, '2025-03-04T05:06:07.000Z')
  t.equal((await app.inject({ method: 'DELETE', url: '/books/9' })).statusCode, 404)
})

test('hard DELETE answers 204 with no body', async (t) => {
  const { app, store } = await buildApp()
  const res = await app.inject({ method: 'DELETE', url: '/archive/1' })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  t.notOk(store.has(1))
  t.equal((await app.inject({ method: 'DELETE', url: '/archive/1' })).statusCode, 404)
  const hard = await buildApp({ mode: 'hard' })
  t.equal(
    (await hard.app.inject({ method: 'DELETE', url: '/books/2' })).statusCode,
    204,
    'plugin-wide hard mode',
  )
})

test('collections hide soft-deleted items unless asked', async (t) => {
  const { app } = await buildApp()
  const ids = async (url: string): Promise<number[]> =>
    (await app.inject(url)).json().map((b: { id: number }) => b.id)
  t.strictSame(await ids('/books'), [1, 2])
  t.strictSame(await ids('/books?deleted=exclude'), [1, 2])
  t.strictSame(await ids('/books?deleted=include'), [1, 2, 3])
  t.strictSame(await ids('/books?include=author,deleted'), [1, 2, 3])
  t.strictSame(await ids('/books?include=author'), [1, 2])
  t.strictSame(await ids('/books?deleted=only'), [3])
  t.strictSame(await ids('/books?deleted=only&include=deleted'), [3], 'the deleted parameter wins')
  const all = (await app.inject('/books?deleted=include')).json()
  t.strictSame(all[2], {
    id: 3,
    title: 'Ulysses',
    deleted: true,
    deletedAt: '2025-03-04T05:06:07.000Z',
  })
})

test('request.softDelete tells the handler what to include', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete, { param: 'trashed', includeParam: false })
  app.get('/x', { config: { softDelete: true } }, async (request) => request.softDelete)
  app.get('/plain', async (request) => ({ softDelete: request.softDelete }))
  t.strictSame((await app.inject('/x')).json(), { include: 'active', restore: false })
  t.strictSame((await app.inject('/x?trashed=include')).json(), { include: 'all', restore: false })
  t.strictSame((await app.inject('/x?trashed=only')).json(), { include: 'deleted', restore: false })
  t.strictSame((await app.inject('/x?include=deleted')).json(), {
    include: 'active',
    restore: false,
  })
  t.strictSame(
    (await app.inject('/plain?trashed=nonsense')).json(),
    { softDelete: null },
    'other routes pay nothing',
  )
})

test('a bad inclusion value: 400 INVALID_FILTER naming the parameter', async (t) => {
  const { app } = await buildApp()
  for (const url of [
    '/books?deleted=yes',
    '/books?deleted=',
    '/books?deleted=only&deleted=only',
    '/books?deleted=__proto__',
  ]) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, url)
    const error = res.json().error
    t.equal(error.code, ErrorCode.INVALID_FILTER)
    t.equal(error.details[0].field, 'querystring/deleted')
    t.equal(error.details[0].code, ErrorCode.INVALID_FILTER)
  }
})

test('a safety net drops hidden items from plain arrays a GET handler returns', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete)
  const rows = [{ id: 1 }, { id: 2, deletedAt: 1_700_000_000_000 }]
  app.get('/raw', { config: { softDelete: true } }, async () => rows)
  app.get('/off', { config: { softDelete: { filterArrays: false } } }, async () => rows)
  app.post('/raw', { config: { softDelete: true } }, async () => rows)
  t.strictSame((await app.inject('/raw')).json(), [{ id: 1 }])
  t.strictSame((await app.inject('/raw?deleted=only')).json(), [
    { id: 2, deletedAt: '2023-11-14T22:13:20.000Z', deleted: true },
  ])
  t.equal((await app.inject('/off')).json().length, 2)
  t.equal(
    (await app.inject({ method: 'POST', url: '/raw' })).json().length,
    2,
    'only GET and HEAD are filtered',
  )
  const off = Fastify()
  await off.register(restwellSoftDelete, { filterArrays: false })
  off.get('/raw', { config: { softDelete: true } }, async () => rows)
  t.equal((await off.inject('/raw')).json().length, 2)
})

test('a QUERY answer hides deleted items like a GET listing, and takes ?deleted=', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete)
  const rows = [{ id: 1 }, { id: 2, deletedAt: 1_700_000_000_000 }]
  app.route({
    method: 'QUERY',
    url: '/raw',
    config: { softDelete: true },
    schema: { body: { type: 'object' } },
    handler: async () => rows,
  })
  const query = (url: string) => app.inject({ method: 'QUERY', url, payload: {} })
  t.strictSame((await query('/raw')).json(), [{ id: 1 }])
  t.equal((await query('/raw?deleted=include')).json().length, 2)
  t.strictSame((await query('/raw?deleted=only')).json(), [
    { id: 2, deletedAt: '2023-11-14T22:13:20.000Z', deleted: true },
  ])
  const bad = await query('/raw?deleted=maybe')
  t.equal(bad.statusCode, 400, 'the parameter is validated on QUERY routes too')
})

test('GET of a soft-deleted item: 200 with its fields by default', async (t) => {
  const { app } = await buildApp()
  const res = await app.inject('/books/3')
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), {
    id: 3,
    title: 'Ulysses',
    deleted: true,
    deletedAt: '2025-03-04T05:06:07.000Z',
  })
  t.strictSame(
    (await app.inject('/books/1')).json(),
    { id: 1, title: 'Dune' },
    'active items are untouched',
  )
})

test('GET of a soft-deleted item: 410 Gone RESOURCE_DELETED when configured', async (t) => {
  const { app } = await buildApp({ gone: true })
  const res = await app.inject('/books/3')
  t.equal(res.statusCode, 410)
  t.equal(res.json().error.code, ErrorCode.RESOURCE_DELETED)
  t.match(res.json().error.message, /deleted at 2025-03-04T05:06:07.000Z/)
  const head = await app.inject({ method: 'HEAD', url: '/books/3' })
  t.equal(head.statusCode, 410)
  t.equal(head.body, '')
  t.equal(
    (await app.inject('/books/3?deleted=include')).statusCode,
    200,
    'asking for deleted items shows it',
  )
  t.equal((await app.inject('/books/1')).statusCode, 200)
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/books/3' })).statusCode,
    200,
    'DELETE stays idempotent',
  )
  t.equal((await app.inject('/books')).statusCode, 200, 'collections are not gone')

  const route = Fastify()
  await route.register(restwellSoftDelete)
  route.get('/gone', { config: { softDelete: { gone: true } } }, async () => ({
    id: 1,
    deleted: true,
    deletedAt: 0,
  }))
  const plain = await route.inject('/gone')
  t.equal(plain.statusCode, 410, 'per route, and without the errors plugin')
  t.equal(plain.json().code, ErrorCode.RESOURCE_DELETED)
})

test('restore with PATCH { deleted: false } clears deletedAt', async (t) => {
  const { app, store } = await buildApp()
  const res = await app.inject({
    method: 'PATCH',
    url: '/books/3',
    headers: { 'content-type': 'application/json' },
    payload: { deleted: false, title: 'Ulysses (restored)' },
  })
  t.equal(res.statusCode, 200)
  t.strictSame(res.json(), { id: 3, title: 'Ulysses (restored)' })
  t.strictSame(store.get(3), { id: 3, title: 'Ulysses (restored)' })
  const ids = (await app.inject('/books')).json().map((b: { id: number }) => b.id)
  t.strictSame(ids, [1, 2, 3], 'back in the collection')
  const other = await app.inject({ method: 'PATCH', url: '/books/1', payload: { title: 'Dune!' } })
  t.strictSame(other.json(), { id: 1, title: 'Dune!' })
  const deletedEdit = await app.inject({
    method: 'PATCH',
    url: '/books/2',
    payload: [{ op: 'remove', path: '/deletedAt' }],
    headers: { 'content-type': 'application/json' },
  })
  t.equal(deletedEdit.statusCode, 200)
})

test('a PATCH that does not restore keeps a deleted resource deleted', async (t) => {
  const { app } = await buildApp()
  const res = await app.inject({ method: 'PATCH', url: '/books/3', payload: { title: 'U.' } })
  t.strictSame(res.json(), {
    id: 3,
    title: 'U.',
    deleted: true,
    deletedAt: '2025-03-04T05:06:07.000Z',
  })
})

test('reply.softDeleted, reply.restored and reply.hardDeleted', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete)
  app.delete('/soft', async (_request, reply) => reply.softDeleted({ id: 1 }))
  app.delete('/again', async (_request, reply) =>
    reply.softDeleted({ id: 1, deletedAt: new Date(Date.UTC(2024, 0, 1)) }),
  )
  app.post('/restore', async (_request, reply) =>
    reply.restored({ id: 1, deleted: true, deletedAt: 'x' }),
  )
  app.delete('/hard', async (_request, reply) => reply.hardDeleted())
  const soft = await app.inject({ method: 'DELETE', url: '/soft' })
  t.equal(soft.statusCode, 200)
  t.match(soft.json(), { id: 1, deleted: true, deletedAt: ISO_UTC })
  t.strictSame((await app.inject({ method: 'DELETE', url: '/again' })).json(), {
    id: 1,
    deletedAt: '2024-01-01T00:00:00.000Z',
    deleted: true,
  })
  const restored = await app.inject({ method: 'POST', url: '/restore' })
  t.equal(restored.statusCode, 200)
  t.strictSame(restored.json(), { id: 1 })
  const hard = await app.inject({ method: 'DELETE', url: '/hard' })
  t.equal(hard.statusCode, 204)
  t.equal(hard.body, '')
})

test('deletedAt in any date form is sent as ISO 8601 UTC; a broken one is a 500', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete)
  app.get('/offset', { config: { softDelete: true } }, async () => ({
    id: 1,
    deletedAt: '2024-06-01T12:00:00+02:00',
  }))
  app.get('/epoch', { config: { softDelete: true } }, async () => ({
    id: 1,
    deleted: true,
    deletedAt: 0,
  }))
  app.get('/broken', { config: { softDelete: true } }, async () => ({
    id: 1,
    deleted: true,
    deletedAt: 'yesterday',
  }))
  app.get('/missing', { config: { softDelete: true } }, async () => ({ id: 1, deleted: true }))
  app.put('/restored', { config: { softDelete: true } }, async () => ({
    id: 1,
    deleted: false,
    deletedAt: 'x',
  }))
  app.get('/text', { config: { softDelete: true } }, async (_request, reply) =>
    reply.type('text/plain').send('plain'),
  )
  t.strictSame((await app.inject('/offset')).json(), {
    id: 1,
    deletedAt: '2024-06-01T10:00:00.000Z',
    deleted: true,
  })
  t.strictSame((await app.inject('/epoch')).json(), {
    id: 1,
    deleted: true,
    deletedAt: '1970-01-01T00:00:00.000Z',
  })
  t.equal((await app.inject('/broken')).statusCode, 500)
  t.equal((await app.inject('/missing')).statusCode, 500)
  t.strictSame(
    (await app.inject({ method: 'PUT', url: '/restored' })).json(),
    { id: 1, deleted: false, deletedAt: 'x' },
    '`deleted: false` wins',
  )
  t.equal((await app.inject('/text')).body, 'plain')
})

test('a soft DELETE handler that sends a resource that is not deleted is a 500', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete)
  app.delete('/x', { config: { softDelete: true } }, async () => ({ id: 1 }))
  const res = await app.inject({ method: 'DELETE', url: '/x' })
  t.equal(res.statusCode, 500)
})

test('error responses and redirects pass through untouched', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete, { mode: 'hard' })
  app.get('/redirect', { config: { softDelete: true } }, async (_request, reply) =>
    reply.redirect('/elsewhere', 301),
  )
  app.delete('/conflict', { config: { softDelete: true } }, async (_request, reply) =>
    reply.code(409).send({ id: 1, deleted: true, deletedAt: 'not a date' }),
  )
  app.delete('/list', { config: { softDelete: true } }, async () => [{ id: 1, deletedAt: 0 }])
  t.equal((await app.inject('/redirect')).statusCode, 301)
  const conflict = await app.inject({ method: 'DELETE', url: '/conflict' })
  t.equal(conflict.statusCode, 409)
  t.equal(conflict.json().deletedAt, 'not a date')
  t.equal((await app.inject({ method: 'DELETE', url: '/list' })).statusCode, 204)
})

test('routes with several methods and existing hooks', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete)
  const order: string[] = []
  app.route({
    method: ['GET', 'DELETE', 'PATCH'],
    url: '/multi',
    config: { softDelete: { mode: 'hard' } },
    onRequest: async () => {
      order.push('onRequest')
    },
    preHandler: [
      async (request) => {
        order.push(`preHandler restore=${request.softDelete?.restore}`)
      },
    ],
    preSerialization: async (_request, _reply, payload) => {
      order.push('preSerialization')
      return payload
    },
    onSend: async (_request, _reply, payload) => payload,
    handler: async () => ({ id: 1, deletedAt: 0 }),
  })
  t.equal((await app.inject('/multi?deleted=include')).statusCode, 200)
  t.equal((await app.inject({ method: 'DELETE', url: '/multi' })).statusCode, 204)
  t.equal(
    (await app.inject({ method: 'PATCH', url: '/multi', payload: { deleted: false } })).statusCode,
    200,
  )
  t.strictSame(order.slice(-3), ['onRequest', 'preHandler restore=true', 'preSerialization'])
})

test('registration errors: bad options and bad route config', async (t) => {
  await t.rejects(
    async () => {
      await Fastify().register(restwellSoftDelete, { mode: 'sometimes' as 'soft' })
    },
    { code: 'RESTWELL_INVALID_OPTION', message: /mode/ },
  )
  await t.rejects(
    async () => {
      await Fastify().register(restwellSoftDelete, { param: 'has space' })
    },
    { message: /param/ },
  )
  // One name for both: `param` would take `?include=deleted` and answer 400.
  await t.rejects(
    async () => {
      await Fastify().register(restwellSoftDelete, { param: 'include' })
    },
    { name: 'OptionsError', option: 'param', message: /both "include"/ },
  )
  await t.rejects(
    async () => {
      await Fastify().register(restwellSoftDelete, { includeParam: 'deleted' })
    },
    { name: 'OptionsError', option: 'includeParam', message: /both "deleted"/ },
  )
  const clash = Fastify()
  await clash.register(restwellSoftDelete, { param: 'include', includeParam: false })
  clash.get('/books', { config: { softDelete: true } }, async (request) => ({
    include: request.softDelete?.include,
  }))
  t.strictSame(
    (await clash.inject('/books?include=only')).json(),
    { include: 'deleted' },
    'param may take the name when includeParam is off',
  )
  const app = Fastify()
  await app.register(restwellSoftDelete)
  t.throws(
    () =>
      app.get(
        '/x',
        { config: { softDelete: { gone: 'yes' as unknown as boolean } } },
        async () => 'x',
      ),
    {
      message: /config.softDelete of GET \/x.*gone/,
    },
  )
  app.get('/off', { config: { softDelete: false } }, async (request) => ({ s: request.softDelete }))
  t.strictSame((await app.inject('/off?deleted=bad')).json(), { s: null })
})

test('on the wire: 204 has no body, 410 is an error body', async (t) => {
  const { app } = await buildApp({ gone: true })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const hard = await fetch(`http://127.0.0.1:${port}/archive/2`, { method: 'DELETE' })
  t.equal(hard.status, 204)
  t.equal(await hard.text(), '')
  t.equal(hard.headers.get('content-length'), null)
  const gone = await fetch(`http://127.0.0.1:${port}/books/3`)
  t.equal(gone.status, 410)
  t.equal(((await gone.json()) as { error: { code: string } }).error.code, 'RESOURCE_DELETED')
  const soft = await fetch(`http://127.0.0.1:${port}/books/1`, { method: 'DELETE' })
  t.equal(soft.status, 200)
  t.equal(((await soft.json()) as { deleted: boolean }).deleted, true)
  t.same(markDeleted({ a: 1 }, new Date(0)), {
    a: 1,
    deleted: true,
    deletedAt: '1970-01-01T00:00:00.000Z',
  })
})

test('GET routes declare the inclusion parameter in their querystring schema', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete, { param: 'trashed' })
  app.addSchema({ $id: 'q', type: 'object', properties: {} })
  const schemas: Record<string, unknown> = {}
  app.addHook('onRoute', (route) => {
    schemas[`${route.method} ${route.url}`] = route.schema
  })
  const shared = {
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: { q: { type: 'string' } },
    },
  }
  app.get(
    '/a',
    { config: { softDelete: true }, schema: shared },
    async (request) => request.softDelete,
  )
  app.get('/b', { config: { softDelete: true } }, async () => [])
  app.get(
    '/c',
    { config: { softDelete: true }, schema: { querystring: { $ref: 'q#' } } },
    async () => [],
  )
  app.get(
    '/d',
    {
      config: { softDelete: true },
      schema: { querystring: { properties: { trashed: { type: 'string' } } } },
    },
    async () => [],
  )
  app.delete('/e', { config: { softDelete: true } }, async () => ({ deleted: true, deletedAt: 0 }))
  app.get(
    '/f',
    { config: { softDelete: true }, schema: { querystring: { type: 'object' } } },
    async () => [],
  )
  await app.ready()
  t.strictSame(
    shared.querystring.properties,
    { q: { type: 'string' } },
    'shared schema not mutated',
  )
  t.match(schemas['GET /a'], {
    querystring: {
      additionalProperties: false,
      properties: { trashed: { enum: ['exclude', 'include', 'only'] }, q: {} },
    },
  })
  t.match(schemas['GET /b'], {
    querystring: { type: 'object', properties: { trashed: { type: 'string' } } },
  })
  t.strictSame((schemas['GET /c'] as { querystring: unknown }).querystring, { $ref: 'q#' })
  t.strictSame((schemas['GET /d'] as { querystring: unknown }).querystring, {
    properties: { trashed: { type: 'string' } },
  })
  t.equal(schemas['DELETE /e'], undefined)
  t.match(schemas['GET /f'], {
    querystring: { type: 'object', properties: { trashed: { type: 'string' } } },
  })
  t.strictSame((await app.inject('/a?trashed=only&q=x')).json(), {
    include: 'deleted',
    restore: false,
  })
})

test('collections send soft-deleted items as the item route does: arrays and page envelopes', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete)
  // Rows as a database stores them: a nullable timestamp column, no `deleted` column.
  const rows = [
    { id: 1, title: 'a', deletedAt: null },
    { id: 2, title: 'b', deletedAt: 1_767_225_600_000 },
    { id: 3, title: 'c', deletedAt: new Date(Date.UTC(2026, 0, 2)) },
  ]
  const filtered = (include: string | undefined) =>
    rows.filter((r) => include === 'all' || (r.deletedAt !== null) === (include === 'deleted'))
  // What @restwell/pagination's reply.paginate() does: reply[PAGE] and the JSON envelope.
  const paginate = (reply: FastifyReply, items: readonly unknown[]) => {
    const page: PageInfo = { items, links: { self: '/paged' }, meta: { limit: 20, total: 3 } }
    ;(reply as { [PAGE]?: PageInfo })[PAGE] = page
    return reply.send({ data: page.items, meta: page.meta, links: page.links })
  }
  let sentPage: PageInfo | undefined
  app.addHook('onSend', async (_request, reply, payload) => {
    sentPage = pageOf(reply)
    return payload
  })
  app.get('/books/:id', { config: { softDelete: true } }, async (request) => {
    return rows[Number((request.params as { id: string }).id) - 1]
  })
  app.get('/books', { config: { softDelete: true } }, async () => rows)
  app.post('/books/search', { config: { softDelete: true } }, async () => rows)
  app.get('/paged', { config: { softDelete: true } }, async (request, reply) =>
    paginate(reply, filtered(request.softDelete?.include)),
  )
  app.get('/broken', { config: { softDelete: true } }, async () => [{ id: 9, deleted: true }])
  app.get('/broken-page', { config: { softDelete: true } }, async (_request, reply) =>
    paginate(reply, [{ id: 9, deletedAt: 'soon' }]),
  )
  const item = async (id: number) => (await app.inject(`/books/${id}`)).json()
  const views = [await item(1), await item(2), await item(3)]
  t.strictSame(views[1], {
    id: 2,
    title: 'b',
    deletedAt: '2026-01-01T00:00:00.000Z',
    deleted: true,
  })
  t.strictSame((await app.inject('/books?deleted=include')).json(), views, 'array, all')
  t.strictSame((await app.inject('/books?deleted=only')).json(), views.slice(1), 'array, only')
  t.strictSame((await app.inject('/books')).json(), views.slice(0, 1), 'array, active')
  t.strictSame(
    (await app.inject({ method: 'POST', url: '/books/search' })).json(),
    views,
    'an array from another method is represented too',
  )
  const page = await app.inject('/paged?deleted=include')
  t.strictSame(page.json(), {
    data: views,
    meta: { limit: 20, total: 3 },
    links: { self: '/paged' },
  })
  t.strictSame(sentPage?.items, views, 'reply[PAGE] (what HAL, JSON:API, Siren use) too')
  t.strictSame(sentPage?.links, { self: '/paged' })
  t.strictSame((await app.inject('/paged?deleted=only')).json().data, views.slice(1))
  t.strictSame((await app.inject('/paged')).json().data, views.slice(0, 1))
  t.equal((await app.inject('/broken?deleted=include')).statusCode, 500, 'broken deletedAt: 500')
  t.equal((await app.inject('/broken-page')).statusCode, 500)
})

test('a DELETE answered with a 2xx other than 200 (202 for a queued delete) passes through', async (t) => {
  for (const mode of ['soft', 'hard'] as const) {
    const app = Fastify()
    await app.register(restwellSoftDelete, { mode })
    const job = { jobId: 'j1', status: 'queued', estimatedTime: 'PT1M' }
    app.delete('/accepted/:id', { config: { softDelete: true } }, async (_request, reply) =>
      reply.code(202).header('location', '/jobs/j1').send(job),
    )
    app.delete('/multi', { config: { softDelete: true } }, async (_request, reply) =>
      reply.code(207).send([{ id: 1, status: 204 }]),
    )
    app.delete('/done', { config: { softDelete: true } }, async (_request, reply) =>
      reply.code(204).send(),
    )
    const accepted = await app.inject({ method: 'DELETE', url: '/accepted/1' })
    t.equal(accepted.statusCode, 202, `${mode}: 202 kept`)
    t.equal(accepted.headers.location, '/jobs/j1')
    t.strictSame(accepted.json(), job, `${mode}: the job status body is sent`)
    const multi = await app.inject({ method: 'DELETE', url: '/multi' })
    t.equal(multi.statusCode, 207, `${mode}: 207 kept`)
    t.strictSame(multi.json(), [{ id: 1, status: 204 }])
    const done = await app.inject({ method: 'DELETE', url: '/done' })
    t.equal(done.statusCode, 204, `${mode}: 204 kept`)
    t.equal(done.body, '')
  }
})

test('the body is shaped before hooks of plugins registered earlier (serializers)', async (t) => {
  const app = Fastify()
  // Like @restwell/negotiation's HAL or XML serializer: a route preSerialization hook that
  // turns the payload into text, from a plugin registered before soft-delete.
  await app.register(
    fp(async (instance) => {
      onEveryRoute(instance, (route) => {
        const hooks = route.preSerialization
        const serialize = async (_request: unknown, reply: FastifyReply, payload: unknown) => {
          reply.type('application/hal+json').serializer((text: unknown) => text as string)
          return JSON.stringify({ _links: { self: { href: '/x' } }, body: payload })
        }
        route.preSerialization = [
          ...(Array.isArray(hooks) ? hooks : hooks ? [hooks] : []),
          serialize,
        ]
      })
    }),
  )
  await app.register(restwellSoftDelete, { gone: true })
  const stored = { id: 1, deletedAt: 0 }
  app.delete('/books/:id', { config: { softDelete: true } }, async () => stored)
  app.get('/books/:id', { config: { softDelete: true } }, async () => stored)
  app.get('/books', { config: { softDelete: true } }, async () => [stored, { id: 2 }])
  const shown = { id: 1, deletedAt: '1970-01-01T00:00:00.000Z', deleted: true }
  const del = await app.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(del.statusCode, 200)
  t.strictSame(del.json().body, shown)
  t.equal((await app.inject('/books/1')).statusCode, 410, 'gone before serialization')
  t.strictSame((await app.inject('/books/1?deleted=include')).json().body, shown)
  t.strictSame((await app.inject('/books?deleted=only')).json().body, [shown])
})

/**
 * Stands in for @fastify/compress (not a dependency of this package), as the umbrella registers
 * it: a plugin whose onRoute hook appends a route onSend hook that, like compress's, passes a
 * null body, and gzips a body of `threshold` bytes or more, setting Vary, Content-Encoding
 * and Content-Length.
 */
const fakeCompress = fp(async (instance) => {
  const threshold = 1024
  const compress = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (payload == null) return payload
    const accepted = String(request.headers['accept-encoding'] ?? '').includes('gzip')
    const text = payload as string | Buffer
    if (!accepted || Buffer.byteLength(text) < threshold) return payload
    const gzipped = gzipSync(text)
    reply.header('vary', 'accept-encoding')
    reply.header('content-encoding', 'gzip')
    reply.header('content-length', gzipped.length)
    return gzipped
  }
  instance.addHook('onRoute', (route) => {
    const hooks = route.onSend
    route.onSend = [
      ...(Array.isArray(hooks) ? hooks : hooks ? [hooks] : []),
      async (request, reply, payload) => compress(request, reply, payload),
    ]
  })
})

test('on the wire: a hard DELETE is 204 before compression (no Content-Length, no Content-Encoding)', async (t) => {
  const row = { id: '1', text: 'x'.repeat(3000) }
  for (const compressFirst of [true, false]) {
    const app = Fastify()
    if (compressFirst) await app.register(fakeCompress) // the umbrella's order
    await app.register(restwellSoftDelete, { mode: 'hard' })
    if (!compressFirst) await app.register(fakeCompress)
    app.delete('/sessions/:id', { config: { softDelete: true } }, async () => row)
    app.get('/sessions/:id', { config: { softDelete: true } }, async () => row)
    await app.listen({ port: 0, host: '127.0.0.1' })
    t.teardown(() => app.close())
    const { port } = app.server.address() as { port: number }
    const base = `http://127.0.0.1:${port}/sessions/1`
    const label = compressFirst ? 'compress registered first' : 'compress registered after'
    const read = await fetch(base, { headers: { 'accept-encoding': 'gzip' } })
    t.equal(read.headers.get('content-encoding'), 'gzip', `${label}: a GET is compressed`)
    t.strictSame(await read.json(), row)
    for (const coding of ['identity', 'gzip']) {
      const res = await fetch(base, { method: 'DELETE', headers: { 'accept-encoding': coding } })
      t.equal(res.status, 204, `${label}, ${coding}: 204`)
      t.equal((await res.arrayBuffer()).byteLength, 0, `${label}, ${coding}: no body`)
      t.equal(res.headers.get('content-length'), null, `${label}, ${coding}: no Content-Length`)
      t.equal(res.headers.get('content-encoding'), null, `${label}, ${coding}: no Content-Encoding`)
      t.equal(res.headers.get('vary'), null, `${label}, ${coding}: not negotiated`)
    }
  }
})

test('a hard DELETE drops Content-Length and Content-Encoding set before the route hooks', async (t) => {
  const app = Fastify()
  await app.register(restwellSoftDelete, { mode: 'hard' })
  // An instance-wide onSend hook runs before every route hook: it saw the 200 and its body.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-encoding', 'gzip')
    reply.header('content-length', 59)
    return payload
  })
  app.delete('/sessions/:id', { config: { softDelete: true } }, async () => ({ id: '1' }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const res = await fetch(`http://127.0.0.1:${port}/sessions/1`, { method: 'DELETE' })
  t.equal(res.status, 204)
  t.equal(await res.text(), '')
  t.equal(res.headers.get('content-length'), null)
  t.equal(res.headers.get('content-encoding'), null)
})
