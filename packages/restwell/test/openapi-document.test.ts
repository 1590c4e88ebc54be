import type { RouteOptions } from 'fastify'
import { test } from 'tap'
import {
  completeDocument,
  type DocumentPlan,
  documentSchema,
  errorContent,
  operationIdOf,
  representationSchemas,
  tagOf,
} from '../src/openapi-document.js'
import {
  documentPlanOf,
  representationsOf,
  restwellOpenapi,
  swaggerTransformFor,
} from '../src/openapi.js'

type Json = Record<string, unknown>

const book = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'title'],
  properties: { id: { type: 'integer' }, title: { type: 'string' } },
}
const page = {
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: book } },
}

const FIVE = [
  'application/json',
  'application/xml',
  'application/hal+json',
  'application/vnd.api+json',
  'application/vnd.siren+json',
]

const FULL: DocumentPlan = {
  errors: 'other',
  negotiation: {
    produces: FIVE,
    choices: true,
    errors: true,
    languages: true,
  },
  rateLimit: true,
  conditional: true,
  autoOptions: true,
}

function route(method: string, url: string, config: Json = {}): RouteOptions {
  return { method, url, config, handler: () => undefined } as unknown as RouteOptions
}

const responses = (schema: Json): Record<string, Json> => schema.response as Record<string, Json>
const contentOf = (response: Json | undefined): Record<string, { schema: Json }> =>
  (response?.content ?? {}) as Record<string, { schema: Json }>

test('operationIds come from the method and the path; tags from the first segment', async (t) => {
  t.equal(operationIdOf('GET', '/v1/books/:id'), 'getV1BooksById')
  t.equal(operationIdOf('head', '/jobs/{id}/result'), 'headJobsByIdResult')
  t.equal(operationIdOf('GET', '/v1/book-covers/:book_id(^\\d+)'), 'getV1BookCoversByBookId')
  t.equal(operationIdOf('GET', '/files/*'), 'getFilesWildcard')
  t.equal(operationIdOf('GET', '/'), 'getRoot')
  t.equal(tagOf('/v1/books/:id'), 'books')
  t.equal(tagOf('/jobs/:id'), 'jobs')
  t.equal(tagOf('/v2'), 'root')
  t.equal(tagOf('/'), 'root')
})

