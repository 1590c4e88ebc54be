import SwaggerParser from '@apidevtools/swagger-parser'
import fastifySwagger from '@fastify/swagger'
import { conditional } from '@restwell/conditional'
import type { RouteDescription } from '@restwell/core'
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import tap, { test } from 'tap'
import restwell, {
  describeRoute,
  errorBodySchema,
  type OpenapiPlan,
  type RestwellOptions,
  restwellOpenapi,
} from '../src/index.js'
import { ZodLike, zAny, zObject, useZodCompilers } from '../../../test/helpers/zod-like.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<string, Record<string, unknown>>
        parameters?: { name: string; in: string }[]
        tags?: string[]
        security?: unknown[]
        description?: string
        operationId?: string
      }
    >
  >
  components: { schemas: Record<string, unknown>; securitySchemes?: unknown }
}

const book = {
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' } },
} as const

async function build(options: RestwellOptions = {}): Promise<{ app: FastifyInstance; doc: Doc }> {
  const app = Fastify()
  apps.push(app)
  await app.register(
    fastifySwagger,
    restwellOpenapi({ info: { title: 'books', version: '1.0.0' } }),
  )
  await app.register(restwell, {
    auth: { verify: () => ({ sub: 'x' }) },
    conditional: { requirePrecondition: true },
    ...options,
  })
  app.get(
    '/v1/books',
    {
      schema: {
        response: { 200: { type: 'object', properties: { data: { type: 'array', items: book } } } },
      },
      config: { pagination: { sortable: ['title'] } },
    },
    async (_request, reply) => reply.paginate([], { total: 0 }),
  )
  app.get('/v1/books/:id', { schema: { response: { 200: book } } }, async () => ({
    id: 1,
    title: 'x',
  }))
  app.patch(
    '/v1/books/:id',
    {
      schema: {
        headers: { type: 'object', properties: { 'x-trace': { type: 'string' } } },
        response: { 200: book },
      },
      config: { conditional: { getValidator: () => ({ etag: 'v1' }) } },
    },
    async () => ({ id: 1, title: 'y' }),
  )
  app.post(
    '/v1/books',
    { config: { auth: { scopes: ['write'] }, rateLimit: false } },
    async () => ({}),
  )
  app.get(
    '/health',
    { config: { auth: false, conditional: false, negotiation: false } },
    async () => 'ok',
  )
  app.get('/hidden', { schema: { hide: true } }, async () => 'x')
  app.get('/raw', { config: { swaggerTransform: false } }, async () => 'x')
  app.route({
    method: ['GET', 'PUT'],
    url: '/v1/authors/:id',
    schema: { response: { 404: { description: 'No such author', type: 'null' } } },
    handler: async () => ({}),
  })
  await app.ready()
  return { app, doc: app.swagger() as unknown as Doc }
}

