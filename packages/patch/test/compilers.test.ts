/** Apps whose routes are validated or serialized by a type provider's compilers (Zod). */
import restwellErrors, { ErrorCode, type RouteEntry } from '@restwell/errors'
import Fastify, { type FastifySchema } from 'fastify'
import { test } from 'tap'
import { restwellPatch } from '../src/index.js'
import {
  ZodLike,
  zAny,
  zObject,
  zodCompilers,
  useZodCompilers,
} from '../../../test/helpers/zod-like.js'

const JSON_PATCH = 'application/json-patch+json'
const MERGE_PATCH = 'application/merge-patch+json'

test('with Zod compilers: patch routes parse and apply, their schemas are left alone', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const zod = useZodCompilers(app)
  await app.register(restwellErrors)
  await app.register(restwellPatch)
  const schemas: Record<string, FastifySchema | undefined> = {}
  app.addHook('onRoute', (route: RouteEntry) => {
    schemas[route.url] = route.schema
  })
  const book = { id: 1, title: 'Dune', year: 1965 }
  const params = zObject()
  app.patch('/books/:id', { schema: { params, response: { 200: zAny() } } }, async (request) =>
    request.applyPatch(book),
  )
  app.patch('/authors/:id', async (request) => request.applyPatch({ name: 'Herbert' }))
  await app.ready()
  t.ok(
    zod.compiled.every((schema) => schema instanceof ZodLike),
    'the compilers were handed their own schemas only',
  )
  t.equal(schemas['/books/:id']?.params, params, 'the Zod params are kept')
  t.equal(schemas['/books/:id']?.body, undefined, 'no body schema added')
  t.equal(schemas['/authors/:id'], undefined, 'a route without a schema keeps none')

  const merge = await app.inject({
    method: 'PATCH',
    url: '/books/1',
    headers: { 'content-type': MERGE_PATCH },
    payload: { title: 'Dune Messiah', year: null },
  })
  t.equal(merge.statusCode, 200)
  t.same(merge.json(), { id: 1, title: 'Dune Messiah' })
  const ops = await app.inject({
    method: 'PATCH',
    url: '/authors/7',
    headers: { 'content-type': JSON_PATCH },
    payload: [{ op: 'replace', path: '/name', value: 'Frank' }],
  })
  t.equal(ops.statusCode, 200)
  t.same(ops.json(), { name: 'Frank' })
  // What Fastify's validator would have refused with the body schema is refused by the parser.
  for (const payload of [{ op: 'replace' }, [{ op: 'replace' }], [{ op: 'jump', path: '/a' }]]) {
    const bad = await app.inject({
      method: 'PATCH',
      url: '/authors/7',
      headers: { 'content-type': JSON_PATCH },
      payload,
    })
    t.equal(bad.statusCode, 400, JSON.stringify(payload))
    t.equal(bad.json().error.code, ErrorCode.INVALID_PATCH)
  }
  const wrongType = await app.inject({
    method: 'PATCH',
    url: '/authors/7',
    headers: { 'content-type': 'application/json' },
    payload: {},
  })
  t.equal(wrongType.statusCode, 415)
})

test('the body is described only where Fastify validates it itself', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const zod = zodCompilers()
  await app.register(restwellPatch)
  const schemas: Record<string, FastifySchema | undefined> = {}
  app.addHook('onRoute', (route: RouteEntry) => {
    schemas[route.url] = route.schema
  })
  app.patch('/own-validator', { validatorCompiler: zod.validatorCompiler }, async (request) =>
    request.applyPatch({ a: 1 }),
  )
  await app.register(async (child) => {
    child.setSerializerCompiler(zod.serializerCompiler)
    child.patch('/own-serializer', async (request) => request.applyPatch({ a: 1 }))
  })
  // A route schema that is not a plain object is not copied.
  class RouteSchema {
    readonly response = { 200: { type: 'object', additionalProperties: true } }
  }
  const own = new RouteSchema()
  app.patch('/instance', { schema: own }, async (request) => request.applyPatch({ a: 1 }))
  await app.ready()
  t.equal(schemas['/own-validator'], undefined)
  const body = schemas['/own-serializer']?.body as { content: object } | undefined
  t.same(Object.keys(body?.content ?? {}), [JSON_PATCH, MERGE_PATCH])
  t.equal(schemas['/instance'], own)
  t.same(zod.compiled, [])
  for (const url of ['/own-validator', '/own-serializer', '/instance']) {
    const res = await app.inject({
      method: 'PATCH',
      url,
      headers: { 'content-type': MERGE_PATCH },
      payload: { b: 2 },
    })
    t.equal(res.statusCode, 200, url)
    t.same(res.json(), { a: 1, b: 2 }, url)
  }
})
