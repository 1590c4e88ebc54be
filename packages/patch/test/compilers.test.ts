/** Apps whose routes are validated or serialized by a type provider's compilers (Zod). */
import restwellErrors, { ErrorCode } from '@restwell/errors'
import type { RouteEntry } from '@restwell/core'
import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  type FastifySchema,
  type FastifySchemaCompiler,
} from 'fastify'
import { type Test, test } from 'tap'
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

/** A merge patch to `url`. */
const mergePatch = (app: FastifyInstance, url: string, payload: unknown) =>
  app.inject({
    method: 'PATCH',
    url,
    headers: { 'content-type': MERGE_PATCH },
    payload: payload as object,
  })

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

  const merge = await mergePatch(app, '/books/1', { title: 'Dune Messiah', year: null })
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
    const res = await mergePatch(app, url, { b: 2 })
    t.equal(res.statusCode, 200, url)
    t.same(res.json(), { a: 1, b: 2 }, url)
  }
})

/** An app on fastify-type-provider-zod's compilers, with the plugin (and the errors one). */
async function zodApp(t: Test, errors = true) {
  const { serializerCompiler, validatorCompiler } = await import('fastify-type-provider-zod')
  const { z } = await import('zod')
  const app = Fastify()
  t.teardown(() => app.close())
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  if (errors) await app.register(restwellErrors)
  await app.register(restwellPatch)
  return { app, z }
}

/** A Zod app's book store: PATCH stores what `applyPatch` returns. */
async function zodBookApp(t: Test) {
  const { app, z } = await zodApp(t)
  const Book = z.object({ id: z.number(), title: z.string().min(1) })
  const store = new Map<number, unknown>([[1, { id: 1, title: 'Dune' }]])
  app.patch(
    '/books/:id',
    { schema: { params: z.object({ id: z.coerce.number() }), response: { 200: Book } } },
    async (request) => {
      const { id } = request.params as { id: number }
      const next = request.applyPatch(store.get(id))
      store.set(id, next)
      return next
    },
  )
  return { app, store }
}

test('with fastify-type-provider-zod: a patched document is checked by the route’s Zod schema before it is stored', async (t) => {
  const { app, store } = await zodBookApp(t)
  const bad = await mergePatch(app, '/books/1', { title: 7, extra: true })
  t.equal(bad.statusCode, 422)
  t.equal(bad.json().error.code, ErrorCode.PATCH_RESULT_INVALID)
  t.same(
    bad.json().error.details.map((d: { field: string }) => d.field),
    ['resource/title'],
  )
  t.same(store.get(1), { id: 1, title: 'Dune' }, 'nothing was stored')
  const ops = await app.inject({
    method: 'PATCH',
    url: '/books/1',
    headers: { 'content-type': JSON_PATCH },
    payload: [{ op: 'remove', path: '/title' }],
  })
  t.equal(ops.statusCode, 422)
  t.same(store.get(1), { id: 1, title: 'Dune' })
  const good = await mergePatch(app, '/books/1', { title: 'Dune Messiah' })
  t.equal(good.statusCode, 200)
  t.same(store.get(1), { id: 1, title: 'Dune Messiah' })
})

test('with Zod: an unrecognized key of a strict object is named in details, by the compiler or a safeParse', async (t) => {
  const { app, z } = await zodApp(t)
  const Book = z.strictObject({ id: z.number(), title: z.string(), meta: z.strictObject({}) })
  const current = { id: 1, title: 'Dune', meta: {} }
  app.patch('/compiled/:id', { schema: { response: { 200: Book } } }, async (request) =>
    request.applyPatch(current),
  )
  app.patch(
    '/parsed/:id',
    { config: { patch: { validate: (document) => Book.safeParse(document) } } },
    async (request) => request.applyPatch(current),
  )
  await app.ready()
  for (const url of ['/compiled/1', '/parsed/1']) {
    const res = await mergePatch(app, url, { extra: true, 'a/b': 1, meta: { deep: 1 } })
    t.equal(res.statusCode, 422, url)
    t.same(
      res.json().error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
      [
        ['resource/meta/deep', 'UNRECOGNIZED_KEYS'],
        ['resource/extra', 'UNRECOGNIZED_KEYS'],
        ['resource/a~1b', 'UNRECOGNIZED_KEYS'],
      ],
      url,
    )
  }
})