test('the generated OpenAPI document is valid and shows what restwell adds', async (t) => {
  const { doc } = await build()
  await SwaggerParser.validate(structuredClone(doc) as never)
  t.ok(doc.components.schemas.RestwellError, 'one shared error body schema')
  t.ok(doc.components.securitySchemes)

  const item = doc.paths['/v1/books/{id}']!
  t.same(
    Object.keys(item).sort(),
    ['get', 'head', 'options', 'patch'],
    "method override's POST twin of the PATCH route is not in the document",
  )
  t.same(Object.keys(doc.paths['/v1/authors/{id}']!).sort(), ['get', 'head', 'options', 'put'])
  t.same(
    Object.keys(doc.paths).filter((path) => !path.startsWith('/v1/') && path.includes('books')),
    [],
    "versioning's unprefixed twins of the /v1 routes are not in the document",
  )
  const get = item.get!
  for (const status of [
    '200',
    '206',
    '304',
    '400',
    '401',
    '403',
    '404',
    '405',
    '406',
    '412',
    '416',
    '429',
    '500',
    '503',
  ]) {
    t.ok(get.responses[status], `GET has ${status}`)
  }
  t.ok((get.responses['200']!.headers as Record<string, unknown>).etag)
  t.ok(get.parameters?.some((p) => p.in === 'header' && p.name === 'if-none-match'))
  t.same(get.tags, ['v1'])
  t.same(get.security, [{ bearerAuth: [] }])
  t.match(JSON.stringify(get.responses['404']), /RestwellError/)

  const patch = item.patch!
  for (const status of ['412', '413', '415', '428'])
    t.ok(patch.responses[status], `PATCH has ${status}`)
  t.ok(patch.parameters?.some((p) => p.name === 'if-match'))
  t.ok(
    patch.parameters?.some((p) => p.name === 'x-trace'),
    "the route's own headers are kept",
  )
  t.notOk(patch.responses['304'])

  const list = doc.paths['/v1/books']!
  t.ok(
    list.get!.parameters?.some((p) => p.name === 'limit'),
    'pagination parameters',
  )
  t.ok(
    (list.get!.responses['200']!.headers as Record<string, unknown>).link,
    'pagination Link header',
  )
  t.same(list.post!.security, [{ bearerAuth: [] }], 'OpenAPI 3.0: no scopes on an http scheme')
  t.match(list.post!.description, /`write`/, 'the scope is named in the description')
  t.notOk(list.post!.responses['429'], 'a route without rate limit has no 429')
  t.ok(list.post!.responses['415'])

  const author = doc.paths['/v1/authors/{id}']!
  t.equal(
    author.get!.responses['404']!.description,
    'No such author',
    "a route's own response wins",
  )
  t.ok(
    (author.get!.responses['200']!.headers as Record<string, unknown>).etag,
    'a 200 is described',
  )
  t.ok(author.put!.responses['415'])

  const health = doc.paths['/health']!.get!
  t.notOk(health.security)
  t.notOk(health.responses['401'])
  t.notOk(health.responses['304'])
  t.notOk(health.responses['406'])
  t.notOk(doc.paths['/hidden'])
  t.notOk(doc.paths['/raw']!.get!.responses.default, '`swaggerTransform: false`: as given')
  t.notOk(doc.paths['/raw']!.head, 'nor a HEAD of restwell’s')
  t.ok(get.responses.default, 'a route as restwell describes it')
  t.equal(get.operationId, 'getV1BooksById')
  t.equal(item.head!.operationId, 'headV1BooksById', 'HEAD is documented')
  t.ok(item.options, 'OPTIONS is documented')
})

test('a convention turned off documents none of its answers', async (t) => {
  const on = (await build()).doc.paths['/v1/books/{id}']!.get!.responses
  t.ok(on['405'], '405 with Allow where @restwell/methods answers it')
  t.ok(on['503'], '503 while the overload convention sheds load')
  // Without @restwell/methods, Fastify answers 404 for a method the path has no route for.
  const off = (await build({ methods: false, underPressure: false, auth: false })).doc.paths[
    '/v1/books/{id}'
  ]!.get!.responses
  t.notOk(off['405'], 'no 405: nothing answers it')
  t.notOk(off['503'])
  t.notOk(off['401'])
})

test("jobs' status routes, added by the umbrella itself, are described like the app's", async (t) => {
  const { doc } = await build({ jobs: {} })
  await SwaggerParser.validate(structuredClone(doc) as never)
  for (const path of ['/jobs/{id}', '/jobs/{id}/result']) {
    const get = doc.paths[path]?.get
    t.ok(get, `${path} is in the document`)
    t.same(get?.security, [{ bearerAuth: [] }], `${path}: the Bearer token it asks for`)
    for (const status of ['401', '404', '429']) t.ok(get?.responses[status], `${path} ${status}`)
    t.ok(get?.responses['303'], `${path}: 303 when the job is done`)
  }
  const job = doc.paths['/jobs/{id}']?.get?.responses['200'] as
    | { content: Record<string, { schema: { properties?: Record<string, unknown> } }> }
    | undefined
  t.ok(job?.content['application/json']?.schema.properties?.jobId, 'the job, in the document')
  const result = doc.paths['/jobs/{id}/result']?.get?.responses['409'] as
    | { description: string }
    | undefined
  t.match(result?.description, /^Conflict: the job failed/)
  const reading = await build({
    jobs: {},
    auth: { verify: () => ({ sub: 'x' }), requirement: { scopes: ['read'] } },
  })
  t.equal(
    reading.doc.paths['/jobs/{id}']?.get?.description,
    "Requires the Bearer token's scope `read`.",
    'a route without config.auth: the scopes of the default requirement',
  )
  const moved = await build({ jobs: { basePath: '/tasks' } })
  t.ok(moved.doc.paths['/tasks/{id}']?.get?.responses['303'], 'at its basePath')
})

