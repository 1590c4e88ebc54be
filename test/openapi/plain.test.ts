/**
 * A plain app (`@fastify/swagger` with nothing but `openapi.info`, then restwell; no example
 * code) gets the whole description: every representation, the conventions' statuses and
 * headers, HEAD and OPTIONS, operationIds and tags, security valid for its version, and a QUERY
 * route as the OpenAPI 3.2 `query` operation (left out before 3.2, which has no place for it).
 * Checked by swagger-parser (3.0, 3.1), `@seriousme/openapi-schema-validator` (3.0 to 3.2) and
 * Spectral. `restwellOpenapi()` only names shared schemas after their `$id`.
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import fastifySwagger from '@fastify/swagger'
import { Validator } from '@seriousme/openapi-schema-validator'
import spectralCore from '@stoplight/spectral-core'
import spectralRulesets from '@stoplight/spectral-rulesets'
import Fastify from 'fastify'
import restwell, { type RestwellOptions, restwellOpenapi } from 'restwell'
import { test } from 'tap'

type Json = Record<string, unknown>

const book = {
  type: 'object',
  required: ['id', 'title'],
  properties: { id: { type: 'integer' }, title: { type: 'string' } },
}

async function documentOf(
  openapi: string,
  convenience = false,
  options: RestwellOptions = {},
): Promise<Json> {
  const app = Fastify()
  const top = { openapi, info: { title: 'books', version: '1.0.0' } }
  await app.register(fastifySwagger, convenience ? restwellOpenapi(top) : { openapi: top })
  await app.register(restwell, {
    auth: { verify: () => ({ scopes: ['read', 'write'] }) },
    conditional: { requirePrecondition: true },
    ...options,
  })
  if (options.idempotency !== undefined) {
    app.post('/orders', { config: { idempotency: { required: true } } }, async () => ({}))
  }
  app.get(
    '/books',
    {
      schema: {
        response: { 200: { type: 'object', properties: { data: { type: 'array', items: book } } } },
      },
      config: { pagination: {} },
    },
    async (_request, reply) => reply.paginate([], { total: 0 }),
  )
  app.route({
    method: 'QUERY',
    url: '/books',
    schema: {
      body: { type: 'object', properties: { where: { type: 'object' } } },
      response: { 200: { type: 'object', properties: { data: { type: 'array', items: book } } } },
    },
    handler: async () => ({ data: [] }),
  })
  app.get('/books/:id', { schema: { response: { 200: book } } }, async () => ({
    id: 1,
    title: 'x',
  }))
  app.patch(
    '/books/:id',
    {
      schema: { response: { 200: book } },
      config: { auth: { scopes: ['write'] }, conditional: { getValidator: () => ({ etag: '1' }) } },
    },
    async () => ({ id: 1, title: 'y' }),
  )
  // One operation per method, each with its own operationId.
  app.route({
    method: ['PUT', 'DELETE'],
    url: '/books/:id/cover',
    config: { auth: { scopes: ['write'] } },
    handler: async (_request, reply) => reply.code(204).send(),
  })
  // The last route the document is built from: its HEAD is restwell's own, from the route.
  app.get('/authors/:id', { config: { auth: false } }, async () => ({ id: 1 }))
  await app.ready()
  const document = app.swagger() as unknown as Json
  await app.close()
  return document
}

async function spectral(document: Json): Promise<string[]> {
  const linter = new spectralCore.Spectral()
  linter.setRuleset({ extends: [[spectralRulesets.oas as never, 'recommended']] })
  const results = await linter.run(JSON.stringify(document))
  return results
    .filter(
      (r) => r.severity === 0 || /scope|operationId|operation-tag|security/.test(String(r.code)),
    )
    .map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`)
}

for (const version of ['3.0.3', '3.1.0', '3.2.0']) {
  test(`OpenAPI ${version}: valid, Spectral-clean, complete`, async (t) => {
    const document = await documentOf(version)
    const query = version === '3.2.0'
    if (!query) {
      await t.resolves(SwaggerParser.validate(structuredClone(document) as never), 'swagger-parser')
    }
    const checked = await new Validator().validate(structuredClone(document))
    t.same(checked, { valid: true }, 'openapi-schema-validator')
    t.same(await spectral(document), [], 'Spectral: no error, nothing on scopes, ids or tags')
    const paths = document.paths as Record<string, Record<string, Json>>
    const item = paths['/books/{id}']!
    t.same(Object.keys(item), ['get', 'head', 'patch', 'options'])
    t.same(
      Object.keys(paths['/books']!),
      query ? ['get', 'head', 'options', 'query'] : ['get', 'head', 'options'],
      query ? 'QUERY: the query operation' : 'QUERY: no operation before 3.2',
    )
    t.same(Object.keys(paths['/books/{id}/cover']!), ['put', 'delete', 'options'])
    t.same(Object.keys(paths['/authors/{id}']!).sort(), ['get', 'head', 'options'])
    const head = item.head!
    t.equal(head.operationId, 'headBooksById')
    t.same(head.parameters, item.get!.parameters, "HEAD takes GET's parameters")
    for (const [status, response] of Object.entries(head.responses as Record<string, Json>)) {
      t.notOk(response.content, `HEAD ${status}: no body`)
    }
    const allow = (item.options!.responses as Record<string, Json>)['200']!.description as string
    t.match(allow, /Allow: GET, HEAD, PATCH, OPTIONS/)
    const cover = paths['/books/{id}/cover']!
    t.same(
      [cover.put!.operationId, cover.delete!.operationId],
      ['putBooksByIdCover', 'deleteBooksByIdCover'],
    )
    const last = paths['/authors/{id}']!
    t.same(
      (last.head!.parameters as Json[]).map((p) => [p.in, p.name]),
      [['path', 'id']],
      'the last route: HEAD from the route itself',
    )
    const ok = (item.get!.responses as Record<string, Json>)['200']!
    t.same(Object.keys(ok.content as Json), [
      'application/json',
      'application/xml',
      'application/hal+json',
      'application/vnd.api+json',
      'application/vnd.siren+json',
    ])
    const patch = item.patch!
    t.match(patch.description, /`write`/, 'the scope named in the description')
    t.same(
      patch.security,
      [{ bearerAuth: [] }],
      'no scopes on an http scheme (Spectral flags them in 3.1 too)',
    )
    const statuses = Object.keys(patch.responses as Json)
    for (const status of ['409', '412', '415', '422', '428', '429', '503', 'default'])
      t.ok(statuses.includes(status), `PATCH documents ${status}`)
    t.ok(
      ((patch.requestBody as Json).content as Json)['application/merge-patch+json'],
      'the merge patch body',
    )
    t.ok(paths['/books']!.get!.operationId, 'operationIds')
    t.same(
      (document.tags as Json[]).map((tag) => tag.name),
      ['books', 'authors'],
      'every tag an operation uses is defined',
    )
    t.same(
      (document.components as Record<string, Json>).securitySchemes,
      { bearerAuth: { type: 'http', scheme: 'bearer', description: 'RFC 6750 Bearer token' } },
      'the Bearer scheme the operations name',
    )
  })
}

test('OpenAPI 3.2: a QUERY route is the query operation, with what a GET has and its body', async (t) => {
  const document = await documentOf('3.2.0')
  const paths = document.paths as Record<string, Record<string, Json>>
  const operation = paths['/books']!.query!
  t.equal(operation.operationId, 'queryBooks')
  t.same(operation.security, [{ bearerAuth: [] }])
  t.ok(((operation.requestBody as Json).content as Json)['application/json'], 'its request body')
  const responses = operation.responses as Record<string, Json>
  for (const status of ['200', '304', '400', '406', '412', '413', '415', '422', '429', 'default'])
    t.ok(responses[status], `QUERY documents ${status}`)
  for (const status of ['206', '416', '300'])
    t.notOk(responses[status], `no ${status}: range and choices are a GET's`)
  const ok = responses['200']!
  t.ok((ok.headers as Json).etag, '200 with ETag')
  t.notOk((ok.headers as Json)['accept-ranges'], 'no Accept-Ranges (RFC 9110 §14.2)')
  t.same(Object.keys(ok.content as Json), [
    'application/json',
    'application/xml',
    'application/hal+json',
    'application/vnd.api+json',
    'application/vnd.siren+json',
  ])
  t.ok((responses['304']!.headers as Json).etag, '304 with ETag')
  t.same(Object.keys(responses['415']!.headers as Json).sort(), [
    'accept',
    'accept-query',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
  ])
  const parameters = (operation.parameters as Json[]).map((p) => `${p.in} ${p.name}`)
  t.ok(parameters.includes('header if-none-match'), 'If-None-Match')
  t.notOk(parameters.includes('header range'), 'no Range')
  const options = (paths['/books']!.options!.responses as Record<string, Json>)['200']!
  t.match(options.description, /Allow: GET, HEAD, OPTIONS, QUERY/)
  t.ok((options.headers as Json)['accept-query'], 'OPTIONS documents Accept-Query')
  const other = (paths['/books/{id}']!.options!.responses as Record<string, Json>)['200']!
  t.notOk((other.headers as Json)['accept-query'], 'not on a path without QUERY')
})

for (const headers of ['x-ratelimit', 'ietf', 'both'] as const) {
  test(`rate-limit headers '${headers}', the problem form, a required key: valid, Spectral-clean`, async (t) => {
    for (const version of ['3.0.3', '3.1.0']) {
      const document = await documentOf(version, true, {
        errors: { format: 'problem' },
        rateLimit: { headers },
        idempotency: {},
      })
      await t.resolves(SwaggerParser.validate(structuredClone(document) as never), version)
      t.same(await spectral(document), [], `${version}: Spectral finds no error`)
      const paths = document.paths as Record<string, Record<string, Json>>
      const limited = (paths['/books/{id}']!.get!.responses as Record<string, Json>)['429']!
      const fields = Object.keys(limited.headers as Json)
      t.equal(fields.includes('ratelimit-policy'), headers !== 'x-ratelimit', `${version}: IETF`)
      t.equal(fields.includes('x-ratelimit-limit'), headers !== 'ietf', `${version}: X-RateLimit`)
      const key = (paths['/orders']!.post!.parameters as Json[]).find(
        (p) => p.name === 'idempotency-key',
      )
      t.equal(key?.required, true, `${version}: the key is required`)
    }
  })
}

test('restwellOpenapi() gives the same document, its shared schemas named after their $id', async (t) => {
  const plain = JSON.stringify(await documentOf('3.0.3'))
  const convenient = await documentOf('3.0.3', true)
  t.same(Object.keys((convenient.components as Record<string, Json>).schemas!), ['RestwellError'])
  // What differs: the name, and the `title` the default resolver gives a schema it renames.
  const renamed = JSON.parse(plain.replaceAll('def-0', 'RestwellError')) as Json
  const schemas = (renamed.components as Record<string, Record<string, Json>>).schemas!
  t.equal(schemas.RestwellError!.title, 'RestwellError')
  delete schemas.RestwellError!.title
  t.same(renamed, convenient)
})
