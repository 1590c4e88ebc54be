import { formatParamUrl as swaggerFormatParamUrl } from '@fastify/swagger'
import fc from 'fast-check'
import { conditional } from '@restwell/conditional'
import type { RouteDescription } from '@restwell/core'
import type { RouteOptions } from 'fastify'
import { test } from 'tap'
import {
  type DocumentPlan,
  describeInDocument,
  documentSchema,
  errorContent,
  formatParamUrl,
  operationIdOf,
  pathKeyOf,
  representationSchemas,
  tagOf,
} from '../src/openapi-document.js'
import {
  describeRoute,
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

const FULL: DocumentPlan = {
  errors: 'other',
  negotiation: {
    produces: FIVE,
    choices: true,
    errors: true,
  },
  autoOptions: true,
  hideRoutes: false,
  versioning: false,
}

const BEARER = { type: 'http', scheme: 'bearer', description: 'RFC 6750 Bearer token' }

/** What `@restwell/auth` says of a route it protects with `scopes`. */
const bearer = (scopes: string[] = []): RouteDescription => ({
  security: { name: 'bearerAuth', scheme: BEARER, scopes },
})

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
  // A problem type a convention names: its members, in the problem form only.
  const quota = {
    type: 'https://example.com/quota',
    members: { policies: { type: 'array', items: { type: 'string' } } },
  }
  const problem = errorContent({ ...FULL, errors: 'problem' }, [quota])
  t.same((problem['application/problem+json'] as Json).schema, {
    allOf: [
      { $ref: 'RestwellError#' },
      {
        type: 'object',
        required: ['type', 'policies'],
        properties: {
          type: { type: 'string', enum: ['https://example.com/quota'] },
          policies: { type: 'array', items: { type: 'string' } },
        },
      },
    ],
  })
  t.same((problem['application/hal+json'] as Json).schema, { $ref: 'RestwellError#' })
  t.same(
    (errorContent(FULL, [quota])['application/json'] as Json).schema,
    { $ref: 'RestwellError#' },
    'another form has no problem type',
  )
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
  const limit: RouteDescription = {
    answerHeaders: [['X-RateLimit-Limit', 'Requests allowed', 'integer']],
    responses: [
      [429, 'Too Many Requests', { headers: [['Retry-After', 'Seconds', 'integer']] }],
      [404, 'Nothing more to say of it', {}],
    ],
  }
  const methods: RouteDescription = {
    responses: [[405, 'Method Not Allowed', { headers: [['Allow', 'The methods of the path']] }]],
  }
  const languages: RouteDescription = {
    statusHeaders: [['success', [['Content-Language', 'The language of the representation']]]],
  }
  const schema = documentSchema(
    { ...given, response: { ...given.response, 429: { description: 'Too Many Requests' } } },
    route('GET', '/v1/books/:id'),
    FULL,
    undefined,
    undefined,
    [limit, methods, languages, bearer(), ...conditionalSays('GET')],
  )
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
  t.same(headers200['x-ratelimit-limit'], { type: 'integer', description: 'Requests allowed' })
  for (const status of ['300', '304', '404', '429', 'default']) {
    t.ok((r[status]!.headers as Json)['x-ratelimit-limit'], `${status}: an answer header`)
  }
  t.same(Object.keys(r['429']!.headers as Json), ['x-ratelimit-limit', 'retry-after'])
  t.notOk((r['404']!.headers as Json)['retry-after'], "a status's own header on it alone")
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
    undefined,
    undefined,
    [bearer()],
  )
  t.equal(described.description, "One book.\n\nRequires the Bearer token's scopes `read`, `admin`.")
  const unknown = documentSchema(
    { security: [{ bearerAuth: ['read'] }] },
    route('GET', '/v1/books/:id'),
    FULL,
  )
  t.same(unknown.security, [{ bearerAuth: ['read'] }], 'a scheme no convention describes: kept')
  t.notOk(unknown.description)
  const oauth: RouteDescription = {
    security: { name: 'oauth', scheme: { type: 'oauth2', flows: {} }, scopes: ['read'] },
  }
  const scoped = documentSchema(
    undefined,
    route('GET', '/v1/books/:id'),
    FULL,
    'GET',
    '/v1/books/{id}',
    [oauth],
  )
  t.same(scoped.security, [{ oauth: ['read'] }], 'OAuth2 takes scopes')
  t.notOk(scoped.description)

  const own = documentSchema(
    { operationId: 'readBook', tags: ['mine'], response: { 200: { $ref: 'Book#' } } },
    route('GET', '/v1/books/:id', { rateLimit: false, conditional: false }),
    FULL,
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
    undefined,
    undefined,
    [{ statusHeaders: [[415, [['Accept-Patch', 'The patch formats']]]] }],
  )
  const merge = contentOf(patch.body as Json)['application/merge-patch+json']?.schema as Json
  t.same(merge.properties, book.properties)
  t.notOk(merge.required, 'a merge patch requires nothing')
  t.same((responses(patch)['415']!.headers as Json)['accept-patch'], {
    type: 'string',
    description: 'The patch formats',
  })
  t.notOk(
    (responses(patch)['200']!.headers as Json | undefined)?.['accept-patch'],
    'on the status named only',
  )
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
    undefined,
    undefined,
    conditionalSays('DELETE'),
  )
  t.notOk(
    (responses(deleted)['200']!.headers as Json | undefined)?.etag,
    'no ETag documented on a DELETE',
  )
  const jsonBody = documentSchema(
    { consumes: ['application/json'], body: book },
    route('POST', '/v1/books'),
    FULL,
  )
  t.same(jsonBody.body, book, 'a body schema is the route’s own')
  const noTypes = documentSchema({ consumes: [] }, route('POST', '/v1/books'), FULL)
  t.notOk(noTypes.body)
})