test('HEAD is documented where Fastify serves it, however @fastify/swagger is set', async (t) => {
  const documentOf = async (exposeHeadRoutes: boolean, swaggerHeads: boolean): Promise<Doc> => {
    const app = Fastify({ exposeHeadRoutes })
    apps.push(app)
    await app.register(fastifySwagger, {
      openapi: { info: { title: 'heads', version: '1.0.0' } },
      exposeHeadRoutes: swaggerHeads,
    })
    await app.register(restwell, { underPressure: false })
    app.get(
      '/v1/books/:id',
      { schema: { operationId: 'readBook', response: { 200: book } } },
      () => ({
        id: 1,
        title: 'x',
      }),
    )
    app.get('/v1/authors', async () => [])
    await app.ready()
    return app.swagger() as unknown as Doc
  }
  const fromSwagger = await documentOf(true, true)
  await SwaggerParser.validate(structuredClone(fromSwagger) as never)
  const item = fromSwagger.paths['/v1/books/{id}']!
  t.equal(item.head!.operationId, 'readBook-head', "@fastify/swagger's own HEAD operation")
  t.notOk(item.head!.responses['200']!.content, 'without a body')
  t.equal(fromSwagger.paths['/v1/authors']!.head!.operationId, 'headV1Authors')
  const ours = await documentOf(true, false)
  t.equal(
    ours.paths['/v1/books/{id}']!.head!.operationId,
    'readBook-head',
    'the same from restwell',
  )
  const none = await documentOf(false, false)
  t.notOk(none.paths['/v1/books/{id}']!.head, 'not served: not documented')
  const options = none.paths['/v1/books/{id}']!.options!
  t.match(options.responses['200']!.description, /`Allow: GET, OPTIONS`/)
})

test('patch and soft-delete routes list their own errors (409/422, 410 when gone)', async (t) => {
  const described = async (options: RestwellOptions, routes: (app: FastifyInstance) => void) => {
    const app = Fastify()
    apps.push(app)
    await app.register(fastifySwagger, { openapi: { info: { title: 't', version: '1' } } })
    await app.register(restwell, options)
    routes(app)
    await app.ready()
    return (app.swagger() as unknown as Doc).paths
  }
  const reply = async () => ({})
  const paths = await described({ softDelete: { gone: true } }, (app) => {
    app.patch('/a/:id', { config: { auth: false } }, reply)
    app.patch('/b/:id', { config: { auth: false, patch: false } }, reply)
    app.post('/c', { config: { auth: false, patch: { formats: ['merge-patch'] } } }, reply)
    app.get('/d/:id', { config: { auth: false, softDelete: true } }, reply)
    app.get('/e/:id', { config: { auth: false, softDelete: { gone: false } } }, reply)
    app.get('/f/:id', { config: { auth: false } }, reply)
    app.get('/g', { config: { auth: false, softDelete: true, pagination: true } }, reply)
  })
  const has = (path: string, method: string, status: string) =>
    paths[path]?.[method]?.responses[status] !== undefined
  t.ok(has('/a/{id}', 'patch', '409') && has('/a/{id}', 'patch', '422'), 'a PATCH route')
  t.notOk(has('/b/{id}', 'patch', '409') || has('/b/{id}', 'patch', '422'), 'patch: false')
  t.ok(has('/c', 'post', '422'), 'a POST that opts in')
  // RestwellError, under @fastify/swagger's default name (no `restwellOpenapi()` here).
  t.match(JSON.stringify(paths['/a/{id}']?.patch?.responses['422']), /schemas\/def-0/)
  t.ok(has('/d/{id}', 'get', '410'), 'soft delete, gone')
  t.notOk(has('/e/{id}', 'get', '410'), 'the route says not gone')
  t.notOk(has('/f/{id}', 'get', '410'), 'not a soft-delete route')
  t.notOk(has('/g', 'get', '410'), 'a paginated collection: 410 is for items')
  const off = await described({ patch: { everyPatchRoute: false }, softDelete: false }, (app) => {
    app.patch('/a/:id', { config: { auth: false } }, reply)
    app.get('/d/:id', { config: { auth: false } }, reply)
  })
  t.notOk(off['/a/{id}']?.patch?.responses['409'], 'everyPatchRoute: false')
  const none = await described({ patch: false }, (app) => {
    app.patch('/a/:id', { config: { auth: false } }, reply)
  })
  t.notOk(none['/a/{id}']?.patch?.responses['422'], 'patch: false')
})

