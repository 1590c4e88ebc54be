/**
 * A QUERY route (RFC 10008) in the document: the OpenAPI 3.2 `query` operation, described as a
 * GET is (304, 406, ETag, If-None-Match) with its request content (400, 413, 415 with
 * `Accept-Query`, 422); `Accept-Query` on the path's OPTIONS. Before 3.2 there is no place
 * for it, so it is left out and the document stays valid.
 */
import fastifySwagger from '@fastify/swagger'
import { Validator } from '@seriousme/openapi-schema-validator'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import restwell, { restwellOpenapi } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

type Json = Record<string, unknown>
type Operation = {
  operationId: string
  parameters?: { name: string; in: string }[]
  requestBody?: { content: Json }
  responses: Record<string, { description: string; headers?: Json; content?: Json }>
}
type Paths = Record<string, Record<string, Operation>>

const filter = {
  type: 'object',
  additionalProperties: false,
  properties: { where: { type: 'object' }, limit: { type: 'integer' } },
}
const book = { type: 'object', properties: { id: { type: 'integer' } } }

async function documentOf(openapi: string): Promise<Json> {
  const app = Fastify()
  apps.push(app)
  await app.register(
    fastifySwagger,
    restwellOpenapi({ openapi, info: { title: 'q', version: '1' } }),
  )
  await app.register(restwell, { auth: false })
  // A path whose only route is a QUERY one, before the others (the next transform settles it).
  app.route({
    method: 'QUERY',
    url: '/searches',
    schema: { body: filter, response: { 200: { type: 'array', items: book } } },
    handler: async () => [],
  })
  app.get('/books', { schema: { response: { 200: { type: 'array', items: book } } } }, () => [])
  app.route({
    method: 'QUERY',
    url: '/books',
    schema: { body: filter, response: { 200: { type: 'array', items: book } } },
    config: { conditional: false },
    handler: async () => [],
  })
  app.route({
    method: 'QUERY',
    url: '/books/:id/pages',
    schema: {
      body: filter,
      response: {
        200: { type: 'array', items: book },
        422: { description: 'Unprocessable Content: an unknown operator' },
      },
    },
    config: { conditional: { getValidator: () => ({ etag: '1' }) } },
    handler: async () => [],
  })
  app.get('/authors', () => [])
  await app.ready()
  return app.swagger() as unknown as Json
}

test('OpenAPI 3.2: each QUERY route is the query operation, and the document is valid', async (t) => {
  const document = await documentOf('3.2.0')
  t.same(await new Validator().validate(structuredClone(document)), { valid: true })
  const paths = document.paths as Paths
  t.same(Object.keys(paths['/searches']!), ['options', 'query'], 'a path with QUERY only')
  t.same(
    Object.keys(paths['/books']!),
    ['get', 'head', 'options', 'query'],
    'in the order of Allow',
  )
  const search = paths['/searches']!.query!
  t.equal(search.operationId, 'querySearches')
  t.same(Object.keys(search.requestBody!.content), ['application/json'], 'its request body')
  const statuses = Object.keys(search.responses)
  for (const status of ['200', '304', '400', '406', '412', '413', '415', '422', 'default'])
    t.ok(statuses.includes(status), `QUERY documents ${status}`)
  for (const status of ['206', '416', '300']) t.notOk(statuses.includes(status), `no ${status}`)
  t.ok(search.responses['200']!.headers?.etag, '200 with ETag')
  t.ok(search.responses['200']!.headers?.location, '200 with Location, the GET-able equivalent')
  t.notOk(search.responses['200']!.headers?.['accept-ranges'], 'no Accept-Ranges')
  t.ok(search.responses['415']!.headers?.['accept-query'], '415 with Accept-Query')
  t.same(
    (search.parameters ?? []).map((p) => p.name),
    ['if-none-match', 'if-modified-since'],
    'the validators a QUERY sends; no Range (RFC 9110 §14.2)',
  )
  const allow = paths['/searches']!.options!.responses['200']!
  t.match(allow.description, /Allow: OPTIONS, QUERY/)
  t.ok(allow.headers?.['accept-query'], 'OPTIONS: Accept-Query')
  const books = paths['/books']!.options!.responses['200']!
  t.match(books.description, /Allow: GET, HEAD, OPTIONS, QUERY/)
  t.notOk(paths['/authors']!.options!.responses['200']!.headers?.['accept-query'])

  const unconditional = paths['/books']!.query!
  for (const status of ['304', '412'])
    t.notOk(unconditional.responses[status], `conditional: false: no ${status}`)
  t.ok(unconditional.responses['422'], 'still 422')
  t.notOk(unconditional.parameters, 'no validator headers')

  const pages = paths['/books/{id}/pages']!.query!
  t.equal(
    pages.responses['422']!.description,
    'Unprocessable Content: an unknown operator',
    "the route's own 422 wins",
  )
  t.ok(pages.responses['422']!.content, 'with the error body')
  t.ok(pages.responses['412'], 'a validator: 412')
})

for (const version of ['3.0.3', '3.1.0']) {
  test(`OpenAPI ${version}: no place for QUERY, so it is left out`, async (t) => {
    const document = await documentOf(version)
    t.same(await new Validator().validate(structuredClone(document)), { valid: true })
    const paths = document.paths as Paths
    t.notOk(paths['/searches'], 'a path with QUERY only is not there')
    t.same(Object.keys(paths['/books']!), ['get', 'head', 'options'])
    const allow = paths['/books']!.options!.responses['200']!
    t.match(allow.description, /Allow: GET, HEAD, OPTIONS/)
    t.notOk(allow.headers?.['accept-query'])
  })
}
