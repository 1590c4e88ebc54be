/** Apps whose routes are validated or serialized by a type provider's compilers (Zod). */
import { ErrorCode, restwellErrors } from '@restwell/errors'
import type { RouteEntry } from '@restwell/core'
import Fastify, { type FastifySchema } from 'fastify'
import { test } from 'tap'
import { markDeleted, restwellSoftDelete } from '../src/index.js'
import { withInclusionParam } from '../src/schema.js'
import {
  ZodLike,
  zAny,
  zObject,
  zodCompilers,
  useZodCompilers,
} from '../../../test/helpers/zod-like.js'

test('with Zod compilers: soft-delete routes work, their schemas are left alone', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const zod = useZodCompilers(app)
  await app.register(restwellErrors)
  await app.register(restwellSoftDelete)
  const schemas: Record<string, FastifySchema | undefined> = {}
  app.addHook('onRoute', (route: RouteEntry) => {
    schemas[`${route.method} ${route.url}`] = route.schema
  })
  const posts = [
    { id: 1, deleted: false, deletedAt: null },
    { id: 2, deleted: true, deletedAt: '2025-01-02T03:04:05.000Z' },
  ]
  app.get('/posts/:id', { config: { softDelete: true } }, async (request) => ({
    ...posts[Number((request.params as { id: string }).id) - 1],
    include: request.softDelete?.include,
  }))
  const querystring = zObject()
  app.get(
    '/posts',
    { schema: { querystring, response: { 200: zAny() } }, config: { softDelete: true } },
    async () => posts,
  )
  app.delete('/posts/:id', { config: { softDelete: true } }, async () => markDeleted(posts[0]!))
  await app.ready()
  t.ok(
    zod.compiled.every((schema) => schema instanceof ZodLike),
    'the compilers were handed their own schemas only',
  )
  t.equal(schemas['GET /posts/:id'], undefined, 'a route without a schema keeps none')
  t.equal(schemas['GET /posts']?.querystring, querystring, 'the Zod querystring is kept')

  const one = await app.inject('/posts/1')
  t.equal(one.statusCode, 200)
  t.match(one.json(), { id: 1, deleted: false, include: 'active' })
  t.match((await app.inject('/posts/1?deleted=include')).json(), { include: 'all' })
  t.match((await app.inject('/posts/2')).json(), { id: 2, deleted: true })
  const all = await app.inject('/posts?deleted=include')
  t.same(
    all.json().map((p: { id: number }) => p.id),
    [1, 2],
  )
  t.same(
    (await app.inject('/posts')).json().map((p: { id: number }) => p.id),
    [1],
  )
  for (const url of ['/posts/1?deleted=maybe', '/posts?deleted=a&deleted=b']) {
    const bad = await app.inject(url)
    t.equal(bad.statusCode, 400, url)
    t.equal(bad.json().error.code, ErrorCode.INVALID_FILTER)
    t.equal(bad.json().error.details[0].field, 'querystring/deleted')
  }
  const deleted = await app.inject({ method: 'DELETE', url: '/posts/1' })
  t.equal(deleted.statusCode, 200)
  t.match(deleted.json(), { id: 1, deleted: true })
})

test('the parameter is described only where Fastify validates the querystring itself', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const zod = zodCompilers()
  await app.register(restwellSoftDelete)
  const schemas: Record<string, FastifySchema | undefined> = {}
  app.addHook('onRoute', (route: RouteEntry) => {
    if (route.method === 'GET') schemas[route.url] = route.schema
  })
  app.get(
    '/own-validator',
    { validatorCompiler: zod.validatorCompiler, config: { softDelete: true } },
    async (request) => request.softDelete,
  )
  await app.register(async (child) => {
    child.setSerializerCompiler(zod.serializerCompiler)
    child.get('/own-serializer', { config: { softDelete: true } }, async () => [])
  })
  await app.ready()
  t.equal(schemas['/own-validator'], undefined)
  t.match(schemas['/own-serializer'], {
    querystring: { type: 'object', properties: { deleted: { type: 'string' } } },
  })
  t.same(zod.compiled, [])
  t.match((await app.inject('/own-validator?deleted=only')).json(), { include: 'deleted' })
  t.equal((await app.inject('/own-validator?deleted=x')).statusCode, 400)
  t.equal((await app.inject('/own-serializer?deleted=x')).statusCode, 400)
})

test('withInclusionParam never copies a schema object that is not plain JSON Schema', async (t) => {
  const zod = zObject()
  t.equal(withInclusionParam(zod as FastifySchema, 'deleted'), zod)
  const given = { querystring: zod, params: zObject() }
  const out = withInclusionParam(given, 'deleted')
  t.not(out, given, 'a copy')
  t.equal(out.querystring, zod)
  t.equal(out.params, given.params)
})