test('the error schema follows the body form; nothing is added without swagger', async (t) => {
  const { doc } = await build({
    errors: { format: 'problem' },
    auth: false,
    rateLimit: false,
    underPressure: false,
    negotiation: false,
    conditional: false,
    versioning: false,
  })
  await SwaggerParser.validate(structuredClone(doc) as never)
  const get = doc.paths['/v1/books/{id}']!.get!
  t.match(JSON.stringify(get.responses['404']), /application\/problem\+json/)
  t.notOk(get.responses['304'])
  t.notOk(get.responses['503'])
  t.same(get.tags, ['books'], 'an untagged route: tagged by its first segment past /v<N>')
  for (const format of ['simple', 'validation', 'structured', 'problem'] as const) {
    t.equal(errorBodySchema(format).type, 'object', format)
  }
  const noErrors = await build({ errors: false })
  const plain = noErrors.doc.paths['/v1/books/{id}']!.get!
  t.notMatch(JSON.stringify(plain.responses['404']), /RestwellError/)
  const bare = Fastify()
  apps.push(bare)
  await bare.register(restwell)
  bare.get('/books', async () => [])
  await bare.ready()
  t.equal(
    bare.getSchema('RestwellError'),
    undefined,
    'without swagger, route schemas stay as written',
  )
  const custom = restwellOpenapi({
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-key' } } },
  })
  t.ok(
    (custom.openapi.components as { securitySchemes: Record<string, unknown> }).securitySchemes
      .apiKey,
  )
  t.equal(custom.refResolver.buildLocalReference({}, '', '', 3), 'def-3')
})

/** What fastify-type-provider-zod's `jsonSchemaTransform` does for swagger: Zod → JSON Schema. */
function toJsonSchema(value: unknown): unknown {
  if (value instanceof ZodLike) return { type: 'object' }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, toJsonSchema(v)]))
}

