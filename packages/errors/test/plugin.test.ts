import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { ErrorCode, HttpError, httpErrors, restwellErrors } from '../src/index.js'
import type { ErrorsOptions } from '../src/index.js'

async function build(options: ErrorsOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors, options)
  app.get('/boom', async () => {
    throw new Error('database password is hunter2')
  })
  app.get('/teapot', async () => {
    throw httpErrors.imATeapot('short and stout', {
      details: [{ field: 'body/spout', message: 'too short', code: 'TOO_SHORT' }],
      headers: { 'x-kettle': 'yes' },
    })
  })
  app.get('/unavailable', async () => {
    throw httpErrors.serviceUnavailable('queue full', { headers: { 'retry-after': 30 } })
  })
  app.get('/exposed', async () => {
    throw httpErrors.badGateway('upstream said no', { expose: true, code: 'UPSTREAM_REFUSED' })
  })
  app.post(
    '/books',
    {
      schema: {
        body: {
          type: 'object',
          required: ['title'],
          additionalProperties: false,
          properties: { title: { type: 'string', minLength: 1 }, year: { type: 'integer' } },
        },
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', maximum: 100 } },
        },
      },
    },
    async (request) => request.body,
  )
  app.get('/string', async () => {
    throw 'a string'
  })
  app.get('/null', async () => {
    throw null
  })
  app.get('/object', async () => {
    throw { statusCode: 409, code: 'ALREADY_THERE', message: 'exists', headers: { 'x-a': 'b' } }
  })
  app.get('/fst', async () => {
    throw Object.assign(new Error('lib says no'), { statusCode: 429, code: 'FST_ERR_SOMETHING' })
  })
  app.get('/lowercode', async () => {
    throw Object.assign(new Error(''), { status: 400, code: 'ENOENT' })
  })
  app.get('/status-out-of-range', async () => {
    throw Object.assign(new Error('weird'), { statusCode: 302 })
  })
  app.get('/lib-5xx', async () => {
    throw Object.assign(new Error('pool exhausted at 10.0.0.3'), {
      statusCode: 503,
      headers: { 'retry-after': '5' },
    })
  })
  return app
}

test('structured form is the default, with requestId and ISO timestamp', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'GET', url: '/teapot' })
  t.equal(res.statusCode, 418)
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.headers['x-kettle'], 'yes')
  t.equal(res.headers['cache-control'], 'no-store')
  const body = res.json()
  t.same(Object.keys(body), ['error'])
  t.equal(body.error.code, 'IM_A_TEAPOT')
  t.equal(body.error.message, 'short and stout')
  t.same(body.error.details, [{ field: 'body/spout', message: 'too short', code: 'TOO_SHORT' }])
  t.equal(body.error.requestId, res.headers['x-request-id'])
  t.match(body.error.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
})

test('simple form: { error, requestId }', async (t) => {
  const app = await build({ format: 'simple' })
  const res = await app.inject('/teapot')
  t.same(res.json(), { error: 'short and stout', requestId: res.headers['x-request-id'] })
})

test('validation form: { error, details: [{ field, message }], requestId }', async (t) => {
  const app = await build({ format: 'validation' })
  const res = await app.inject({ method: 'POST', url: '/books', payload: { year: 'x' } })
  t.equal(res.statusCode, 400)
  const body = res.json()
  t.same(Object.keys(body).sort(), ['details', 'error', 'requestId'])
  t.same(body.details, [{ field: 'body/title', message: "must have required property 'title'" }])
})