test('paths as @fastify/swagger writes them', async (t) => {
  for (const url of [
    '/v1/books/:id',
    '/v1/books/:id(^\\d+)/cover',
    '/files/*',
    '/a::b',
    '/a/(^\\d+)/(x)',
    '/a/:id-:name',
    '/:a(x(y))z',
    '/a/:',
    '/a/:/b',
    '/a/(open',
    '',
  ]) {
    t.equal(formatParamUrl(url), swaggerFormatParamUrl(url), url)
  }
  const urls = fc
    .array(fc.constantFrom('/', ':', '(', ')', '*', 'a', 'B', '_', '-', '1', '{'), {
      maxLength: 24,
    })
    .map((chars) => chars.join(''))
  fc.assert(fc.property(urls, (url) => formatParamUrl(url) === swaggerFormatParamUrl(url)))

  t.equal(pathKeyOf('/api/books/:id', [{ url: '/api' }]), '/books/{id}', 'a base path')
  t.equal(pathKeyOf('/api/books', [{ url: 'https://x.test/api' }]), '/books', 'from a full URL')
  const variable = { url: 'https://x.test/{base}', variables: { base: { default: 'api' } } }
  t.equal(pathKeyOf('/api/books', [variable]), '/books', 'a variable at its default')
  t.equal(pathKeyOf('/api/books', [{ url: '/{base}' }]), '/api/books', 'no default: as is')
  t.equal(
    pathKeyOf('/api/books', [{ url: 'not a url' }, 'odd', { url: '/' }, { url: '/other' }]),
    '/api/books',
    'nothing to take off',
  )
  t.equal(pathKeyOf('/books/:id', undefined), '/books/{id}')
})

/** What @fastify/swagger does after a route's transform: one operation for all its methods. */
function built(document: Json, path: string, methods: string[], operation: Json): void {
  const paths = document.paths as Record<string, Json>
  const item: Json = { ...paths[path] }
  for (const method of methods) item[method] = operation
  paths[path] = item
}

