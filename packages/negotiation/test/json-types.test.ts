/** JSON bodies keep their types: a value of the wrong type is a 400, not converted. */
import restwellErrors, { ErrorCode } from '@restwell/errors'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { type NegotiationOptions, restwellNegotiation } from '../src/index.js'

const FORM = 'application/x-www-form-urlencoded'

const BookInput = Type.Object(
  {
    title: Type.String({ minLength: 1 }),
    authorId: Type.Integer({ minimum: 1 }),
    status: Type.Optional(
      Type.Union([Type.Literal('available'), Type.Literal('archived')], { default: 'available' }),
    ),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
)

/** POST /books (JSON and forms) and GET /books/:id?limit=, echoing what the handler got. */
async function build(
  options: NegotiationOptions = {},
  config: Record<string, unknown> = {},
  errors = true,
): Promise<FastifyInstance> {
  const app = Fastify()
  if (errors) await app.register(restwellErrors)
  await app.register(restwellNegotiation, options)
  app.post(
    '/books',
    {
      schema: { body: BookInput },
      config: { negotiation: { consumes: ['application/json', FORM], ...config } },
    },
    async (request) => request.body,
  )
  app.get(
    '/books/:id',
    {
      schema: {
        params: Type.Object({ id: Type.Integer() }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer()) }),
      },
    },
    async (request) => ({ params: request.params, query: request.query }),
  )
  return app
}

const post = (app: FastifyInstance, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  })

test('a JSON body of the wrong type is a 400 naming the field, never converted', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const cases: [unknown, string][] = [
    [{ title: 123, authorId: 1 }, 'body/title'],
    [{ title: 'Dune', authorId: '1' }, 'body/authorId'],
    [{ title: 'Dune', authorId: true }, 'body/authorId'],
    [{ title: 'Dune', authorId: 1, status: ['archived'] }, 'body/status'],
    [{ title: 'Dune', authorId: 1, tags: 'sf' }, 'body/tags'],
    [{ title: null, authorId: 1 }, 'body/title'],
    [['Dune'], 'body'],
  ]
  for (const [payload, field] of cases) {
    const res = await post(app, payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    const { error } = res.json()
    t.equal(error.code, ErrorCode.VALIDATION_ERROR)
    t.equal(error.details[0].field, field, JSON.stringify(payload))
    t.match(error.message, new RegExp(`^${field} must`))
  }
  const malformed = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'content-type': 'application/json' },
    payload: '{"title":',
  })
  t.equal(malformed.json().error.code, ErrorCode.MALFORMED_JSON, 'Fastify’s parser first')
  const typed = await post(app, { title: 'Dune', authorId: 1, tags: ['sf'] })
  t.equal(typed.statusCode, 200)
  t.same(typed.json(), { title: 'Dune', authorId: 1, tags: ['sf'], status: 'available' })
})

test('what Fastify still decides: defaults, unknown members (its removeAdditional), other problems', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const extra = await post(app, { title: 'Dune', authorId: 1, colour: 'red' })
  t.equal(extra.statusCode, 200, "Fastify's default Ajv drops an unknown member")
  t.same(extra.json(), { title: 'Dune', authorId: 1, status: 'available' })
  const empty = await post(app, { title: '', authorId: 1 })
  t.equal(empty.statusCode, 400)
  t.same(empty.json().error.details, [
    { field: 'body/title', message: 'must NOT have fewer than 1 characters', code: 'MINLENGTH' },
  ])
  t.equal(empty.json().error.message, 'body/title must NOT have fewer than 1 characters')
  const strict = Fastify({ ajv: { customOptions: { removeAdditional: false } } })
  t.teardown(() => strict.close())
  await strict.register(restwellErrors)
  await strict.register(restwellNegotiation)
  strict.post('/books', { schema: { body: BookInput } }, async (request) => request.body)
  const refused = await post(strict, { title: 'Dune', authorId: 1, colour: 'red' })
  t.equal(refused.statusCode, 400, "the app's own removeAdditional: false")
  t.equal(refused.json().error.details[0].field, 'body/colour')
})