test('with Zod compilers and swagger: every route works, restwell leaves the schemas alone', async (t) => {
  const app = Fastify()
  apps.push(app)
  const zod = useZodCompilers(app)
  await app.register(fastifySwagger, {
    ...restwellOpenapi({ info: { title: 'zod', version: '1.0.0' } }),
    transform: ({ schema, url }) => ({ schema: toJsonSchema(schema) as never, url }),
  })
  await app.register(restwell, {
    auth: { verify: (token) => (token === 'ok' ? { sub: 'x' } : null) },
    underPressure: false,
  })
  const books = zObject()
  app.get(
    '/v1/books',
    { schema: { querystring: books, response: { 200: zAny() } }, config: { pagination: true } },
    async (_request, reply) => reply.paginate([{ id: 1 }], { total: 1 }),
  )
  app.get('/v1/authors', { config: { pagination: true } }, async (_request, reply) =>
    reply.paginate([{ id: 1 }], { total: 1 }),
  )
  app.get('/v1/posts/:id', { config: { softDelete: true } }, async () => ({ id: 1 }))
  app.patch('/v1/books/:id', { schema: { params: zObject() } }, async (request) =>
    request.applyPatch({ id: 1, title: 'a' }),
  )
  app.post('/v1/books', { schema: { body: zObject() } }, async (_request, reply) =>
    reply.code(201).send({ id: 2 }),
  )
  await app.ready()
  t.ok(
    zod.compiled.every((schema) => schema instanceof ZodLike),
    'the compilers were handed their own schemas only',
  )
  const authorization = 'Bearer ok'
  for (const request of [
    { url: '/v1/books?page=1&limit=5' },
    { url: '/v1/authors' },
    { url: '/v1/posts/1?deleted=include' },
    {
      method: 'PATCH' as const,
      url: '/v1/books/1',
      payload: { title: 'b' },
      headers: { 'content-type': 'application/merge-patch+json' },
    },
    { method: 'POST' as const, url: '/v1/books', payload: { title: 'c' } },
  ]) {
    const res = await app.inject({ ...request, headers: { authorization, ...request.headers } })
    t.ok(res.statusCode < 300, `${request.method ?? 'GET'} ${request.url}: ${res.statusCode}`)
  }
  const page = await app.inject({ url: '/v1/books?page=0', headers: { authorization } })
  t.equal(page.statusCode, 400, 'pagination still refuses a bad page')
  t.equal(page.json().error.code, 'INVALID_PAGINATION')

  const doc = app.swagger() as unknown as Doc
  // The umbrella is not given the app's transform: its Zod routes are the app transform's.
  const list = doc.paths['/v1/books']!.get!
  t.notOk(list.operationId, 'a Zod route: as the app transform describes it')
  t.notOk(list.security, 'nothing of restwell’s')
  t.notOk(list.responses['404'], 'no error responses: the serializer is Zod’s')
  t.notOk(
    list.parameters?.some((p) => p.name === 'limit'),
    'no pagination parameters: the validator is Zod’s',
  )
  t.notOk(doc.paths['/v1/books']!.post!.parameters?.some((p) => p.name === 'if-match'))
  const authors = doc.paths['/v1/authors']!.get!
  t.same(authors.tags, ['v1'], 'a route without a schema: described by restwell')
  t.same(authors.security, [{ bearerAuth: [] }])
  t.ok(authors.responses['404'], 'its errors, in the document only')
  t.ok(doc.paths['/v1/posts/{id}']!.get, 'described from the route as it is')
})

/** What `@restwell/conditional` with its defaults says of a route of one method. */
function conditionalSays(method: string): RouteDescription[] {
  const context = { route: {}, instance: {}, methods: [method], config: undefined, name: method }
  const said = conditional.describe?.(
    context as never,
    {
      options: conditional.options(undefined),
    } as never,
  )
  return said === undefined ? [] : [said]
}

/** A plan with every convention off: each test turns on what it describes. */
const BARE_PLAN: OpenapiPlan = {
  errors: 'structured',
  auth: false,
  authByDefault: false,
  negotiation: false,
  versioning: false,
}

test('describeRoute adds to the parts it is allowed to, and copies plain objects only', async (t) => {
  const plan = BARE_PLAN
  const said = conditionalSays('GET')
  const route = (schema: unknown, method = 'GET') =>
    ({ method, url: '/x', schema, handler: async () => 'x' }) as never as RouteOptions
  const zod = zObject()
  const whole = route(zod)
  describeRoute(whole, plan, undefined, said)
  t.equal(whole.schema, zod, 'a whole schema of another kind')

  const noResponse = route(undefined)
  describeRoute(noResponse, plan, { validation: true, response: false }, said)
  t.same(Object.keys(noResponse.schema?.headers as object), ['type', 'properties'])
  t.equal(noResponse.schema?.response, undefined)

  const nothing = route(undefined)
  describeRoute(nothing, plan, { validation: false, response: false }, said)
  t.equal(nothing.schema, undefined, 'nothing to add: no schema appears')

  const parts = { headers: zObject(), response: { 200: zod } }
  const kept = route(parts)
  describeRoute(kept, plan, undefined, said)
  t.equal(kept.schema?.headers, parts.headers, 'headers of another kind')
  const response = kept.schema?.response as Record<string, unknown> | undefined
  t.equal(response?.[200], zod, 'a 200 of another kind')
  t.ok(response?.[304], 'the others are added')

  const map = Object.assign(Object.create({ inherited: true }), { 200: { type: 'object' } })
  const odd = route({ response: map })
  describeRoute(odd, plan, undefined, said)
  t.equal(odd.schema?.response, map, 'a response map that is not a plain object')

  // What conventions describe: a status another says too keeps both meanings; a part one
  // leaves out adds nothing; a success of the route gains its headers.
  const created = { 201: { type: 'object' }, 400: { description: 'Own' } }
  const keyed = route({ response: created }, 'POST')
  describeRoute(keyed, plan, undefined, [
    ...conditionalSays('POST'),
    {},
    {
      responses: [
        [404, 'No such key'],
        [422, 'Reused'],
      ],
      requestHeaders: [['Idempotency-Key', 'A key']],
      responseHeaders: [['Idempotent-Replayed', 'true on a replay']],
    },
  ])
  const keyedResponse = keyed.schema?.response as Record<string, { description?: string }>
  t.equal(keyedResponse[404]?.description, 'Not Found; or: No such key')
  t.equal(keyedResponse[422]?.description, 'Reused')
  t.equal(keyedResponse[400]?.description, 'Own', "the route's own description wins")
  t.match(keyedResponse[201], { headers: { 'idempotent-replayed': { description: /replay/ } } })
  t.match(keyed.schema?.headers, { properties: { 'idempotency-key': { description: 'A key' } } })
})