test('the document being built: ids, tags, the Bearer scheme, HEAD and OPTIONS', async (t) => {
  const plan: DocumentPlan = {
    ...FULL,
    negotiation: false,
    versioning: true,
  }
  const document: Json = {
    openapi: '3.0.3',
    tags: [{ name: 'v1', description: 'Version 1' }, 'odd'],
    components: { schemas: {} },
    paths: { '/v1/books/{id}': { summary: 'One book' } },
  }
  const paths = document.paths as Record<string, Record<string, Json>>
  const get = route('GET', '/v1/books/:id', { auth: { scopes: ['read'] } })
  const given = {
    params: { type: 'object', properties: { id: { type: 'integer', description: 'The id' } } },
    response: {
      200: { description: 'A book', headers: { etag: { type: 'string', description: 'Tag' } } },
      204: { type: 'null', headers: { 'x-none': { type: 'string' }, 'x-odd': true } },
      418: true,
    },
  }
  const said = [bearer(['read'])]
  const schema = describeInDocument(document, given, get, '/v1/books/:id', plan, true, said)
  t.equal(schema.operationId, 'getV1BooksById')
  t.same(schema.tags, ['v1'])
  t.same(schema.security, [{ bearerAuth: [] }])
  t.same(document.tags, [{ name: 'v1', description: 'Version 1' }, 'odd'], 'v1: defined already')
  t.same((document.components as Json).securitySchemes, { bearerAuth: BEARER })
  const placeholder = paths['/v1/books/{id}']!.head!
  t.equal(placeholder.operationId, 'headV1BooksById')
  t.same(placeholder.parameters, [
    { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, description: 'The id' },
  ])
  const placed = placeholder.responses as Record<string, Json>
  t.same(placed['200'], {
    description: 'A book',
    headers: { etag: { schema: { type: 'string' }, description: 'Tag' } },
  })
  t.same(placed['204'], {
    description: 'No body (HEAD)',
    headers: { 'x-none': { schema: { type: 'string' } } },
  })
  t.notOk(placed['418'], 'what is not a response')
  t.match(placeholder.description, /`read`/)
  const options = paths['/v1/books/{id}']!.options!
  t.equal(options.operationId, 'optionsV1BooksById')
  t.same(options.tags, ['v1'])

  const parameters = [
    { in: 'path', name: 'id' },
    { in: 'query', name: 'fields' },
  ]
  built(document, '/v1/books/{id}', ['get'], {
    operationId: 'getV1BooksById',
    parameters,
    responses: { 200: { description: 'A book', content: {}, links: {} } },
  })
  const patch = route('PATCH', '/v1/books/:id', { auth: false })
  const patched = describeInDocument(document, undefined, patch, '/v1/books/:id', plan, false)
  t.notOk(patched.security, 'config.auth: false')
  const item = paths['/v1/books/{id}']!
  t.same(item.head, {
    operationId: 'headV1BooksById',
    parameters,
    responses: { 200: { description: 'A book' } },
  })
  t.same(Object.keys(item), ['summary', 'get', 'head', 'options'], 'in the usual order')
  const ok = (item.options!.responses as Record<string, Json>)['200']!
  t.match(ok.description, /Allow: GET, HEAD, PATCH, OPTIONS/)
  built(document, '/v1/books/{id}', ['patch'], { operationId: 'patchV1BooksById' })

  // Several methods, one operation from @fastify/swagger: each gets an id of its own.
  const multi = route(['PUT', 'DELETE', 'HEAD'] as never, '/v1/books/:id/cover')
  const owned = { operationId: 'cover' }
  t.equal(describeInDocument(document, owned, multi, multi.url, plan, true).operationId, 'cover')
  const shared = { operationId: 'cover', responses: { 200: { content: {} } } }
  built(document, '/v1/books/{id}/cover', ['put', 'delete', 'head'], shared)
  const search = route(['SEARCH', 'GET'] as never, '/v1/books/:id/cover')
  describeInDocument(document, undefined, search, search.url, plan, true)
  const cover = paths['/v1/books/{id}/cover']!
  t.same(
    [cover.put!.operationId, cover.delete!.operationId, cover.head!.operationId],
    ['cover', 'cover-delete', 'cover-head'],
  )
  t.same(cover.head!.responses, { 200: {} }, 'HEAD: no body')
  t.match(
    ((cover.options!.responses as Record<string, Json>)['200'] as Json).description,
    /Allow: GET, HEAD, PUT, DELETE, OPTIONS, SEARCH/,
    'in the order the server lists them',
  )
  // An operation that is not the one the route shared is left; so is a HEAD of its own.
  const own = { operationId: 'searchCover' }
  built(document, '/v1/books/{id}/cover', ['search', 'get'], {
    operationId: 'searchV1BooksByIdCover',
  })
  cover.get = own
  paths['/v1/books/{id}/cover']!.get = own
  paths['/v1/books/{id}/cover']!.head = { operationId: 'ownHead' }
  describeInDocument(document, { hide: true }, route('GET', '/v1/hidden'), '/v1/hidden', plan, true)
  t.equal(paths['/v1/books/{id}/cover']!.get, own)
  t.same(paths['/v1/books/{id}/cover']!.head, { operationId: 'ownHead' })
  t.notOk(paths['/v1/hidden'], 'a hidden route adds nothing')
  const tagged = { tags: ['X-HIDDEN'] }
  describeInDocument(document, tagged, route('GET', '/v1/secret'), '/v1/secret', plan, true)
  t.notOk(paths['/v1/secret'])
})

