/**
 * The document tells the truth: what it says of each operation is what the server answers.
 * Each check asks the server too (a fuzzer reading the document would).
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import fastifySwagger from '@fastify/swagger'
import { Ajv } from 'ajv'
import ajvFormats from 'ajv-formats'
import Fastify, { type FastifyInstance } from 'fastify'
import { type Test, test } from 'tap'
import { until } from '../../../test/helpers/patience.js'
import restwell, { type RestwellOptions, restwellOpenapi } from '../src/index.js'

type Json = Record<string, unknown>
interface Operation {
  responses: Record<string, Json>
  parameters?: {
    name: string
    in: string
    schema: Json
    required?: boolean
    description?: string
  }[]
  security?: unknown[]
  requestBody?: { content: Record<string, { schema: Json }> }
}
type Doc = { paths: Record<string, Record<string, Operation>> }

const TOKEN = { authorization: 'Bearer ok' }
const id = { type: 'object', properties: { id: { type: 'integer', minimum: 1 } } } as const

/** An app with swagger, then restwell with `options`. */
async function swaggerApp(t: Test, options: RestwellOptions): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifySwagger, restwellOpenapi({ info: { title: 't', version: '1' } }))
  await app.register(restwell, options)
  return app
}

async function build(
  t: Test,
  options: RestwellOptions = {},
): Promise<{ app: FastifyInstance; doc: Doc }> {
  const app = await swaggerApp(t, {
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

/** The fields of a rate limit, and the 429's `Retry-After`. */
const LIMIT_FIELD = /^(x-ratelimit-|ratelimit(-policy)?$|retry-after$)/

/** The problem+json schema of one response of an operation (an open object when none). */
function problemSchemaOf(operation: Operation, status: string): Json {
  const content = (operation.responses[status]?.content ?? {}) as Record<string, { schema: Json }>
  return content['application/problem+json']?.schema ?? {}
}

function limitFieldsOf(headers: Json | undefined): string[] {
  return Object.keys(headers ?? {})
    .filter((name) => LIMIT_FIELD.test(name))
    .sort()
}

/** What each `headers` option sends on an answer, and on a 429 besides. */
const FIELDS = {
  'x-ratelimit': ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
  ietf: ['ratelimit', 'ratelimit-policy'],
  both: [
    'ratelimit',
    'ratelimit-policy',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
  ],
} as const

/** The problem form, no auth and no naming rules: what the tests of limits and keys need. */
const LIMITS_ONLY: RestwellOptions = { errors: { format: 'problem' }, auth: false, naming: false }

async function limitedApp(t: Test, headers: keyof typeof FIELDS) {
  const app = await swaggerApp(t, {
    ...LIMITS_ONLY,
    rateLimit: { max: 3, headers, policy: 'per-client' },
  })
  app.get('/books/:id', { schema: { params: id } }, async () => ({ id: 1 }))
  app.post('/logins', { config: { rateLimit: { max: 1, timeWindow: 30_000 } } }, async () => ({}))
  app.get('/health', { config: { rateLimit: false } }, async () => ({ ok: true }))
  await app.ready()
  const doc = app.swagger() as unknown as Doc
  await SwaggerParser.validate(structuredClone(doc) as never)
  const resolved = (await SwaggerParser.dereference(
    structuredClone(doc) as never,
  )) as unknown as Doc
  return { app, doc: resolved }
}

for (const headers of ['x-ratelimit', 'ietf', 'both'] as const) {
  test(`rate limit, headers: '${headers}': the fields documented on each answer are those sent`, async (t) => {
    const { app, doc } = await limitedApp(t, headers)
    const ajv = new Ajv({ strict: false })
    ajvFormats.default(ajv)
    const get = doc.paths['/books/{id}']?.get as Operation
    const login = doc.paths['/logins']?.post as Operation
    const cases: [string, Operation, { method?: 'GET' | 'POST'; url: string }, number][] = [
      ['the root limit', get, { url: '/books/1' }, 200],
      ['the root limit', get, { url: '/books/x' }, 400],
      ['the root limit', get, { url: '/books/1' }, 200],
      ['the root limit', get, { url: '/books/1' }, 429],
      ["the route's own limit", login, { method: 'POST', url: '/logins' }, 200],
      ["the route's own limit", login, { method: 'POST', url: '/logins' }, 429],
    ]
    for (const [limit, operation, request, status] of cases) {
      const res = await app.inject(request)
      t.equal(res.statusCode, status, `${limit}: ${status}`)
      const documented = operation.responses[String(status)]
      const sent = limitFieldsOf(res.headers as Json)
      t.same(limitFieldsOf(documented?.headers as Json), sent, `${limit}, ${status}: ${sent}`)
      const expected = status === 429 ? [...FIELDS[headers], 'retry-after'].sort() : FIELDS[headers]
      t.same(sent, expected, `${limit}, ${status}: what '${headers}' sends`)
      if (status !== 429) continue
      const validate = ajv.compile(problemSchemaOf(operation, '429'))
      t.ok(validate(res.json()), `${limit}: the 429 body matches its schema`, {
        errors: validate.errors,
      })
    }
    // The problem type of the IETF fields' 429 (draft §5.1), with the policy it names.
    const limited = await app.inject({ method: 'POST', url: '/logins' })
    const body = limited.json() as Json
    const schema = problemSchemaOf(login, '429')
    const members = ((schema.allOf as Json[] | undefined)?.[1]?.properties ?? {}) as Json
    if (headers === 'x-ratelimit') {
      t.equal(body.type, 'about:blank')
      t.equal(schema.allOf, undefined, 'no problem type of its own')
    } else {
      t.same(body['violated-policies'], ['POST /logins'])
      t.same(members.type, { type: 'string', enum: [body.type] })
      t.same((members['violated-policies'] as Json).items, {
        type: 'string',
        enum: ['POST /logins'],
      })
      t.match(problemSchemaOf(get, '429'), {
        allOf: [{}, { properties: { 'violated-policies': { items: { enum: ['per-client'] } } } }],
      })
    }
    // A route without a limit: no field documented, nor sent, and no 429.
    const health = doc.paths['/health']?.get as Operation
    const free = await app.inject({ url: '/health' })
    const fields = (headers: unknown) =>
      limitFieldsOf(headers as Json).filter((n) => /ratelimit/.test(n))
    t.same(fields(free.headers), [])
    for (const [status, response] of Object.entries(health.responses)) {
      t.same(fields(response.headers), [], `/health ${status}: no field`)
    }
    t.notOk(health.responses['429'])
  })
}

/** The header parameter `name` of an operation. */
function headerParameter(operation: Operation | undefined, name: string) {
  return operation?.parameters?.find((p) => p.in === 'header' && p.name === name)
}

test('Idempotency-Key: required where the route requires it; a missing one is answered by restwell', async (t) => {
  const app = await swaggerApp(t, {
    ...LIMITS_ONLY,
    rateLimit: false,
    idempotency: { expiry: 120, retryAfter: 3 },
  })
  let entered = false
  let release = (): void => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  t.teardown(release)
  app.post('/orders', { config: { idempotency: { required: true } } }, async (request) => {
    if ((request.body as Json).slow === true) {
      entered = true
      await gate
    }
    return { ok: true }
  })
  const tenant = { type: 'object', properties: { 'x-tenant': { type: 'string' } } }
  app.post(
    '/payments',
    {
      schema: { headers: { ...tenant, required: ['x-tenant'] } },
      config: { idempotency: { required: true } },
    },
    async () => ({ ok: true }),
  )
  app.post('/carts', { config: { idempotency: true } }, async () => ({ ok: true }))
  await app.ready()
  const doc = app.swagger() as unknown as Doc
  await SwaggerParser.validate(structuredClone(doc) as never)
  const orders = doc.paths['/orders']?.post
  const key = headerParameter(orders, 'idempotency-key')
  t.equal(key?.required, true, 'required on a route that requires it')
  t.match(key?.description, /for 2 min after it completed/, 'the expiry')
  t.equal(headerParameter(doc.paths['/carts']?.post, 'idempotency-key')?.required, false)
  const payments = doc.paths['/payments']?.post
  t.equal(headerParameter(payments, 'idempotency-key')?.required, true)
  t.equal(headerParameter(payments, 'x-tenant')?.required, true, "the route's own stays required")

  // The server: the key's absence is restwell's 400, not Fastify's validation.
  const json = { 'content-type': 'application/json' }
  const missing = await app.inject({ method: 'POST', url: '/orders', headers: json, payload: {} })
  t.equal(missing.statusCode, 400)
  t.match(missing.json(), {
    code: 'IDEMPOTENCY_KEY_REQUIRED',
    details: [{ field: 'headers/idempotency-key' }],
  })
  t.ok(orders?.responses['400'], '400 documented')
  const noTenant = await app.inject({
    method: 'POST',
    url: '/payments',
    headers: { ...json, 'idempotency-key': '"p1"' },
    payload: {},
  })
  t.match(noTenant.json(), { code: 'VALIDATION_ERROR', details: [{ field: 'headers/x-tenant' }] })
  const optional = await app.inject({ method: 'POST', url: '/carts', headers: json, payload: {} })
  t.equal(optional.statusCode, 200, 'not required: served without a key')

  // 409 while the first request runs (with its Retry-After), 422 for another request.
  const headers = { ...json, 'idempotency-key': '"k1"' }
  const first = app.inject({ method: 'POST', url: '/orders', headers, payload: { slow: true } })
  await until(() => entered, 'the first request in its handler')
  const running = await app.inject({
    method: 'POST',
    url: '/orders',
    headers,
    payload: { slow: true },
  })
  t.equal(running.statusCode, 409)
  t.equal(running.headers['retry-after'], '3')
  t.same(limitFieldsOf(orders?.responses['409']?.headers as Json), ['retry-after'])
  t.match(orders?.responses['409']?.headers, { 'retry-after': { schema: { type: 'integer' } } })
  release()
  t.equal((await first).statusCode, 200)
  const other = await app.inject({ method: 'POST', url: '/orders', headers, payload: { n: 2 } })
  t.equal(other.statusCode, 422)
  t.match(orders?.responses['422'], { description: /another request/ })
})