test('with fastify-type-provider-zod: an object body beside JSON Patch is refused at registration', async (t) => {
  const { app, z } = await zodApp(t, false)
  const edit = z.object({ title: z.string().min(1) }).partial()
  t.throws(() => app.patch('/books/:id', { schema: { body: edit } }, async () => ({})), {
    option: 'schema.body',
    message:
      /PATCH \/books\/:id\): option "schema.body" refuses JSON Patch documents .* set config\.patch\.formats to \['merge-patch'\]/,
  })
  // Fine: merge patches only, or a body that takes JSON Patch too.
  app.patch(
    '/books/:id',
    { config: { patch: { formats: ['merge-patch'] } }, schema: { body: edit } },
    async (request) => request.applyPatch({ title: 'Dune' }),
  )
  app.patch(
    '/authors/:id',
    { schema: { body: z.union([edit, z.array(z.object({ op: z.string() }).passthrough())]) } },
    async (request) => request.applyPatch({ title: 'Dune' }),
  )
  app.patch('/series/:id', { schema: { body: z.array(z.any()).min(1) } }, async () => ({}))
  await app.ready()
  const merged = await mergePatch(app, '/books/1', { title: 'Emma' })
  t.same(merged.json(), { title: 'Emma' })
  const ops = await app.inject({
    method: 'PATCH',
    url: '/authors/1',
    headers: { 'content-type': JSON_PATCH },
    payload: [{ op: 'replace', path: '/title', value: 'Emma' }],
  })
  t.same(ops.json(), { title: 'Emma' })
})

/**
 * A schema language of plain objects that is not JSON Schema (`{ fields: { title: 'string' } }`,
 * no other member allowed), with compilers as a type provider ships them.
 */
function fieldsCompilers(): {
  validatorCompiler: FastifySchemaCompiler<unknown>
  serializerCompiler: (o: { schema: unknown }) => (data: unknown) => string
} {
  const check = (schema: unknown, data: unknown): string | undefined => {
    const fields = (schema as { fields?: Record<string, string> }).fields
    if (fields === undefined) throw new Error('not a fields schema')
    if (typeof data !== 'object' || data === null) return 'not an object'
    for (const [key, value] of Object.entries(data)) {
      if (!(key in fields)) return `unknown field ${key}`
      if (typeof value !== fields[key]) return `${key} must be a ${fields[key]}`
    }
    return undefined
  }
  return {
    validatorCompiler: ({ schema }) => {
      check(schema, {})
      return (data) => {
        const problem = check(schema, data)
        return problem === undefined ? { value: data } : { error: new Error(problem) }
      }
    },
    serializerCompiler:
      ({ schema }) =>
      (data) => {
        if (check(schema, data) !== undefined) throw new Error('ResponseSerializationError')
        return JSON.stringify(data)
      },
  }
}

test('custom compilers: a resource schema of their own kind (plain objects, not JSON Schema) is read by them', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const fields = fieldsCompilers()
  app.setValidatorCompiler(fields.validatorCompiler)
  app.setSerializerCompiler(fields.serializerCompiler)
  await app.register(restwellErrors)
  await app.register(restwellPatch)
  const Book = { fields: { id: 'number', title: 'string' } }
  const store = new Map<number, unknown>([[1, { id: 1, title: 'Dune' }]])
  app.patch('/books/:id', { schema: { response: { 200: Book } } }, async (request) => {
    const next = request.applyPatch(store.get(1))
    store.set(1, next)
    return next
  })
  await app.ready()
  const bad = await mergePatch(app, '/books/1', { title: 7, extra: true })
  t.equal(bad.statusCode, 422)
  t.same(bad.json().error.details, [
    { field: 'resource', message: 'title must be a string', code: 'INVALID' },
  ])
  t.same(store.get(1), { id: 1, title: 'Dune' }, 'nothing was stored')
  const good = await mergePatch(app, '/books/1', { title: 'Dune Messiah' })
  t.equal(good.statusCode, 200)
  t.same(store.get(1), { id: 1, title: 'Dune Messiah' })
})