test('the document being built: what swagger leaves out, OPTIONS of the app, ids', async (t) => {
  const plan: DocumentPlan = { ...FULL, errors: false, negotiation: false }
  const document: Json = { openapi: '3.0.3' }
  const describe = (method: string, url: string, given?: Json, head = true): Json =>
    describeInDocument(document, given, route(method, url), url, plan, head)
  describe('GET', '/gone')
  const paths = document.paths as Record<string, Record<string, Json>>
  t.same((paths['/gone']!.head!.responses as Json)['200'], { description: 'Default Response' })
  t.same(document.tags, [{ name: 'gone' }])
  t.notOk(document.components, 'no Bearer scheme without auth')
  // @fastify/swagger did not build it (a hiding rule of the app's): restwell's HEAD and OPTIONS go.
  describe('POST', '/mixed')
  t.notOk(paths['/gone'], 'nothing left there')
  built(document, '/mixed', ['post'], { operationId: 'postMixed' })
  describe('GET', '/mixed')
  describe('GET', '/other', undefined, false)
  t.same(Object.keys(paths['/mixed']!), ['post', 'options'], 'the HEAD goes, the path stays')
  built(document, '/other', ['get'], { operationId: 'getOther' })

  // An OPTIONS route of the app's own: restwell adds none there, before or after it.
  describe('OPTIONS', '/own')
  built(document, '/own', ['options'], { operationId: 'ownOptions' })
  describe('GET', '/own', { tags: 'not a list' })
  t.same(paths['/own']!.options, { operationId: 'ownOptions' })
  built(document, '/own', ['get'], { operationId: 'getOwn' })
  describe('GET', '/late')
  built(document, '/late', ['get'], { operationId: 'getLate' })
  paths['/late']!.options = { operationId: 'lateOptions' }
  paths['/late']!.head = { operationId: 'lateHead' }
  describe('PUT', '/late')
  t.same(paths['/late']!.options, { operationId: 'lateOptions' })
  t.same(paths['/late']!.head, { operationId: 'lateHead' }, 'a HEAD of the app’s own is kept')
  built(document, '/late', ['put'], { operationId: 'putLate' })

  // The same operation again (another constraint): the same id; another wanting one: a suffix.
  t.equal(describe('PUT', '/late').operationId, 'putLate')
  t.equal(describe('GET', '/a', { operationId: 'same' }).operationId, 'same')
  t.equal(describe('GET', '/b', { operationId: 'same' }).operationId, 'same2')
  t.equal(describe('GET', '/c', { operationId: 'same' }).operationId, 'same3')
  t.equal(paths['/c']!.head!.operationId, 'same-head3', "HEAD: the route's id, -head")

  const quiet: Json = { openapi: '3.1.0', paths: {}, components: {} }
  const off = { ...plan, autoOptions: false }
  const mine = { security: [{ bearerAuth: ['admin'] }, { apiKey: [] }] }
  describeInDocument(quiet, mine, route('GET', '/x', { auth: true }), '/x', off, false, [bearer()])
  t.same(quiet.paths, {}, 'no HEAD, no OPTIONS: nothing on the path before it is built')
  t.same(quiet.components, { securitySchemes: { bearerAuth: BEARER } })
  const open = describeInDocument(quiet, undefined, route('GET', '/y'), '/y', off, false)
  t.notOk(open.security, 'no config.auth, and routes are not protected by default')
  const defined = { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } }
  const custom: Json = { openapi: '3.0.3', paths: {}, components: defined }
  describeInDocument(custom, mine, route('GET', '/x'), '/x', off, false, [bearer()])
  t.same(custom.components, defined, "the app's own bearerAuth")
  const other: Json = { openapi: '3.0.3', paths: {} }
  const keyed = { security: [{ apiKey: [] }, 'odd'] }
  describeInDocument(other, keyed, route('GET', '/k'), '/k', off, false, [bearer()])
  describeInDocument(other, { security: 'odd' }, route('GET', '/o'), '/o', off, false, [bearer()])
  t.notOk(other.components, 'a requirement of the app naming no scheme a convention describes')
  const params = { type: 'object', properties: { id: { $ref: 'Id#' } } }
  describeInDocument(custom, { params }, route('GET', '/x/:id'), '/x/:id', plan, true)
  t.same(((custom.paths as Json)['/x/{id}'] as Record<string, Json>).head!.parameters, [
    { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
  ])
})