test('problem form: RFC 9457 application/problem+json, without a charset parameter', async (t) => {
  const app = await build({ format: 'problem' })
  const res = await app.inject('/teapot?x=1')
  // RFC 9457 §6.1 defines no parameter for the type (JSON is UTF-8).
  t.equal(res.headers['content-type'], 'application/problem+json')
  const body = res.json()
  t.equal(body.type, 'about:blank')
  t.equal(body.title, "I'm a Teapot")
  t.equal(body.status, 418)
  t.equal(body.detail, 'short and stout')
  t.equal(body.instance, '/teapot')
  t.equal(body.code, 'IM_A_TEAPOT')
  t.equal(body.requestId, res.headers['x-request-id'])
  t.ok(body.timestamp)

  const typed = await build({ format: 'problem', problemTypeBase: 'https://errors.example/' })
  const r2 = await typed.inject('/teapot')
  t.equal(r2.json().type, 'https://errors.example/im-a-teapot')
})

test('problem form: an error naming a registered problem type sends it as type, whatever the base', async (t) => {
  const registered = 'https://iana.org/assignments/http-problem-types#digest-invalid-values'
  for (const problemTypeBase of [undefined, 'https://errors.example/']) {
    const app = Fastify()
    await app.register(restwellErrors, { format: 'problem', problemTypeBase })
    app.get('/typed', async () => {
      throw httpErrors.badRequest('bad digest', { code: 'DIGEST_INVALID_VALUES', type: registered })
    })
    const res = await app.inject('/typed')
    t.equal(res.json().type, registered, `base ${problemTypeBase}`)
    t.equal(res.json().code, 'DIGEST_INVALID_VALUES')
  }
  const structured = Fastify()
  await structured.register(restwellErrors)
  structured.get('/typed', async () => {
    throw httpErrors.badRequest('bad digest', { code: 'DIGEST_INVALID_VALUES', type: registered })
  })
  const res = await structured.inject('/typed')
  t.equal(res.json().error.code, 'DIGEST_INVALID_VALUES', 'the other forms keep the code')
  t.equal(new HttpError(400).type, undefined)
})

test("problem form: an error's extension members follow its own, never over them; other forms send none", async (t) => {
  const members = { 'violated-policies': ['default'], status: 200, type: 'about:blank' }
  const type = 'https://iana.org/assignments/http-problem-types#quota-exceeded'
  const app = Fastify()
  await app.register(restwellErrors, { format: 'problem' })
  app.get('/quota', async () => {
    throw httpErrors.tooManyRequests('over', { type, members })
  })
  app.get('/masked', async () => {
    throw httpErrors.serviceUnavailable('down', { members })
  })
  const res = await app.inject('/quota')
  t.same(res.json()['violated-policies'], ['default'])
  t.equal(res.json().status, 429, 'a member the form has is not replaced')
  t.equal(res.json().type, type)
  t.equal(Object.keys(res.json()).at(-1), 'violated-policies', "after the form's own")
  t.notOk('violated-policies' in (await app.inject('/masked')).json(), 'a masked error sends none')
  const structured = Fastify()
  await structured.register(restwellErrors)
  structured.get('/quota', async () => {
    throw httpErrors.tooManyRequests('over', { members })
  })
  t.notOk(JSON.stringify((await structured.inject('/quota')).json()).includes('violated'))
  t.equal(new HttpError(400).members, undefined)
})

test('a thrown Error is a masked 500: no stack, no internal message, requestId', async (t) => {
  const logs: string[] = []
  const app = Fastify({
    logger: { level: 'info', stream: { write: (line: string) => logs.push(line) } },
  })
  await app.register(restwellErrors)
  app.get('/boom', async () => {
    throw new Error('database password is hunter2')
  })
  const res = await app.inject({ url: '/boom', headers: { 'x-request-id': 'trace-42' } })
  t.equal(res.statusCode, 500)
  t.notMatch(res.body, /hunter2|stack|at /)
  const body = res.json()
  t.equal(body.error.code, 'INTERNAL_SERVER_ERROR')
  t.equal(body.error.message, 'Internal Server Error')
  t.equal(body.error.requestId, 'trace-42')
  t.same(body.error.details, [])
  const logged = logs.map((l) => JSON.parse(l)).find((l) => l.level === 50)
  t.equal(logged.requestId, 'trace-42', 'the full error is logged with the same requestId')
  t.match(logged.err.message, /hunter2/)
})