test('query, path and form values are text: still converted', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const get = await app.inject('/books/7?limit=5')
  t.same(get.json(), { params: { id: 7 }, query: { limit: 5 } })
  const form = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'content-type': FORM },
    payload: 'title=Dune&authorId=1',
  })
  t.equal(form.statusCode, 200)
  t.same(form.json(), { title: 'Dune', authorId: 1, status: 'available' })
})

test('strictJson: false converts, for the plugin or one route; a route may turn it back on', async (t) => {
  const off = await build({ strictJson: false })
  t.teardown(() => off.close())
  t.same((await post(off, { title: 123, authorId: '1' })).json().authorId, 1)
  const route = await build({}, { strictJson: false })
  t.teardown(() => route.close())
  t.same((await post(route, { title: 'Dune', authorId: '1' })).json().authorId, 1)
  const back = await build({ strictJson: false }, { strictJson: true })
  t.teardown(() => back.close())
  t.equal((await post(back, { title: 'Dune', authorId: '1' })).statusCode, 400)
})

test('without @restwell/errors: Fastify answers the 400 with its code', async (t) => {
  const app = await build({}, {}, false)
  t.teardown(() => app.close())
  const res = await post(app, { title: 'Dune', authorId: '1' })
  t.equal(res.statusCode, 400)
  t.match(res.json(), {
    code: ErrorCode.VALIDATION_ERROR,
    message: 'body/authorId must be integer',
  })
})

test('bodies restwell does not read or validate are left to their parser and validator', async (t) => {
  // The app's own JSON parser.
  const own = Fastify()
  t.teardown(() => own.close())
  own.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, JSON.parse(body as string)),
  )
  await own.register(restwellNegotiation)
  own.post('/books', { schema: { body: BookInput } }, async (request) => request.body)
  t.same((await post(own, { title: 'Dune', authorId: '1' })).json().authorId, 1)
  // A validator compiler of the app's, and a route that handles its own validation errors.
  const compiled = Fastify()
  t.teardown(() => compiled.close())
  await compiled.register(restwellNegotiation)
  compiled.post(
    '/books',
    { schema: { body: BookInput }, validatorCompiler: () => (data) => ({ value: data }) },
    async (request) => request.body,
  )
  compiled.post(
    '/attached',
    { schema: { body: BookInput }, attachValidation: true },
    async (request) => ({ body: request.body, failed: request.validationError !== undefined }),
  )
  t.same((await post(compiled, { title: 7, authorId: '1' })).json(), { title: 7, authorId: '1' })
  const attached = await compiled.inject({
    method: 'POST',
    url: '/attached',
    payload: { title: 'Dune', authorId: '1' },
  })
  t.same(attached.json(), {
    body: { title: 'Dune', authorId: 1, status: 'available' },
    failed: false,
  })
  // A route with negotiation off.
  const offRoute = Fastify()
  t.teardown(() => offRoute.close())
  await offRoute.register(restwellNegotiation)
  offRoute.post(
    '/books',
    { schema: { body: BookInput }, config: { negotiation: false } },
    async (request) => request.body,
  )
  t.same((await post(offRoute, { title: 'Dune', authorId: '1' })).json().authorId, 1)
})

test('a body schema the check cannot compile fails ready(), naming the route and the way out', async (t) => {
  const app = Fastify({ ajv: { customOptions: { $data: true } } })
  await app.register(restwellNegotiation)
  const schema = {
    type: 'object',
    properties: {
      low: { type: 'integer' },
      high: { type: 'integer', minimum: { $data: '1/low' } },
    },
  }
  app.post('/ranges', { schema: { body: schema } }, async (request) => request.body)
  await t.rejects(async () => app.ready(), {
    name: 'OptionsError',
    option: 'schema.body',
    message: /route POST \/ranges.*cannot be compiled .*config\.negotiation\.strictJson to false/,
  })
  const off = Fastify({ ajv: { customOptions: { $data: true } } })
  t.teardown(() => off.close())
  await off.register(restwellNegotiation)
  off.post(
    '/ranges',
    { schema: { body: schema }, config: { negotiation: { strictJson: false } } },
    async (request) => request.body,
  )
  await off.ready()
  t.same(
    (await off.inject({ method: 'POST', url: '/ranges', payload: { low: 1, high: 2 } })).json(),
    { low: 1, high: 2 },
  )
})
