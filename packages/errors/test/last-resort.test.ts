import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { test } from 'tap'
import { type ErrorsOptions, httpErrors, restwellErrors } from '../src/index.js'
import { isHeaderError, setIfValid } from '../src/last-resort.js'

interface LogLine {
  level: number
  msg: string
  requestId?: string
  err?: { message: string; code?: string }
}

/** An app with the plugin and a log kept in `logs`. */
async function build(
  logs: LogLine[],
  options: ErrorsOptions = {},
  server: FastifyServerOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    ...server,
    logger: { level: 'info', stream: { write: (line: string) => logs.push(JSON.parse(line)) } },
  })
  await app.register(restwellErrors, options)
  return app
}

const errorLogs = (logs: LogLine[]) => logs.filter((l) => l.level >= 50)

test('an onSend hook that throws on every body: the masked 500 in the form, logged once', async (t) => {
  const logs: LogLine[] = []
  const app = await build(logs)
  await app.register(async (scope) => {
    scope.addHook('onSend', async (request) => {
      throw new Error(`signing key missing at /etc/app/keys for ${request.url}`)
    })
    scope.get('/books', async () => [{ id: 1 }])
  })
  const res = await app.inject({ url: '/books', headers: { 'x-request-id': 'trace-7' } })
  t.equal(res.statusCode, 500)
  t.notMatch(res.body, /signing|keys|statusCode/, 'nothing of the failure is shown')
  t.same(res.json(), {
    error: {
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Internal Server Error',
      details: [],
      requestId: 'trace-7',
      timestamp: res.json().error.timestamp,
    },
  })
  t.equal(res.headers['x-request-id'], 'trace-7')
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.headers['content-length'], String(Buffer.byteLength(res.body)))
  const errors = errorLogs(logs)
  t.equal(errors.length, 1, 'the same failure twice is logged once')
  t.equal(errors[0]?.requestId, 'trace-7')
  t.match(errors[0]?.err?.message, /signing key missing/, 'with the real error')

  // The same error object thrown each time, and a string: the same failure, logged once.
  const again = new Error('the same one')
  for (const thrown of [again, 'a string']) {
    const logs2: LogLine[] = []
    const app2 = await build(logs2)
    app2.addHook('onSend', async () => {
      throw thrown
    })
    app2.get('/', async () => 'ok')
    const r = await app2.inject('/')
    t.equal(r.statusCode, 500)
    t.equal(r.json().error.code, 'INTERNAL_SERVER_ERROR')
    t.equal(errorLogs(logs2).length, 1)
  }
})

test('an answer that fails after another error: both failures logged, masked 500', async (t) => {
  const logs: LogLine[] = []
  const app = await build(logs, { format: 'problem' })
  app.addHook('onSend', async (_request, reply) => {
    if (reply.statusCode >= 400) throw new Error('signer down')
  })
  app.get('/db', async () => {
    throw new Error('database down')
  })
  app.get('/missing', async () => {
    throw httpErrors.notFound('No book 7')
  })
  app.get('/object', async () => {
    throw { message: 'not an Error' }
  })
  app.get('/typed', async () => {
    throw new TypeError('signer down')
  })

  const db = await app.inject('/db')
  t.equal(db.statusCode, 500)
  t.equal(db.headers['content-type'], 'application/problem+json', 'the form')
  t.match(db.json(), { status: 500, code: 'INTERNAL_SERVER_ERROR', instance: '/db' })
  t.same(
    errorLogs(logs).map((l) => l.err?.message),
    ['database down', 'signer down'],
    'two different failures: both logged at error',
  )

  logs.length = 0
  const missing = await app.inject('/missing')
  t.equal(missing.statusCode, 500, 'the 404 could not be sent: a server error')
  t.notMatch(missing.body, /No book|signer/)
  t.equal(logs.filter((l) => l.level === 30 && l.msg === 'No book 7').length, 1, 'the 404 at info')
  t.same(
    errorLogs(logs).map((l) => l.err?.message),
    ['signer down'],
  )

  for (const url of ['/object', '/typed']) {
    logs.length = 0
    t.equal((await app.inject(url)).statusCode, 500)
    t.equal(errorLogs(logs).length, 2, `${url}: not the same failure`)
  }
})