test('what negotiation options say of the representations', async (t) => {
  t.equal(representationsOf(false), undefined)
  t.same(representationsOf(undefined), {
    produces: FIVE,
    choices: true,
    errors: true,
  })
  t.same(
    representationsOf({
      produces: ['application/json'],
      choicesFormat: false,
      errors: false,
      languages: ['en'],
    }),
    { produces: ['application/json'], choices: false, errors: false },
  )
  t.equal(representationsOf({ formatParam: false })?.choices, false)
})

test('the plan for the document, and the route transform', async (t) => {
  const base = {
    errors: 'problem' as const,
    auth: false,
    authByDefault: false,
    negotiation: true,
    rateLimit: false,
    versioning: false,
  }
  const plan = documentPlanOf(base)
  t.same(plan.negotiation, {
    produces: ['application/json'],
    choices: false,
    errors: false,
  })
  t.equal(plan.errors, 'problem')
  t.equal(plan.autoOptions, false)
  t.equal(documentPlanOf({ ...base, errors: false, negotiation: false }).negotiation, false)
  t.equal(documentPlanOf({ ...base, errors: 'structured' }).errors, 'other')
  t.equal(documentPlanOf(base).hideRoutes, false, 'no auth')
  t.equal(documentPlanOf({ ...base, auth: true, authByDefault: true }).hideRoutes, true)
  t.equal(
    documentPlanOf({ ...base, auth: true, authByDefault: true, hideRoutes: false }).hideRoutes,
    false,
  )

  const bare = route('GET', '/books')
  delete (bare as { config?: unknown }).config
  const openapiObject: Json = { openapi: '3.0.3' }
  const transform = swaggerTransformFor(base, undefined, describeInDocument)
  const out = transform({ schema: undefined, url: '/books', route: bare, openapiObject })
  t.equal((out.schema as Json).operationId, 'getBooks', 'a route without config')
  t.same(transform({ schema: undefined, url: '/books', route: bare }), {}, 'Swagger 2.0: as is')
  const own = swaggerTransformFor(
    base,
    () => ({ url: '/renamed', schema: { summary: 'Own' } }),
    describeInDocument,
  )
  const renamed = own({ schema: undefined, url: '/books', route: bare, openapiObject: {} })
  t.equal(renamed.url, '/renamed', "the route's own transform runs first")
  t.equal((renamed.schema as Json).summary, 'Own')
  t.equal((renamed.schema as Json).operationId, 'getRenamed', 'named where the document shows it')
  const seen: unknown[] = []
  const app = swaggerTransformFor(
    {
      ...base,
      transform(input) {
        seen.push(this, input.url)
        return { schema: { ...(input.schema as Json), summary: 'App' } }
      },
    },
    undefined,
    describeInDocument,
  )
  const chained = app({
    schema: { description: 'x' },
    url: '/books',
    route: bare,
    openapiObject: {},
  })
  t.match(chained.schema, { summary: 'App', description: 'x', operationId: 'getBooks' })
  t.equal(seen[1], '/books', "the app's transform runs first")
  t.match(seen[0], { errors: 'problem' }, 'called as a method of the plan')
  const hidden = swaggerTransformFor(base, () => ({ schema: { hide: true } }), describeInDocument)
  const document: Json = {}
  t.match(hidden({ url: '/books', route: bare, openapiObject: document }).schema, { hide: true })
  t.same(document, { paths: {} }, 'a hidden route: the document gains nothing')

  const head = documentSchema(
    { response: { 200: book, 418: true } },
    route('HEAD', '/books/:id'),
    FULL,
  )
  t.equal(responses(head)['418'], true)

  const options = restwellOpenapi({ info: { title: 't', version: '1' } })
  t.same(options.openapi, { info: { title: 't', version: '1' } })
  t.equal(options.refResolver.buildLocalReference({ $id: 'Book' }, '', '', 3), 'Book')
  t.equal(options.refResolver.buildLocalReference({}, '', '', 3), 'def-3')
  t.same(restwellOpenapi().openapi, {})
})