test('non-Error throws end in a clean 500', async (t) => {
  const app = await build()
  for (const url of ['/string', '/null']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 500, url)
    t.equal(res.json().error.code, 'INTERNAL_SERVER_ERROR')
  }
})

test('errors from libraries keep status, safe codes and headers', async (t) => {
  const app = await build()
  const obj = await app.inject('/object')
  t.equal(obj.statusCode, 409)
  t.equal(obj.json().error.code, 'ALREADY_THERE')
  t.equal(obj.headers['x-a'], 'b')
  const fst = await app.inject('/fst')
  t.equal(fst.statusCode, 429)
  t.equal(fst.json().error.code, 'TOO_MANY_REQUESTS', 'FST_ codes are not leaked')
  const low = await app.inject('/lowercode')
  t.equal(low.statusCode, 400)
  t.equal(low.json().error.code, 'BAD_REQUEST', 'errno-like codes are not used')
  t.equal(low.json().error.message, 'Bad Request', 'empty message falls back to the phrase')
  const odd = await app.inject('/status-out-of-range')
  t.equal(odd.statusCode, 500)
  const lib = await app.inject('/lib-5xx')
  t.equal(lib.statusCode, 503)
  t.equal(lib.headers['retry-after'], '5')
  t.equal(lib.json().error.message, 'Service Unavailable')
  t.notMatch(lib.body, /10\.0\.0\.3/)
})

test('5xx HttpErrors keep their code and headers; message only when exposed', async (t) => {
  const app = await build()
  const res = await app.inject('/unavailable')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '30')
  t.equal(res.json().error.message, 'Service Unavailable')
  t.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
  const exposed = await app.inject('/exposed')
  t.equal(exposed.json().error.message, 'upstream said no')
  t.equal(exposed.json().error.code, 'UPSTREAM_REFUSED')
})

test("Fastify's own errors go out in the same form", async (t) => {
  const app = await build()
  const validation = await app.inject({
    method: 'POST',
    url: '/books',
    payload: { title: 'x', year: 'nope' },
  })
  t.equal(validation.statusCode, 400)
  t.equal(validation.json().error.code, ErrorCode.VALIDATION_ERROR)
  t.same(validation.json().error.details, [
    { field: 'body/year', message: 'must be integer', code: 'TYPE' },
  ])
  const query = await app.inject({
    method: 'POST',
    url: '/books?limit=500',
    payload: { title: 'x' },
  })
  t.same(query.json().error.details[0].field, 'querystring/limit')
  t.equal(query.json().error.details[0].code, 'MAXIMUM')

  const malformed = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'content-type': 'application/json' },
    payload: '{"title": ',
  })
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().error.code, ErrorCode.MALFORMED_JSON)

  const empty = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'content-type': 'application/json' },
    payload: '',
  })
  t.equal(empty.statusCode, 400)
  t.equal(empty.json().error.code, ErrorCode.EMPTY_BODY)

  const media = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'content-type': 'text/csv' },
    payload: 'a,b',
  })
  t.equal(media.statusCode, 415)
  t.equal(media.json().error.code, ErrorCode.UNSUPPORTED_MEDIA_TYPE)

  const small = Fastify({ bodyLimit: 10 })
  await small.register(restwellErrors)
  small.post('/x', async () => 'ok')
  const large = await small.inject({ method: 'POST', url: '/x', payload: { a: 'x'.repeat(100) } })
  t.equal(large.statusCode, 413)
  t.equal(large.json().error.code, 'PAYLOAD_TOO_LARGE')
})

