import SwaggerParser from '@apidevtools/swagger-parser'
import fastifySwagger from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import restwell, { errorBodySchema, type RestwellOptions, restwellOpenapi } from '../src/index.js'

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
  t.same(list.post!.security, [{ bearerAuth: ['write'] }])
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
})

test("jobs' status routes, added by the umbrella itself, are described like the app's", async (t) => {
  const { doc } = await build({ jobs: {} })
  await SwaggerParser.validate(structuredClone(doc) as never)
  for (const path of ['/jobs/{id}', '/jobs/{id}/result']) {
    const get = doc.paths[path]?.get
    t.ok(get, `${path} is in the document`)
    t.same(get?.security, [{ bearerAuth: [] }], `${path}: the Bearer token it asks for`)
    for (const status of ['401', '404', '429']) t.ok(get?.responses[status], `${path} ${status}`)
  }
})

test('patch and soft-delete routes list their own errors (409/422, 410 when gone)', async (t) => {
  const described = async (options: RestwellOptions, routes: (app: FastifyInstance) => void) => {
    const app = Fastify()
    apps.push(app)
    await app.register(fastifySwagger, restwellOpenapi({ info: { title: 't', version: '1' } }))
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
  t.match(JSON.stringify(paths['/a/{id}']?.patch?.responses['422']), /RestwellError/)
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
  t.notOk(get.tags)
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
