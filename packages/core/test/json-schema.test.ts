import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import type { RouteEntry } from '../src/index.js'
import { type JsonBodyCheck, JsonTypes, StrictAjv } from '../src/internal.js'

test('StrictAjv: no conversion; defaults and removal only when asked; Fastify’s formats, the caller’s first', async (t) => {
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'integer' },
      tag: { type: 'string', default: 'none' },
      mail: { type: 'string', format: 'email' },
    },
    additionalProperties: false,
  }
  const strict = new StrictAjv().compile(schema, {})
  t.notOk(strict({ n: '1' }), '"1" is no integer')
  t.ok(strict({ n: 1 }))
  const body = { n: 1, extra: true }
  t.notOk(strict(body), 'an unknown member is refused')
  t.same(body, { n: 1, extra: true }, 'and left in place')
  const fastifyLike = new StrictAjv({}, { useDefaults: true, removeAdditional: true }).compile(
    schema,
    {},
  )
  const fixed: Record<string, unknown> = { n: 1, extra: true }
  t.ok(fastifyLike(fixed))
  t.same(fixed, { n: 1, tag: 'none' }, 'defaults filled in, the unknown member removed')
  t.notOk(fastifyLike({ n: '1' }), 'still no conversion')
  t.notOk(strict({ mail: 'nope' }), "ajv-formats' email")
  const own = new StrictAjv({ formats: { email: /@/, unused: undefined } }).compile(schema, {})
  t.ok(own({ mail: 'nope@' }), 'a format of the caller’s wins')
})

test('StrictAjv: $ref to the app’s shared schemas, each added once', async (t) => {
  const ajv = new StrictAjv()
  const shared = {
    'Name#': { $id: 'Name#', type: 'string' },
    Odd: 'not a schema',
  }
  const one = ajv.compile({ $ref: 'Name#' }, shared)
  const two = ajv.compile({ type: 'array', items: { $ref: 'Name#' } }, shared)
  t.ok(one('x'))
  t.notOk(one(1))
  t.notOk(two([1]))
})

/** An app whose `onRoute` hook asks `types` for each route's check, by URL. */
async function checksOf(
  setup: (app: FastifyInstance) => void,
  mediaType = 'application/json',
): Promise<Record<string, JsonBodyCheck | undefined>> {
  const app = Fastify()
  const types = new JsonTypes(app, (_route, error) => error)
  const checks: Record<string, JsonBodyCheck | undefined> = {}
  app.addHook('onRoute', function (this: FastifyInstance, route: RouteEntry) {
    checks[route.url] = types.forRoute(this, route, mediaType)
  })
  setup(app)
  await app.ready()
  await app.close()
  return checks
}

const Author = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    status: { type: 'string', default: 'active' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  additionalProperties: false,
}

test('JsonTypes: a body of the wrong JSON type is refused; defaults and unknown members are Fastify’s', async (t) => {
  const checks = await checksOf((app) => {
    app.post('/authors', { schema: { body: Author } }, async () => ({}))
  })
  const check = checks['/authors']!
  t.equal(check({ name: 'Herbert' }), undefined)
  const withDefault = { name: 'Herbert', extra: 1 }
  t.equal(check(withDefault), undefined, 'a default to fill in, a member to drop: Fastify decides')
  t.same(withDefault, { name: 'Herbert', extra: 1 }, 'unchanged by the check')
  t.match(check({ name: 123 }), [{ instancePath: '/name', keyword: 'type' }])
  t.match(check({ name: 'x', tags: 'one' }), [{ instancePath: '/tags', keyword: 'type' }])
  t.match(check({ name: ['x'] }), [{ instancePath: '/name', keyword: 'type' }])
  t.match(check({}), [{ keyword: 'required' }], 'a body wrong in any other way: its problem')
  check.compile()
  check.compile()
  t.equal(check({ name: 'again' }), undefined)
})

test('JsonTypes: which routes get a check', async (t) => {
  const zodLike = { safeParse: () => ({ success: true }) }
  class RouteSchema {
    readonly body = Author
  }
  const checks = await checksOf((app) => {
    app.post('/plain', { schema: { body: Author } }, async () => ({}))
    app.post('/attach', { schema: { body: Author }, attachValidation: true }, async () => ({}))
    app.post(
      '/own-compiler',
      { schema: { body: zodLike }, validatorCompiler: () => () => true },
      async () => ({}),
    )
    app.post('/no-body', { schema: { querystring: Author } }, async () => ({}))
    app.post('/no-schema', async () => ({}))
    app.post('/class', { schema: new RouteSchema() }, async () => ({}))
    app.post('/boolean', { schema: { body: true } }, async () => ({}))
    app.post(
      '/content',
      { schema: { body: { content: { 'application/json': { schema: Author } } } } },
      async () => ({}),
    )
    app.post(
      '/other-content',
      { schema: { body: { content: { 'text/plain': { schema: { type: 'string' } } } } } },
      async () => ({}),
    )
    app.post(
      '/bad-content',
      { schema: { body: { content: { 'application/json': { schema: true } } } } },
      async () => ({}),
    )
    app.register(async (child) => {
      child.setValidatorCompiler(() => () => true)
      child.post('/child-compiler', { schema: { body: { type: 'object' } } }, async () => ({}))
    })
  })
  t.same(
    Object.entries(checks)
      .filter(([, check]) => check !== undefined)
      .map(([url]) => url),
    ['/plain', '/content'],
  )
  t.match(checks['/content']?.({ name: 1 }), [{ instancePath: '/name' }])
})

test('JsonTypes: a schema it cannot compile fails in compile(), or at first use', async (t) => {
  const checks = await checksOf((app) => {
    app.post(
      '/refs',
      { schema: { body: { type: 'object', properties: { a: { type: 'string' } } } } },
      async () => ({}),
    )
  })
  t.equal(checks['/refs']!({ a: 'x' }), undefined)
  // Fastify's Ajv reads `$data` references (the app's option); the check's does not.
  const app = Fastify({ ajv: { customOptions: { $data: true } } })
  const broken = new JsonTypes(app, (route, error) => new Error(`${route.url}: ${error.message}`))
  const made: Record<string, JsonBodyCheck | undefined> = {}
  app.addHook('onRoute', function (this: FastifyInstance, route: RouteEntry) {
    made[route.url] = broken.forRoute(this, route, 'application/json')
  })
  app.post('/fine', { schema: { body: { type: 'object' } } }, async () => ({}))
  const ranges = {
    type: 'object',
    properties: { low: { type: 'integer' }, high: { minimum: { $data: '1/low' } } },
  }
  app.post('/broken', { schema: { body: ranges } }, async () => ({}))
  t.throws(() => made['/broken']!({}), /minimum/, 'at first use')
  // The app's onReady: the check cannot be compiled, so ready() fails with the route's error.
  await t.rejects(async () => app.ready(), /^\/broken: .*minimum/)
  t.equal(broken.compileAll(), undefined, 'each check is compiled once')
  t.throws(() => made['/broken']!.compile(), /minimum/)
  t.equal(made['/fine']!({}), undefined)
})