test('411 Length Required raised by a hook goes out in the form', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  app.addHook('onRequest', async (request) => {
    if (request.headers['x-upload'] === 'streamed') {
      throw httpErrors.lengthRequired('Content-Length is required')
    }
  })
  app.post('/upload', async () => 'ok')
  const res = await app.inject({
    method: 'POST',
    url: '/upload',
    headers: { 'x-upload': 'streamed' },
    payload: 'abc',
  })
  t.equal(res.statusCode, 411)
  t.equal(res.json().error.code, 'LENGTH_REQUIRED')
})

test('404 for an unknown route, in the form, path not echoed past a bound', async (t) => {
  const app = await build()
  const res = await app.inject('/nope?secret=1')
  t.equal(res.statusCode, 404)
  t.equal(res.json().error.code, 'NOT_FOUND')
  t.equal(res.json().error.message, 'Route GET /nope not found')
  const long = await app.inject(`/${'a'.repeat(1000)}`)
  t.ok(long.json().error.message.length < 260)
  const head = await app.inject({ method: 'HEAD', url: '/nope' })
  t.equal(head.statusCode, 404)
  t.equal(head.body, '')
})

test("a HEAD's 404 has the Content-Length of GET's 404 (RFC 9110 §9.3.2)", async (t) => {
  const app = await build()
  const headers = { 'x-request-id': 'same-id' }
  const get = await app.inject({ method: 'GET', url: '/nothing-here', headers })
  const head = await app.inject({ method: 'HEAD', url: '/nothing-here', headers })
  t.equal(get.statusCode, 404)
  t.equal(head.statusCode, 404)
  t.equal(head.body, '')
  t.equal(head.headers['content-length'], get.headers['content-length'])
  t.equal(get.json().error.message, 'Route GET /nothing-here not found')
  const post = await app.inject({ method: 'POST', url: '/nothing-here' })
  t.equal(post.json().error.message, 'Route POST /nothing-here not found')
})

test('the not-found handler can be left to the app', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors, { notFoundHandler: false })
  app.setNotFoundHandler((_request, reply) => reply.code(404).send('custom'))
  const res = await app.inject('/x')
  t.equal(res.body, 'custom')
})

test('X-Request-Id: safe incoming ids are honoured, others replaced', async (t) => {
  const app = await build()
  const ok = await app.inject({ url: '/teapot', headers: { 'x-request-id': 'abc-123_x.y:z' } })
  t.equal(ok.headers['x-request-id'], 'abc-123_x.y:z')
  t.equal(ok.json().error.requestId, 'abc-123_x.y:z')
  for (const bad of ['has space', 'a'.repeat(129), '<script>', '']) {
    const res = await app.inject({ url: '/teapot', headers: { 'x-request-id': bad } })
    t.not(res.headers['x-request-id'], bad)
    t.equal(res.json().error.requestId, res.headers['x-request-id'])
  }
  const success = Fastify()
  await success.register(restwellErrors)
  success.get('/', async () => 'hi')
  t.ok((await success.inject('/')).headers['x-request-id'], 'every response carries an id')
})

test('requestIdHeader can be renamed or turned off', async (t) => {
  const renamed = await build({ requestIdHeader: 'Correlation-Id' })
  const res = await renamed.inject({ url: '/teapot', headers: { 'correlation-id': 'c-1' } })
  t.equal(res.headers['correlation-id'], 'c-1')
  t.equal(res.json().error.requestId, 'c-1')
  const off = await build({ requestIdHeader: false })
  const r2 = await off.inject({ url: '/teapot', headers: { 'x-request-id': 'ignored' } })
  t.equal(r2.headers['x-request-id'], undefined)
  t.equal(r2.json().error.requestId, 'req-1')
})

test('renderers may take over the body', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  app.restwellErrors.addRenderer((_body, error, request, reply) => {
    if (request.headers.accept !== 'text/plain') return false
    reply.type('text/plain').send(`${error.statusCode} ${error.code}`)
    return true
  })
  const text = await app.inject({ url: '/nope', headers: { accept: 'text/plain' } })
  t.equal(text.body, '404 NOT_FOUND')
  const json = await app.inject({ url: '/nope' })
  t.equal(json.json().error.code, 'NOT_FOUND')
  t.equal(app.restwellErrors.format, 'structured')
  t.equal(app.restwellErrors.requestIdHeader, 'x-request-id')
})