test('a header value Node refuses: the masked 500 without the route headers', async (t) => {
  const logs: LogLine[] = []
  const app = await build(logs)
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('access-control-allow-origin', 'https://app.example')
    reply.header('access-control-expose-headers', 'x-request-id')
    reply.header('vary', 'Origin')
  })
  app.get('/things/:id', async (_request, reply) => {
    reply.raw.setHeader('x-raw', 'set on the raw response')
    reply.header('x-custom', 'fine').header('content-location', '/things/ж')
    return { id: 1 }
  })
  app.get('/coded', async (_request, reply) => {
    // The status the handler set does not make the failure a 4xx with its message.
    reply.code(404).header('content-location', '/things/ж')
    return { id: 1 }
  })

  const res = await app.inject({ url: '/things/1', headers: { 'x-request-id': 'trace-9' } })
  t.equal(res.statusCode, 500)
  t.notMatch(res.body, /content-location|ERR_INVALID_CHAR|Invalid character/)
  t.equal(res.json().error.code, 'INTERNAL_SERVER_ERROR')
  t.equal(res.json().error.requestId, 'trace-9')
  t.equal(res.headers['x-request-id'], 'trace-9')
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['access-control-allow-origin'], 'https://app.example', 'CORS kept')
  t.equal(res.headers['access-control-expose-headers'], 'x-request-id')
  t.equal(res.headers.vary, 'Origin')
  t.notOk(res.headers['content-location'], "the route's headers are dropped")
  t.notOk(res.headers['x-custom'])
  t.notOk(res.headers['x-raw'])
  const errors = errorLogs(logs)
  t.equal(errors.length, 1, 'logged once')
  t.equal(errors[0]?.err?.code, 'ERR_INVALID_CHAR')

  const coded = await app.inject('/coded')
  t.equal(coded.statusCode, 500)
  t.equal(coded.json().error.message, 'Internal Server Error')

  // HEAD: no body, GET's Content-Length.
  const get = await app.inject({ url: '/things/1', headers: { 'x-request-id': 'same' } })
  const head = await app.inject({
    method: 'HEAD',
    url: '/things/1',
    headers: { 'x-request-id': 'same' },
  })
  t.equal(head.statusCode, 500)
  t.equal(head.body, '')
  t.equal(head.headers['content-length'], get.headers['content-length'])
})

test('headers Node would refuse are not kept; no id header when it is off', async (t) => {
  const logs: LogLine[] = []
  // An app-made request id that is no valid header value: every answer fails at writeHead.
  const app = await build(logs, {}, { genReqId: () => 'id-ж' })
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('vary', 'Orígin\u0000')
  })
  app.get('/', async () => 'ok')
  const res = await app.inject('/')
  t.equal(res.statusCode, 500)
  t.equal(res.json().error.requestId, 'id-ж', 'the body still carries it')
  t.notOk(res.headers['x-request-id'])
  t.notOk(res.headers.vary)
  t.equal(errorLogs(logs)[0]?.err?.code, 'ERR_INVALID_CHAR')

  const off = await build([], { requestIdHeader: false })
  off.get('/', async (_request, reply) => reply.header('link', '<ж>').send('ok'))
  const r = await off.inject('/')
  t.equal(r.statusCode, 500)
  t.notOk(r.headers['x-request-id'])
  t.equal(r.json().error.requestId, 'req-1')
})

test('the 404 answer failing: the masked 500 too', async (t) => {
  const app = await build([])
  app.addHook('onSend', async () => {
    throw new Error('boom')
  })
  const res = await app.inject('/nope')
  t.equal(res.statusCode, 500)
  t.equal(res.json().error.code, 'INTERNAL_SERVER_ERROR')
})

