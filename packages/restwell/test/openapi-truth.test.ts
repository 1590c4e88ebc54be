/**
 * The document tells the truth: what it says of each operation is what the server answers.
 * Each check asks the server too (a fuzzer reading the document would).
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import fastifySwagger from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import { type Test, test } from 'tap'
import restwell, { type RestwellOptions, restwellOpenapi } from '../src/index.js'

type Json = Record<string, unknown>
interface Operation {
  responses: Record<string, Json>
  parameters?: { name: string; in: string; schema: Json }[]
  security?: unknown[]
  requestBody?: { content: Record<string, { schema: Json }> }
}
type Doc = { paths: Record<string, Record<string, Operation>> }

const TOKEN = { authorization: 'Bearer ok' }
const id = { type: 'object', properties: { id: { type: 'integer', minimum: 1 } } } as const

async function build(
  t: Test,
  options: RestwellOptions = {},
): Promise<{ app: FastifyInstance; doc: Doc }> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifySwagger, restwellOpenapi({ info: { title: 't', version: '1' } }))
  await app.register(restwell, {
    auth: { verify: (token) => (token === 'ok' ? { sub: 'x' } : null) },
    ...options,
  })
  app.get(
    '/books',
    { config: { pagination: { sortable: ['title', 'year'] } } },
    async (_request, reply) => reply.paginate([], { total: 0 }),
  )
  app.post(
    '/books',
    { schema: { response: { 409: { description: 'Conflict: the ISBN is catalogued' } } } },
    async () => ({}),
  )
  const conditional = { getValidator: () => ({ etag: 'v1' }) }
  app.get('/books/:id', { schema: { params: id } }, async () => ({ id: 1 }))
  app.patch('/books/:id', { schema: { params: id }, config: { conditional } }, async () => ({}))
  await app.ready()
  const doc = app.swagger() as unknown as Doc
  await SwaggerParser.validate(structuredClone(doc) as never)
  return { app, doc }
}

test('OPTIONS: about the path, so any id; with hideRoutes, a token first (401)', async (t) => {
  const { app, doc } = await build(t)
  const options = doc.paths['/books/{id}']?.options as Operation
  t.same(options.security, [{ bearerAuth: [] }])
  t.same(Object.keys(options.responses).sort(), ['200', '401'])
  t.match(options.responses['401'], {
    headers: { 'www-authenticate': {} },
    content: { 'application/json': { schema: { type: 'object' } } },
  })
  t.same(options.parameters?.[0]?.schema, { type: 'string' }, 'the id is any segment')
  const anonymous = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(anonymous.statusCode, 401, 'documented: 401 without a token')
  const any = await app.inject({ method: 'OPTIONS', url: '/books/abc', headers: TOKEN })
  t.equal(any.statusCode, 200, 'documented: a string id, answered')
  // The GET still documents, and checks, the integer id.
  t.match(doc.paths['/books/{id}']?.get?.parameters, [{ name: 'id', schema: { type: 'integer' } }])
  t.equal((await app.inject({ url: '/books/abc', headers: TOKEN })).statusCode, 400)
})

test('OPTIONS with the problem form: its 401 names application/problem+json', async (t) => {
  const { app, doc } = await build(t, { errors: { format: 'problem' } })
  const options = doc.paths['/books']?.options as Operation
  t.same(Object.keys(options.responses['401']?.content ?? {}), ['application/problem+json'])
  const anonymous = await app.inject({ method: 'OPTIONS', url: '/books' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.headers['content-type'], 'application/problem+json', 'documented type sent')
})

test('OPTIONS without hideRoutes is public: no security, only the 200', async (t) => {
  const { app, doc } = await build(t, {
    auth: { verify: () => ({ sub: 'x' }), hideRoutes: false },
  })
  const options = doc.paths['/books']?.options as Operation
  t.equal(options.security, undefined)
  t.same(Object.keys(options.responses), ['200'])
  t.equal((await app.inject({ method: 'OPTIONS', url: '/books' })).statusCode, 200)
})

test('OPTIONS without the errors plugin: its 401 has no body schema to name', async (t) => {
  const { doc } = await build(t, { errors: false })
  const options = doc.paths['/books']?.options as Operation
  t.ok(options.responses['401'])
  t.equal(options.responses['401']?.content, undefined)
})

test('sort: the pattern of the sortable fields; page: the maximum the server takes', async (t) => {
  const { app, doc } = await build(t)
  const parameters = doc.paths['/books']?.get?.parameters ?? []
  const sort = parameters.find((p) => p.name === 'sort')?.schema as Json
  const pattern = new RegExp(sort.pattern as string, 'u')
  for (const [value, status] of [
    ['title,-year', 200],
    ['-year', 200],
    ['nope', 400],
    ['title,', 400],
  ] as const) {
    t.equal(pattern.test(value), status === 200, `documented ${value}`)
    const res = await app.inject({ url: `/books?sort=${value}`, headers: TOKEN })
    t.equal(res.statusCode, status, `answered ${value}`)
  }
  const page = parameters.find((p) => p.name === 'page')?.schema as Json
  const max = page.maximum as number
  t.equal(max, Math.floor(Number.MAX_SAFE_INTEGER / 100))
  t.equal((await app.inject({ url: `/books?page=${max}`, headers: TOKEN })).statusCode, 200)
  t.equal((await app.inject({ url: `/books?page=${max + 1}`, headers: TOKEN })).statusCode, 400)
})

test('JSON Patch path and from are JSON pointers', async (t) => {
  const { doc } = await build(t)
  const body = doc.paths['/books/{id}']?.patch?.requestBody?.content['application/json-patch+json']
  t.match(body?.schema, {
    items: {
      properties: { path: { format: 'json-pointer' }, from: { format: 'json-pointer' } },
    },
  })
})

test('statuses: one the route names has the error body; 412 wherever If-Match is advertised', async (t) => {
  const { app, doc } = await build(t)
  const post = doc.paths['/books']?.post as Operation
  t.match(post.responses['409'], {
    description: 'Conflict: the ISBN is catalogued',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/RestwellError' } } },
  })
  t.ok(
    post.parameters?.some((p) => p.name === 'if-match'),
    'If-Match is advertised',
  )
  t.ok(post.responses['412'], 'and so is its 412')
  t.ok(doc.paths['/books/{id}']?.patch?.responses['412'])
  const stale = await app.inject({
    method: 'PATCH',
    url: '/books/1',
    headers: { ...TOKEN, 'if-match': '"v0"', 'content-type': 'application/merge-patch+json' },
    payload: '{}',
  })
  t.equal(stale.statusCode, 412)
})