test('bad options fail registration naming the option', async (t) => {
  const register = (options: unknown) => async () => {
    const app = Fastify()
    app.register(restwellErrors, options as ErrorsOptions)
    await app.ready()
  }
  await t.rejects(register({ format: 'xml' }), {
    message:
      '@restwell/errors: option "format" must be one of "simple", "validation", "structured", "problem" (got "xml")',
  })
  await t.rejects(register({ colour: 'red' }), {
    message:
      '@restwell/errors: option "colour" is not known; the known ones are "format", "requestIdHeader", "problemTypeBase", "notFoundHandler"',
  })
  await t.rejects(register({ requestIdHeadr: 'x-id' }), {
    message:
      '@restwell/errors: option "requestIdHeadr" is not known; did you mean "requestIdHeader"?',
  })
  await t.rejects(register({ requestIdHeader: 'bad header' }), {
    message:
      '@restwell/errors: option "requestIdHeader" must be a string matching /^[A-Za-z0-9-]+$/ or false (got "bad header")',
  })
  await t.rejects(register('loud'), {
    message: '@restwell/errors: option "(options)" must be an object (got "loud")',
  })
  await t.rejects(register({ format: () => 1 }), { message: /\(got a function\)$/ })
  await t.rejects(register({ problemTypeBase: 'x'.repeat(100), format: 1 }), {
    message: /option "format" must be one of .* \(got 1\)$/,
  })
  await t.rejects(register({ problemTypeBase: '' }), {
    message: '@restwell/errors: option "problemTypeBase" must be a non-empty string (got "")',
  })
  // Fastify's own keys are not the plugin's concern
  await register({ prefix: '/x', logLevel: 'warn' })()
})

test('a 4xx the handler set before sending or throwing a plain Error is kept, with its message', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  app.get('/books/:id', async (_request, reply) => reply.code(404).send(new Error('No book 7')))
  app.get('/authors/:id', async (_request, reply) => {
    reply.code(409)
    throw new Error('Author is locked')
  })
  app.get('/coded', async (_request, reply) => {
    reply.code(422)
    throw Object.assign(new Error('Shelf is full'), { code: 'SHELF_FULL' })
  })
  const sent = await app.inject('/books/7')
  t.equal(sent.statusCode, 404, 'reply.code(404).send(err)')
  t.equal(sent.json().error.code, 'NOT_FOUND')
  t.equal(sent.json().error.message, 'No book 7')
  t.equal(sent.headers['cache-control'], 'no-store')
  const thrown = await app.inject('/authors/7')
  t.equal(thrown.statusCode, 409, 'reply.code(409); throw err')
  t.equal(thrown.json().error.code, 'CONFLICT')
  t.equal(thrown.json().error.message, 'Author is locked')
  const coded = await app.inject('/coded')
  t.equal(coded.statusCode, 422)
  t.equal(coded.json().error.code, 'SHELF_FULL', "the error's own public code is kept")
})

test('a 5xx the handler set before a plain Error is kept, masked', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  app.get('/sent', async (_request, reply) =>
    reply.code(503).send(new Error('pool exhausted at 10.0.0.3')),
  )
  app.get('/thrown', async (_request, reply) => {
    reply.code(502)
    throw new Error('upstream 10.0.0.4 said no')
  })
  const sent = await app.inject('/sent')
  t.equal(sent.statusCode, 503)
  t.equal(sent.json().error.code, 'SERVICE_UNAVAILABLE')
  t.equal(sent.json().error.message, 'Service Unavailable')
  t.notMatch(sent.body, /10\.0\.0/)
  const thrown = await app.inject('/thrown')
  t.equal(thrown.statusCode, 502)
  t.equal(thrown.json().error.message, 'Bad Gateway')
  t.notMatch(thrown.body, /10\.0\.0/)
})