test('every representation of an item and of a page has its schema', async (t) => {
  const item = representationSchemas(book, false)
  t.same(Object.keys(item), FIVE)
  t.same(item['application/xml']?.xml, { name: 'response' })
  const hal = item['application/hal+json'] as Json
  t.same(hal.required, ['id', 'title', '_links'])
  const jsonApi = (item['application/vnd.api+json']!.properties as Json).data as Json
  const attributes = (jsonApi.properties as Json).attributes as Json
  t.same(Object.keys(attributes.properties as Json), ['title'], 'the id is not an attribute')
  t.same(attributes.required, ['title'])
  t.same((item['application/vnd.siren+json']!.properties as Json).properties, book)

  const open = representationSchemas({ $ref: 'Book#' }, false)
  t.same((open['application/hal+json'] as Json).type, 'object', 'a schema without properties')
  t.same(((open['application/vnd.api+json']!.properties as Json).data as Json).properties, {
    type: { type: 'string' },
    id: { type: 'string' },
    attributes: { type: 'object' },
    meta: { type: 'object' },
    links: { type: 'object', properties: { self: { type: 'string' } } },
  })
  const onlyId = representationSchemas(
    { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
    false,
    'key',
  )
  const onlyIdData = (onlyId['application/vnd.api+json']!.properties as Json).data as Json
  t.notOk(((onlyIdData.properties as Json).attributes as Json).required, 'no required left')

  const pages = representationSchemas(page, true)
  const embedded = ((pages['application/hal+json']!.properties as Json)._embedded as Json)
    .additionalProperties as Json
  t.same(((embedded.items as Json).properties as Json).title, { type: 'string' })
  t.same((embedded.items as Json).required, ['id', 'title'], 'an embedded item may lack _links')
  const sirenEntities = (pages['application/vnd.siren+json']!.properties as Json).entities as Json
  t.same(((sirenEntities.items as Json).properties as Json).properties, book)
  const openPage = representationSchemas({ type: 'object' }, true)
  const openEntities = (openPage['application/vnd.siren+json']!.properties as Json).entities as Json
  t.same(((openEntities.items as Json).properties as Json).properties, { type: 'object' })
})

test('errors: the configured form, and each negotiated one', async (t) => {
  t.same(Object.keys(errorContent(FULL)), FIVE)
  t.same(Object.keys(errorContent({ ...FULL, errors: 'problem' })).slice(0, 2), [
    'application/problem+json',
    'application/problem+xml',
  ])
  t.same(Object.keys(errorContent({ ...FULL, negotiation: false })), ['application/json'])
})

test('a GET: every representation, the statuses and headers of the conventions', async (t) => {
  const given = {
    response: {
      200: { description: 'A book', ...book },
      206: { description: 'Partial', type: 'null' },
      304: { description: 'Not Modified', type: 'null' },
      404: {
        description: 'Not Found',
        content: { 'application/json': { schema: { $ref: 'RestwellError#' } } },
      },
      405: {
        description: 'Method Not Allowed',
        content: { 'application/json': { schema: { $ref: 'RestwellError#' } } },
      },
      418: true,
    },
    security: [{ bearerAuth: ['read'] }, { other: ['x'] }],
  }
  const schema = documentSchema(given, route('GET', '/v1/books/:id'), FULL)
  t.equal(schema.operationId, 'getV1BooksById')
  t.same(schema.tags, ['books'])
  t.same(schema.security, [{ bearerAuth: [] }, { other: ['x'] }], 'no scopes on bearer in 3.0')
  t.equal(schema.description, "Requires the Bearer token's scope `read`.")
  const r = responses(schema)
  t.same(
    Object.keys(contentOf(r['200'])),
    FULL.negotiation === false ? [] : FULL.negotiation.produces,
  )
  const headers200 = r['200']?.headers as Json
  for (const name of ['x-ratelimit-limit', 'etag', 'content-language']) t.ok(headers200[name], name)
  t.same(Object.keys(contentOf(r['206'])).length, 5, '206: a byte range of each')
  t.ok((r['206']!.headers as Json)['content-range'])
  t.ok((r['304']!.headers as Json).etag)
  t.same(Object.keys(contentOf(r['404'])).length, 5, 'an error in each form')
  t.ok((r['405']!.headers as Json).allow)
  t.equal(r['418'], true, 'what is not a response object is kept')
  t.ok(r['300'], '300 choices on a read')
  t.ok((r['300']!.headers as Json).location)
  t.ok(r.default, 'any other error, in the error form')
  t.same(given.security, [{ bearerAuth: ['read'] }, { other: ['x'] }], 'the route keeps its own')

  const described = documentSchema(
    { description: 'One book.', security: [{ bearerAuth: ['read', 'admin'] }] },
    route('GET', '/v1/books/:id'),
    FULL,
  )
  t.equal(described.description, "One book.\n\nRequires the Bearer token's scopes `read`, `admin`.")

  const own = documentSchema(
    { operationId: 'readBook', tags: ['mine'], response: { 200: { $ref: 'Book#' } } },
    route('GET', '/v1/books/:id', { rateLimit: false, conditional: false }),
    { ...FULL, negotiation: { ...(FULL.negotiation as object), languages: false } as never },
  )
  t.equal(own.operationId, 'readBook')
  t.same(own.tags, ['mine'])
  t.same(responses(own)['200'], { $ref: 'Book#' }, 'a $ref response is left as it is')
})

test("a route's own media types, negotiation off, HEAD, and no errors plugin", async (t) => {
  const csv = documentSchema(
    { response: { 200: book } },
    route('GET', '/v1/books', {
      negotiation: { produces: ['application/json', 'text/csv'], idField: 'id' },
      pagination: {},
    }),
    FULL,
  )
  t.same(contentOf(responses(csv)['200'])['text/csv'], { schema: { type: 'string' } })

  const image = documentSchema(
    {
      response: {
        200: { description: 'The image', content: { 'image/*': { schema: {} } } },
        206: { type: 'null' },
      },
    },
    route('GET', '/v1/books/:id/cover', { negotiation: false }),
    FULL,
  )
  t.same(Object.keys(contentOf(responses(image)['206'])), ['image/*'])
  t.notOk(responses(image)['300'], 'no choices without negotiation')
  const bare = documentSchema(
    { response: { 206: { type: 'null' } } },
    route('GET', '/v1/blobs/:id', { negotiation: false }),
    FULL,
  )
  t.same(Object.keys(contentOf(responses(bare)['206'])), ['application/octet-stream'])

  const head = documentSchema(
    { response: { 200: book, 404: { content: {} } } },
    route('HEAD', '/v1/books/:id'),
    FULL,
  )
  for (const [status, value] of Object.entries(responses(head))) {
    t.notOk(value.content, `HEAD ${status}: no body`)
    t.equal(value.type, 'null')
  }
  t.equal(responses(head)['404']?.description, 'No body (HEAD)')

  const plain = documentSchema(undefined, route(['GET'] as never, '/v1/books'), {
    ...FULL,
    errors: false,
    negotiation: false,
    rateLimit: false,
    conditional: false,
  })
  t.notOk(plain.response, 'nothing to add')
  t.equal(plain.operationId, 'getV1Books')
})

test('writes: Location, Accept-Patch, merge patch schema, binary uploads', async (t) => {
  const patch = documentSchema(
    {
      body: {
        content: {
          'application/json-patch+json': { schema: { type: 'array' } },
          'application/merge-patch+json': { schema: { description: 'JSON Merge Patch' } },
        },
      },
      response: {
        200: { description: 'The book', ...book },
        415: { content: { 'application/json': { schema: { $ref: 'RestwellError#' } } } },
      },
    },
    route('PATCH', '/v1/books/:id', { patch: {} }),
    FULL,
  )
  const merge = contentOf(patch.body as Json)['application/merge-patch+json']?.schema as Json
  t.same(merge.properties, book.properties)
  t.notOk(merge.required, 'a merge patch requires nothing')
  t.ok((responses(patch)['415']!.headers as Json)['accept-patch'])
  t.notOk(responses(patch)['300'], 'no choices on a write')

  const unknownResource = documentSchema(
    { body: { content: { 'application/merge-patch+json': { schema: {} } } } },
    route('PATCH', '/v1/things/:id'),
    FULL,
  )
  t.same(unknownResource.body, { content: { 'application/merge-patch+json': { schema: {} } } })

  const created = documentSchema(
    { consumes: ['image/png'], response: { 201: { type: 'null' }, 204: { type: 'null' } } },
    route('PUT', '/v1/books/:id/cover', { negotiation: false }),
    FULL,
  )
  t.same(created.body, {
    content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
  })
  t.ok((responses(created)['201']!.headers as Json).location)
  const deleted = documentSchema(
    { response: { 200: book } },
    route('DELETE', '/v1/books/:id'),
    FULL,
  )
  t.notOk((responses(deleted)['200']!.headers as Json).etag, 'no ETag documented on a DELETE')
  const jsonBody = documentSchema(
    { consumes: ['application/json'], body: book },
    route('POST', '/v1/books'),
    FULL,
  )
  t.same(jsonBody.body, book, 'a body schema is the route’s own')
  const noTypes = documentSchema({ consumes: [] }, route('POST', '/v1/books'), FULL)
  t.notOk(noTypes.body)
})

test('the whole document: OPTIONS per path, tags defined, operationIds unique', async (t) => {
  const document = {
    openapi: '3.0.3',
    tags: [{ name: 'books', description: 'Books' }, { description: 'no name' }],
    paths: {
      '/v1/books/{id}': {
        get: {
          operationId: 'same',
          tags: ['books'],
          parameters: [
            { in: 'path', name: 'id' },
            { in: 'header', name: 'x' },
          ],
          responses: {},
        },
        put: { operationId: 'same', responses: {} },
        summary: 'not an operation',
      },
      '/v1/authors': { post: { tags: [], responses: {} } },
      '/v1/things': { options: { operationId: 'own', responses: {} }, get: { responses: {} } },
      '/empty': {},
      '/odd': 'not an object',
    },
  }
  const done = completeDocument(document, true)
  const paths = done.paths as Record<string, Record<string, Json>>
  t.same(
    (done.tags as Json[]).map((tag) => tag.name),
    ['books', 'authors', 'things'],
  )
  t.equal(paths['/v1/books/{id}']?.put?.operationId, 'same2')
  t.same(paths['/v1/books/{id}']?.options?.parameters, [{ in: 'path', name: 'id' }])
  t.match(
    ((paths['/v1/books/{id}']!.options!.responses as Json)['200'] as Json).description,
    /GET, PUT, OPTIONS/,
  )
  t.equal(paths['/v1/authors']?.post?.operationId, 'postV1Authors')
  t.same(paths['/v1/authors']?.post?.tags, ['authors'])
  t.notOk(paths['/v1/authors']?.options?.parameters)
  t.equal(paths['/v1/things']?.options?.operationId, 'own', 'an OPTIONS route of its own is kept')
  t.notOk(paths['/empty']?.options, 'no OPTIONS where nothing is served')
  t.notOk(paths['/odd'])
  const without = completeDocument(document, false).paths as Record<string, Json>
  t.notOk(without['/v1/authors']?.options, 'no OPTIONS when methods does not answer it')
  t.same(completeDocument({}, true), { tags: [], paths: {} })
})

test('what negotiation options say of the representations', async (t) => {
  t.equal(representationsOf(false), undefined)
  t.same(representationsOf(undefined), {
    produces: FIVE,
    choices: true,
    errors: true,
    languages: false,
  })
  t.same(
    representationsOf({
      produces: ['application/json'],
      choicesFormat: false,
      errors: false,
      languages: ['en'],
    }),
    { produces: ['application/json'], choices: false, errors: false, languages: true },
  )
  t.equal(representationsOf({ formatParam: false })?.choices, false)
})

test('the plan for the document, and the route transform', async (t) => {
  const base = {
    errors: 'problem' as const,
    auth: false,
    authByDefault: false,
    negotiation: true,
    conditional: false,
    requirePrecondition: false,
    rateLimit: false,
    underPressure: false,
    versioning: false,
    patch: false as const,
    softDelete: false as const,
  }
  const plan = documentPlanOf(base)
  t.same(plan.negotiation, {
    produces: ['application/json'],
    choices: false,
    errors: false,
    languages: false,
  })
  t.equal(plan.errors, 'problem')
  t.equal(plan.autoOptions, false)
  t.equal(documentPlanOf({ ...base, errors: false, negotiation: false }).negotiation, false)
  t.equal(documentPlanOf({ ...base, errors: 'structured' }).errors, 'other')

  const bare = route('GET', '/books')
  delete (bare as { config?: unknown }).config
  const openapiObject: Record<string | symbol, unknown> = { openapi: '3.0.3' }
  const transform = swaggerTransformFor(plan, undefined)
  const out = transform({ schema: undefined, url: '/books', route: bare, openapiObject })
  t.equal((out.schema as Json).operationId, 'getBooks', 'a route without config')
  t.same(transform({ schema: undefined, url: '/books', route: bare }), {}, 'Swagger 2.0: as is')
  const own = swaggerTransformFor(plan, () => ({ url: '/renamed', schema: { summary: 'Own' } }))
  const renamed = own({ schema: undefined, url: '/books', route: bare, openapiObject })
  t.equal(renamed.url, '/renamed', "the route's own transform runs first")
  t.equal((renamed.schema as Json).summary, 'Own')

  const head = documentSchema(
    { response: { 200: book, 418: true } },
    route('HEAD', '/books/:id'),
    FULL,
  )
  t.equal(responses(head)['418'], true)

  const options = restwellOpenapi()
  t.same(options.transformObject({ swaggerObject: { swagger: '2.0' } }), { swagger: '2.0' })
  t.same(options.transformObject({}), {})
  t.same(
    (options.transformObject({ openapiObject: { paths: { '/a': { get: {} } } } }).paths as Json)[
      '/a'
    ],
    { get: { operationId: 'getA', tags: ['a'] } },
    'no OPTIONS without a plan from restwell',
  )
})

test("the jobs' routes: the job, 303 when done, 409 from the result", async (t) => {
  const plan = { ...FULL, jobs: '/jobs' }
  const status = documentSchema(
    { response: { 200: { description: 'OK' } } },
    route('GET', '/jobs/:id'),
    plan,
  )
  const ok = responses(status)['200']!
  t.equal(ok.description, 'OK', "the route's own description wins")
  t.ok(contentOf(ok)['application/json']?.schema.properties, 'the job')
  t.ok((responses(status)['303']!.headers as Json).location)
  const result = documentSchema(undefined, route('GET', '/jobs/:id/result'), plan)
  t.equal(responses(result)['303']!.type, 'null', 'no body documented')
  t.notOk(responses(result)['303']!.content)
  t.ok(responses(result)['409'])
  const other = documentSchema(undefined, route('GET', '/v1/books'), plan)
  t.notOk(other.response && responses(other)['303'])
})