test("a body a convention describes: the document's alone, the route's own response over it", async (t) => {
  const job = { type: 'object', properties: { jobId: { type: 'string' } } }
  const said: RouteDescription[] = [
    {
      responses: [
        [200, 'The job', { content: job }],
        [303, 'See Other', { headers: [['Location', 'The result']], content: job }],
        [409, 'Conflict'],
      ],
    },
  ]
  const status = documentSchema(
    { response: { 200: { description: 'OK' } } },
    route('GET', '/jobs/:id'),
    FULL,
    undefined,
    undefined,
    said,
  )
  const ok = responses(status)['200']!
  t.equal(ok.description, 'OK', "the route's own description wins")
  t.ok(contentOf(ok)['application/json']?.schema.properties, 'the body, in each representation')
  const seeOther = responses(status)['303']!
  t.same((seeOther.headers as Json).location, { type: 'string', description: 'The result' })
  t.same(seeOther.properties, job.properties, 'a 303 with a body')
  const plain = {
    errors: 'structured',
    auth: false,
    authByDefault: false,
    negotiation: false,
    versioning: false,
  } as const
  const served = route('GET', '/jobs/:id')
  describeRoute(served, plain, undefined, said)
  const compiled = responses(served.schema as Json)
  t.notOk(compiled['200'], "Fastify's schema: not the body")
  t.notOk(compiled['303'], 'nor its status')
  t.equal(compiled['409']?.description, 'Conflict', 'a status without a body is')
})