test('a response already sent, or started, when the answer fails', async (t) => {
  const app = await build([])
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400) throw new Error('first')
    if (request.url === '/ended') {
      reply.raw.writeHead(200, { 'content-type': 'text/plain' })
      reply.raw.end('sent by the hook')
    } else if (request.url === '/started') {
      reply.raw.writeHead(200, { 'content-type': 'text/plain' })
      reply.raw.write('half')
    } else {
      reply.raw.destroy()
    }
    throw new Error(`second, after ${String(payload).length} bytes`)
  })
  app.get('/ended', async () => 'ok')
  app.get('/started', async () => 'ok')
  app.get('/gone', async () => 'ok')

  const ended = await app.inject('/ended')
  t.equal(ended.statusCode, 200, 'nothing more is written')
  t.equal(ended.body, 'sent by the hook')

  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  // The head is out: the response is cut, as Fastify does; no error body after a 200 head.
  await t.rejects(fetch(`${base}/started`).then((r) => r.text()))
  await t.rejects(fetch(`${base}/gone`))
  // The server still answers.
  t.equal((await fetch(`${base}/ended`)).status, 200)
})

test('pieces: header errors, valid headers', async (t) => {
  t.ok(isHeaderError(Object.assign(new Error('x'), { code: 'ERR_INVALID_CHAR' })))
  t.ok(isHeaderError({ code: 'ERR_HTTP_INVALID_HEADER_VALUE' }))
  t.ok(isHeaderError({ code: 'ERR_INVALID_HTTP_TOKEN' }))
  t.notOk(isHeaderError({ code: 'ECONNRESET' }))
  t.notOk(isHeaderError({ code: 7 }))
  t.notOk(isHeaderError(null))
  t.notOk(isHeaderError(undefined))
  t.notOk(isHeaderError('ERR_INVALID_CHAR'))

  const headers = {}
  setIfValid(headers, 'vary', 'Origin')
  setIfValid(headers, 'bad name', 'x')
  setIfValid(headers, 'x-bad', 'a\nb')
  setIfValid(headers, 'x-none', undefined)
  t.same(headers, { vary: 'Origin' })
})

test("a scope's own handler, set after its routes, answers first; its failed answer is masked", async (t) => {
  const logs: LogLine[] = []
  const app = await build(logs)
  await app.register(async (scope) => {
    scope.get('/mine', async () => {
      throw new Error('secret: db password')
    })
    scope.setErrorHandler(async (error, _request, reply) => {
      if ((error as Error).message.startsWith('secret')) {
        return reply.code(503).send({ mine: true })
      }
      throw error
    })
    scope.addHook('onSend', async (_request, _reply, payload) => {
      if (String(payload).includes('mine')) throw new Error('signer down: key=abc')
    })
  })
  await app.register(async (scope) => {
    scope.get('/rethrown', async () => {
      throw httpErrors.conflict('Taken')
    })
    scope.setErrorHandler(async (error) => {
      throw error
    })
  })
  const mine = await app.inject('/mine')
  // The status the scope's handler set stays the error's (it has none of its own).
  t.equal(mine.statusCode, 503, "the scope's answer failed: ours answers")
  t.notMatch(mine.body, /secret|signer|key=|mine/)
  t.equal(mine.json().error.code, 'SERVICE_UNAVAILABLE')
  const rethrown = await app.inject('/rethrown')
  t.equal(rethrown.statusCode, 409, "the scope's handler ran and handed the error on to ours")
  t.equal(rethrown.json().error.message, 'Taken')
})

test('a route with its own errorHandler keeps it', async (t) => {
  const app = await build([])
  app.get('/own', {
    errorHandler: (_error, _request, reply) => {
      reply.code(418).send({ own: true })
    },
    handler: async () => {
      throw new Error('x')
    },
  })
  const res = await app.inject('/own')
  t.equal(res.statusCode, 418)
  t.same(res.json(), { own: true })
})