test('custom compilers: a resource schema they cannot compile, or no validator compiler to read it, refuses the route', async (t) => {
  const fields = fieldsCompilers()
  const serializerOnly = Fastify()
  t.teardown(() => serializerOnly.close())
  serializerOnly.setSerializerCompiler(fields.serializerCompiler)
  await serializerOnly.register(restwellPatch)
  const Book = { fields: { title: 'string' } }
  t.throws(
    () =>
      serializerOnly.patch('/books/:id', { schema: { response: { 200: Book } } }, async () => ({})),
    {
      option: 'config.patch.validate',
      message:
        /PATCH \/books\/:id\).*no validator compiler.*config\.patch\.validate to a function .*config\.patch\.schema to false/,
    },
  )
  // Named as JSON Schema in config.patch.schema: the plugin's Ajv reads it.
  serializerOnly.patch(
    '/authors/:id',
    { config: { patch: { schema: { type: 'object', properties: { name: { type: 'string' } } } } } },
    async (request) => request.applyPatch({ name: 'Herbert' }),
  )
  await serializerOnly.ready()
  const named = await mergePatch(serializerOnly, '/authors/1', { name: 7 })
  t.equal(named.statusCode, 422)

  const both = Fastify()
  t.teardown(() => both.close())
  both.setValidatorCompiler(fields.validatorCompiler)
  both.setSerializerCompiler(fields.serializerCompiler)
  await both.register(restwellPatch)
  t.throws(
    () =>
      both.patch(
        '/books/:id',
        { schema: { response: { 200: { type: 'object' } } } },
        async () => ({}),
      ),
    {
      option: 'config.patch.validate',
      message: /cannot compile .*not a fields schema.*config\.patch\.schema to false/,
    },
  )
})

test('a Standard Schema (~standard) is never read as JSON Schema: its own validate checks the document', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwellErrors)
  await app.register(restwellPatch)
  // Valibot's shape: a plain object whose `type` member would read as JSON Schema's.
  const Book = {
    kind: 'schema',
    type: 'object',
    '~standard': {
      version: 1,
      vendor: 'valibot-like',
      validate(value: unknown) {
        const { title, ...rest } = value as { title?: unknown }
        const issues = [
          ...(typeof title === 'string'
            ? []
            : [{ message: 'must be a string', path: [{ key: 'title' }] }]),
          ...Object.keys(rest)
            .filter((key) => key !== 'id')
            .map((key) => ({ message: 'unknown', path: [key] })),
        ]
        return issues.length === 0 ? { value } : { issues }
      },
    },
  }
  const { z } = await import('zod')
  const store = new Map<number, unknown>([[1, { id: 1, title: 'Dune' }]])
  const handler = async (request: FastifyRequest) => {
    const next = request.applyPatch(store.get(1))
    store.set(1, next)
    return next
  }
  app.patch('/books/:id', { config: { patch: { schema: Book } } }, handler)
  // Zod 4 is a Standard Schema too: no compiler needed.
  app.patch(
    '/zod/:id',
    { config: { patch: { schema: z.object({ id: z.number(), title: z.string() }) } } },
    handler,
  )
  app.patch(
    '/async/:id',
    { config: { patch: { schema: { '~standard': { validate: async () => ({ value: 1 }) } } } } },
    handler,
  )
  await app.ready()
  const patch = (url: string, payload: object) => mergePatch(app, url, payload)
  const bad = await patch('/books/1', { title: 7, extra: true })
  t.equal(bad.statusCode, 422)
  t.same(
    bad.json().error.details.map((d: { field: string }) => d.field),
    ['resource/title', 'resource/extra'],
  )
  t.same(store.get(1), { id: 1, title: 'Dune' })
  const zod = await patch('/zod/1', { title: 7 })
  t.equal(zod.statusCode, 422)
  t.equal(zod.json().error.details[0].field, 'resource/title')
  t.equal(
    (await patch('/async/1', {})).statusCode,
    500,
    'an asynchronous check is a programming error',
  )
  t.equal((await patch('/books/1', { title: 'Emma' })).statusCode, 200)
  t.same(store.get(1), { id: 1, title: 'Emma' })
})

test('a body validator that cannot tell (it throws, or answers a promise) is left to the route', async (t) => {
  for (const answer of [
    () => {
      throw new Error('cannot read')
    },
    () => Promise.resolve(true),
    () => 'neither',
  ]) {
    const app = Fastify()
    app.setValidatorCompiler(
      () => ((data: unknown) => (Array.isArray(data) ? answer() : { value: data })) as never,
    )
    await app.register(restwellPatch)
    t.doesNotThrow(() => app.patch('/books/:id', { schema: { body: zObject() } }, async () => ({})))
  }
  const unreadable = Fastify()
  unreadable.setValidatorCompiler(() => {
    throw new Error('not my kind of schema')
  })
  await unreadable.register(restwellPatch)
  t.doesNotThrow(() =>
    unreadable.patch('/books/:id', { schema: { body: zObject() } }, async () => ({})),
  )
  const ajvLike = Fastify()
  ajvLike.setValidatorCompiler(() => (data: unknown) => !Array.isArray(data))
  await ajvLike.register(restwellPatch)
  t.throws(() => ajvLike.patch('/books/:id', { schema: { body: zObject() } }, async () => ({})), {
    name: 'OptionsError',
    message: /option "schema\.body" refuses JSON Patch documents/,
  })
  // No compiler of the app's: Fastify's own Ajv, which refuses such a schema when the app starts.
  const plain = Fastify()
  await plain.register(restwellPatch)
  t.doesNotThrow(() => plain.patch('/books/:id', { schema: { body: zObject() } }, async () => ({})))
})