test("describeRoute adds what the conventions say: statuses, request headers, a success's headers", async (t) => {
  const said: RouteDescription[] = [
    {
      responses: [
        [202, 'Accepted'],
        [400, 'not the generic one'],
      ],
      requestHeaders: [['Prefer', 'Preferences']],
      responseHeaders: [['Preference-Applied', 'Honoured']],
    },
  ]
  const route = (url: string, schema: unknown, method = 'POST') =>
    ({ method, url, schema, handler: async () => 'x' }) as never as RouteOptions
  const post = route('/x', undefined)
  describeRoute(post, BARE_PLAN, undefined, said)
  const response = post.schema?.response as Record<string, Record<string, unknown>>
  t.equal(response[202]?.description, 'Accepted')
  t.match(response[400]?.description, /^Bad Request/, "restwell's own description stays")
  t.same(Object.keys(response[202]?.headers as object), ['preference-applied'])
  const requestHeaders = post.schema?.headers as { properties: object }
  t.same(Object.keys(requestHeaders.properties), ['prefer'])

  const zod = zObject()
  const kept = route('/x', { response: { 201: zod } })
  describeRoute(kept, BARE_PLAN, undefined, said)
  const keptResponse = kept.schema?.response as Record<string, unknown>
  t.equal(keptResponse[201], zod, 'a success of another kind is kept whole')
  t.ok((keptResponse[202] as Record<string, unknown>).headers)

  const deleted = route('/x', undefined, 'DELETE')
  describeRoute(deleted, BARE_PLAN, undefined, [{ responseHeaders: [['Repr-Digest', 'd']] }])
  const okResponse = (deleted.schema?.response ?? {}) as Record<string, Record<string, unknown>>
  t.same(
    okResponse[200],
    { description: 'OK', headers: { 'repr-digest': { type: 'string', description: 'd' } } },
    'no success named: the headers on a 200',
  )

  const quiet = route('/quiet', undefined)
  describeRoute(quiet, BARE_PLAN, undefined, [{}])
  t.notOk(
    ((quiet.schema?.response ?? {}) as Record<string, unknown>)[200],
    'nothing said: nothing added',
  )
})

test('the document through the umbrella: Prefer, Want-*-Digest and what answers carry', async (t) => {
  const { doc } = await build({ prefer: {}, digest: { repr: true } })
  await SwaggerParser.validate(structuredClone(doc) as never)
  const post = doc.paths['/v1/books']!.post!
  const names = (post.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name)
  for (const header of ['prefer', 'want-repr-digest', 'want-content-digest', 'content-digest'])
    t.ok(names.includes(header), header)
  t.ok(post.responses['204'], 'return=minimal: 204')
  const headers = post.responses['204']!.headers as Record<string, unknown>
  t.ok(headers['preference-applied'])
  t.ok(headers['repr-digest'], 'the route sends Repr-Digest always')
  const get = doc.paths['/v1/books/{id}']!.get!
  t.ok((get.responses['200']!.headers as Record<string, unknown>)['repr-digest'])
  t.ok((get.responses['200']!.headers as Record<string, unknown>).etag, "conditional's kept")
})