test("an error's own status wins over the reply's; a non-error reply status is not used", async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  app.get('/http-error', async (_request, reply) => {
    reply.code(404)
    throw httpErrors.conflict('ISBN taken')
  })
  app.get('/http-error-sent', async (_request, reply) =>
    reply.code(400).send(httpErrors.serviceUnavailable('queue 10.0.0.3 full')),
  )
  app.get('/library', async (_request, reply) => {
    reply.code(404)
    throw Object.assign(new Error('slow down'), { statusCode: 429 })
  })
  app.get('/created', async (_request, reply) => {
    reply.code(201)
    throw new Error('secret after 201')
  })
  app.get('/redirect', async (_request, reply) => {
    reply.code(302)
    throw new Error('secret after 302')
  })
  const own = await app.inject('/http-error')
  t.equal(own.statusCode, 409)
  t.equal(own.json().error.message, 'ISBN taken')
  const sent = await app.inject('/http-error-sent')
  t.equal(sent.statusCode, 503)
  t.equal(sent.json().error.message, 'Service Unavailable')
  const library = await app.inject('/library')
  t.equal(library.statusCode, 429)
  for (const url of ['/created', '/redirect']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 500, url)
    t.equal(res.json().error.message, 'Internal Server Error')
  }
})

test('a route registered before the plugin keeps the 4xx its handler set', async (t) => {
  const app = Fastify()
  app.get('/early', async (_request, reply) => {
    reply.code(409)
    throw new Error('Author is locked')
  })
  app.get('/early-crash', async () => {
    throw new Error('secret early')
  })
  await app.register(restwellErrors)
  const res = await app.inject('/early')
  t.equal(res.statusCode, 409)
  t.equal(res.json().error.code, 'CONFLICT')
  t.equal(res.json().error.message, 'Author is locked')
  const crash = await app.inject('/early-crash')
  t.equal(crash.statusCode, 500)
  t.equal(crash.json().error.message, 'Internal Server Error')
})

test('404 message and problem instance show the path the client sent, not a rewritten one', async (t) => {
  const app = Fastify({
    // As method override and versioning do: the router sees another URL than the client sent.
    rewriteUrl: (request) => (request.url?.startsWith('/v2/') ? request.url : `/v2${request.url}`),
  })
  await app.register(restwellErrors, { format: 'problem' })
  app.get('/v2/teapot', async () => {
    throw httpErrors.imATeapot()
  })
  const missing = await app.inject('/nope?x=1')
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().detail, 'Route GET /nope not found')
  t.equal(missing.json().instance, '/nope')
  const routed = await app.inject('/teapot?x=1')
  t.equal(routed.statusCode, 418, 'routed by the rewritten URL')
  t.equal(routed.json().instance, '/teapot')
  const plain = await app.inject('/v2/teapot')
  t.equal(plain.json().instance, '/v2/teapot')
})

test('a property named "a/b" is one JSON Pointer field whatever went wrong with it', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  app.post(
    '/things',
    {
      schema: {
        body: {
          type: 'object',
          required: ['a/b'],
          properties: { 'a/b': { type: 'string' }, 'c~d': { type: 'string' } },
        },
      },
    },
    async () => 'ok',
  )
  const fieldsOf = async (payload: Record<string, unknown>): Promise<string[]> =>
    (await app.inject({ method: 'POST', url: '/things', payload }))
      .json()
      .error.details.map((d: { field: string }) => d.field)
  t.same(await fieldsOf({}), ['body/a~1b'], 'missing')
  t.same(await fieldsOf({ 'a/b': { x: 1 } }), ['body/a~1b'], 'wrong type')
  t.same(await fieldsOf({ 'a/b': 'x', 'c~d': { x: 1 } }), ['body/c~0d'], '~ escaped too')
})