test('a schema no compiler reads is refused at registration, naming config.patch.validate', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwellPatch)
  t.throws(
    () => app.patch('/books/:id', { schema: { response: { 200: zObject() } } }, async () => ({})),
    { code: 'RESTWELL_INVALID_OPTION', message: /PATCH \/books\/:id.*config\.patch\.validate/ },
  )
  const failing: FastifySchemaCompiler<unknown> = () => {
    throw new Error('not a Zod schema')
  }
  t.throws(
    () =>
      app.patch(
        '/authors/:id',
        { schema: { response: { 200: zObject() } }, validatorCompiler: failing },
        async () => ({}),
      ),
    { message: /config\.patch\.validate.*not a Zod schema/ },
  )
})

test('a route’s own validator compiler reads its schema; config.patch.schema may be of its kind', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const zod = zodCompilers()
  await app.register(restwellErrors)
  await app.register(restwellPatch)
  const titled = new ZodLike(
    (data) => typeof (data as { title?: unknown } | null)?.title === 'string',
  )
  app.patch(
    '/books/:id',
    { validatorCompiler: zod.validatorCompiler, config: { patch: { schema: titled } } },
    async (request) => request.applyPatch({ title: 'Dune' }),
  )
  await app.ready()
  const patch = (payload: object) => mergePatch(app, '/books/1', payload)
  const bad = await patch({ title: null })
  t.equal(bad.statusCode, 422)
  t.same(bad.json().error.details, [{ field: 'resource', message: 'invalid', code: 'INVALID' }])
  t.equal((await patch({ title: 'Emma' })).statusCode, 200)
})

test('config.patch.validate: a Zod safeParse, an Ajv-like function, a Fastify validation error', async (t) => {
  const { z } = await import('zod')
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwellErrors)
  await app.register(restwellPatch)
  const Book = z.object({ title: z.string() })
  const ajvLike = Object.assign(
    (document: unknown): boolean => {
      const ok = typeof (document as { title?: unknown }).title === 'string'
      ajvLike.errors = ok
        ? null
        : [{ instancePath: '/title', message: 'must be string', keyword: 'type' }]
      return ok
    },
    { errors: null as unknown[] | null },
  )
  const fastifyError = Object.assign(new Error('body/title must be string'), {
    validation: [{ instancePath: '/title', message: 'must be string', keyword: 'type' }],
  })
  const validators: Record<string, (document: unknown) => unknown> = {
    zod: (document) => Book.safeParse(document),
    ajv: ajvLike,
    fastify: (document) =>
      typeof (document as { title?: unknown }).title === 'string'
        ? { value: document }
        : { error: fastifyError },
    plain: (document) =>
      typeof (document as { title?: unknown }).title === 'string'
        ? undefined
        : { error: new Error('no title') },
    empty: () => ({ error: {} }),
    async: async () => true,
  }
  for (const [name, validate] of Object.entries(validators)) {
    app.patch(`/${name}/:id`, { config: { patch: { validate } } }, async (request) =>
      request.applyPatch({ title: 'Dune' }),
    )
  }
  await app.ready()
  const patch = (name: string, payload: object) => mergePatch(app, `/${name}/1`, payload)
  for (const name of ['zod', 'ajv', 'fastify']) {
    const bad = await patch(name, { title: 7 })
    t.equal(bad.statusCode, 422, name)
    t.equal(bad.json().error.details[0].field, 'resource/title', name)
    t.equal((await patch(name, { title: 'Emma' })).statusCode, 200, name)
  }
  const plain = await patch('plain', { title: 7 })
  t.same(plain.json().error.details, [{ field: 'resource', message: 'no title', code: 'INVALID' }])
  t.equal((await patch('plain', { title: 'Emma' })).statusCode, 200)
  const empty = await patch('empty', {})
  t.same(empty.json().error.details, [
    { field: 'resource', message: 'is invalid', code: 'INVALID' },
  ])
  const promised = await patch('async', {})
  t.equal(promised.statusCode, 500, 'an asynchronous validator is a programming error')
})
