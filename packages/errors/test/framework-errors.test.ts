import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify'
import { test } from 'tap'
import { type ErrorsOptions, frameworkErrors, genReqId, restwellErrors } from '../src/index.js'

const BAD_URL = '/books/%E0%A4%A'
const LONG_PARAM = `/books/${'1'.repeat(101)}`

/** A route constraint whose derivation fails: Fastify's FST_ERR_ASYNC_CONSTRAINT. */
type Constraint = NonNullable<
  NonNullable<FastifyServerOptions['routerOptions']>['constraints']
>[string]
type Store = Parameters<ReturnType<Constraint['storage']>['set']>[1]
const failingConstraint: Constraint = {
  name: 'tenant',
  storage() {
    const stores = new Map<string, Store>()
    return {
      get: (value: string) => stores.get(value) ?? null,
      set: (value: string, store: Store) => {
        stores.set(value, store)
      },
    }
  },
  // Three parameters make the constraint asynchronous (find-my-way reads `length`); the types
  // only describe the synchronous form.
  deriveConstraint: ((_request: unknown, _context: unknown, done: (error: Error) => void) => {
    done(new Error('tenant database 10.0.0.3 unreachable'))
  }) as unknown as Constraint['deriveConstraint'],
  validate() {
    return true
  },
}

async function build(
  errors: ErrorsOptions | false = {},
  options: FastifyServerOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({ genReqId, frameworkErrors, ...options })
  if (errors !== false) await app.register(restwellErrors, errors)
  app.get('/books/:id', async () => ({ id: 1 }))
  return app
}

test('a malformed percent-escape in the path: 400 in the error form', async (t) => {
  const app = await build()
  const res = await app.inject({ url: BAD_URL, headers: { 'x-request-id': 'abc-123' } })
  t.equal(res.statusCode, 400)
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['x-request-id'], 'abc-123')
  const body = res.json()
  t.equal(body.error.code, 'BAD_REQUEST')
  t.equal(body.error.message, 'The request path is not valid percent-encoding')
  t.equal(body.error.requestId, 'abc-123')
  t.same(body.error.details, [])
  t.notMatch(res.body, /FST_/)
})

test('a path parameter over maxParamLength: 414 URI_TOO_LONG, in the configured form', async (t) => {
  const app = await build({ format: 'problem' })
  const res = await app.inject(LONG_PARAM)
  t.equal(res.statusCode, 414)
  t.match(res.headers['content-type'], /^application\/problem\+json/)
  const body = res.json()
  t.equal(body.title, 'URI Too Long')
  t.equal(body.status, 414)
  t.equal(body.code, 'URI_TOO_LONG')
  t.equal(body.detail, 'A path parameter is longer than this server accepts')
  t.equal(body.instance, LONG_PARAM)
  t.equal(body.requestId, res.headers['x-request-id'], 'a fresh id, in the header and the body')
  t.ok(body.requestId)
  const short = await app.inject('/books/1')
  t.equal(short.statusCode, 200, 'a parameter within the limit is routed')
})

test("the plugin's options and renderers apply", async (t) => {
  const app = await build({ requestIdHeader: false, format: 'simple' })
  app.restwellErrors.addRenderer((_body, error, request, reply) => {
    if (request.headers.accept !== 'text/plain') return false
    reply.type('text/plain').send(`${error.statusCode} ${error.code}`)
    return true
  })
  const res = await app.inject({ url: BAD_URL, headers: { 'x-request-id': 'abc-123' } })
  t.equal(res.headers['x-request-id'], undefined)
  t.same(res.json(), {
    error: 'The request path is not valid percent-encoding',
    requestId: 'abc-123',
  })
  const text = await app.inject({ url: LONG_PARAM, headers: { accept: 'text/plain' } })
  t.equal(text.body, '414 URI_TOO_LONG')
})

test('a failing asynchronous constraint: a masked 500, logged in full', async (t) => {
  for (const errors of [{}, false] as const) {
    const logs: { level: number; err?: { message: string } }[] = []
    const app = await build(errors, {
      routerOptions: { constraints: { tenant: failingConstraint } },
      logger: { level: 'info', stream: { write: (line: string) => logs.push(JSON.parse(line)) } },
    })
    app.get('/shelves', { constraints: { tenant: 'acme' } }, async () => 'acme')
    const res = await app.inject('/shelves')
    const label = errors === false ? 'without the plugin' : 'with the plugin'
    t.equal(res.statusCode, 500, label)
    t.equal(res.json().error.code, 'INTERNAL_SERVER_ERROR', label)
    t.equal(res.json().error.message, 'Internal Server Error', label)
    t.notMatch(res.body, /10\.0\.0\.3|FST_/, label)
    t.ok(
      logs.some((line) => line.level === 50 && line.err !== undefined),
      `${label}: logged at error level`,
    )
  }
})

test('without the plugin: the structured form, X-Request-Id and no-store', async (t) => {
  const app = await build(false)
  const res = await app.inject({ url: BAD_URL, headers: { 'x-request-id': 'abc-123' } })
  t.equal(res.statusCode, 400)
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['x-request-id'], 'abc-123')
  t.equal(res.json().error.code, 'BAD_REQUEST')
  t.equal(res.json().error.requestId, 'abc-123')
  const long = await app.inject({ url: LONG_PARAM, headers: { 'x-request-id': 'not safe!' } })
  t.equal(long.statusCode, 414)
  t.equal(long.json().error.code, 'URI_TOO_LONG')
  t.not(long.headers['x-request-id'], 'not safe!', 'an unsafe incoming id is replaced')
  t.equal(long.json().error.requestId, long.headers['x-request-id'])

  // Fastify's own request ids when the app does not use restwell's genReqId.
  const plain = Fastify({ frameworkErrors })
  plain.get('/books/:id', async () => ({ id: 1 }))
  const own = await plain.inject(BAD_URL)
  t.equal(own.json().error.requestId, 'req-1')
  t.equal(own.headers['x-request-id'], 'req-1')
})

test('the plugin registered only in an encapsulated scope: the fallback answers', async (t) => {
  const app = Fastify({ frameworkErrors })
  await app.register(async (child) => {
    await child.register(restwellErrors, { format: 'problem' })
    child.get('/books/:id', async () => ({ id: 1 }))
  })
  const res = await app.inject(BAD_URL)
  t.equal(res.statusCode, 400)
  t.equal(res.json().error.code, 'BAD_REQUEST', 'the structured form')
})

test('any other error Fastify may pass is normalized like a thrown one', async (t) => {
  for (const errors of [{}, false] as const) {
    const app = await build(errors)
    app.get('/other', (request, reply) => {
      const error = Object.assign(new Error('Too many ranges'), {
        code: 'FST_ERR_SOMETHING_NEW',
        statusCode: 416,
      }) as FastifyError
      frameworkErrors(error, request, reply)
    })
    const res = await app.inject('/other')
    t.equal(res.statusCode, 416)
    t.equal(res.json().error.code, 'RANGE_NOT_SATISFIABLE', 'FST_ codes are not shown')
    t.equal(res.json().error.message, 'Too many ranges')
  }
})
