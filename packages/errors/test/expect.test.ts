import { EventEmitter } from 'node:events'
import type { Server } from 'node:http'
import { connect } from 'node:net'
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify'
import { type Test, test } from 'tap'
import { hasUnmetExpectation, passExpectationsToFastify } from '../src/expect.js'
import { ErrorCode, restwellErrors } from '../src/index.js'
import type { ErrorsOptions } from '../src/index.js'

interface Built {
  app: FastifyInstance
  /** How many times a route handler ran. */
  handled: () => number
}

async function build(
  t: Test,
  options: ErrorsOptions = {},
  factory: FastifyHttpOptions<Server> = {},
): Promise<Built> {
  const app = Fastify(factory)
  await app.register(restwellErrors, options)
  let handled = 0
  app.get('/books', async () => {
    handled++
    return { data: [] }
  })
  app.post('/books', async (request) => {
    handled++
    return { got: request.body }
  })
  t.teardown(() => app.close())
  return { app, handled: () => handled }
}

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return typeof address === 'object' && address !== null ? address.port : 0
}

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/** Splits what came back on a connection into answers (interim 1xx ones included). */
function answers(text: string): Answer[] {
  const out: Answer[] = []
  let rest = text
  while (rest.startsWith('HTTP/')) {
    const headEnd = rest.indexOf('\r\n\r\n')
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    const bodyStart = headEnd + 4
    out.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.slice(bodyStart, bodyStart + length),
    })
    rest = rest.slice(bodyStart + length)
  }
  return out
}

/** Writes `wire` on one connection; resolves with what came back once `count` final answers did. */
function exchange(port: number, wire: string, count = 1): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    const done = () => {
      socket.destroy()
      resolve(answers(text))
    }
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      text += chunk
      const all = answers(text)
      const last = all[all.length - 1]
      const finals = all.filter((a) => a.status >= 200).length
      if (finals >= count && last !== undefined && text.endsWith(last.body)) done()
    })
    socket.on('error', reject)
    socket.on('close', done)
    socket.write(wire)
  })
}

test('hasUnmetExpectation: any member but 100-continue, case-insensitively', async (t) => {
  for (const met of [
    '100-continue',
    '100-Continue',
    ' 100-CONTINUE\t',
    '100-continue, ,100-continue',
    '',
    ' , ',
    ['100-continue', '100-continue'],
    undefined,
  ]) {
    t.equal(hasUnmetExpectation(met), false, JSON.stringify(met))
  }
  for (const unmet of [
    'foo',
    '200-ok',
    '100-continue, foo',
    'foo, 100-continue',
    '100-continuex',
    '100-continue=1',
    '"100-continue"',
    'x="a,100-continue"',
    ['100-continue', 'foo'],
  ]) {
    t.equal(hasUnmetExpectation(unmet), true, JSON.stringify(unmet))
  }
})

test('an unmet Expect: 417 in the error form before anything else runs', async (t) => {
  const { app, handled } = await build(t)
  let hooks = 0
  app.addHook('onRequest', async () => {
    hooks++
  })
  const res = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { expect: '200-ok', 'x-request-id': 'trace-417' },
    payload: { title: 'x' },
  })
  t.equal(res.statusCode, 417)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['x-request-id'], 'trace-417')
  const { error } = res.json()
  t.equal(error.code, ErrorCode.EXPECTATION_FAILED)
  t.equal(error.requestId, 'trace-417')
  t.same(error.details, [
    { field: 'headers/expect', message: 'only 100-continue is supported', code: 'UNSUPPORTED' },
  ])
  t.equal(hooks, 0, 'later onRequest hooks do not run')
  t.equal(handled(), 0, 'the handler does not run')
  const notFound = await app.inject({ method: 'GET', url: '/nope', headers: { expect: 'x' } })
  t.equal(notFound.statusCode, 417)
  const met = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { expect: '100-continue' },
    payload: { title: 'x' },
  })
  t.equal(met.statusCode, 200)
  t.same(met.json(), { got: { title: 'x' } })
})

test('the 417 follows the configured form, with or without a request id header', async (t) => {
  const { app } = await build(t, { format: 'problem', requestIdHeader: false })
  const res = await app.inject({ method: 'GET', url: '/books', headers: { expect: 'foo' } })
  t.equal(res.statusCode, 417)
  t.equal(res.headers['content-type'], 'application/problem+json')
  t.equal(res.headers['x-request-id'], undefined)
  const body = res.json()
  t.equal(body.status, 417)
  t.equal(body.title, 'Expectation Failed')
  t.equal(body.code, 'EXPECTATION_FAILED')
  t.match(body.requestId, /^req-/)
  const ok = await app.inject({ method: 'GET', url: '/books' })
  t.equal(ok.statusCode, 200)
})

test('over a socket: Node hands the unmet Expect to Fastify instead of a bare 417', async (t) => {
  const { app, handled } = await build(t)
  const port = await listen(app)
  const [res] = await exchange(port, 'GET /books HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n')
  t.equal(res?.status, 417)
  t.equal(res?.headers['cache-control'], 'no-store')
  t.equal(res?.headers['content-type'], 'application/json; charset=utf-8')
  t.ok(res?.headers['x-request-id'])
  const { error } = JSON.parse(res?.body ?? '{}')
  t.equal(error.code, 'EXPECTATION_FAILED')
  t.equal(error.requestId, res?.headers['x-request-id'])

  // A body sent anyway is not read, and the connection goes on.
  const body = '{"title":"x"}'
  const both = await exchange(
    port,
    `POST /books HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 200-ok\r\n\r\n${body}` +
      'GET /books HTTP/1.1\r\nHost: x\r\n\r\n',
    2,
  )
  t.same(
    both.map((a) => a.status),
    [417, 200],
  )
  t.equal(handled(), 1, 'only the second request reached a handler')

  // 100-continue with another member: Node has sent 100 Continue already, the 417 follows.
  const mixed = await exchange(
    port,
    `POST /books HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue, foo\r\n\r\n${body}`,
  )
  t.same(
    mixed.map((a) => a.status),
    [100, 417],
  )
  // 100-continue alone is Node's, untouched: 100 Continue, then the answer.
  const plain = await exchange(
    port,
    `POST /books HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body}`,
  )
  t.same(
    plain.map((a) => a.status),
    [100, 200],
  )
  t.equal(plain[1]?.body, '{"got":{"title":"x"}}')
})

test('no listener over an app listener of its own: two would both answer', async (t) => {
  const own = Fastify()
  t.teardown(() => own.close())
  const mine = () => {}
  own.server.on('checkExpectation', mine)
  await own.register(restwellErrors)
  await own.ready()
  t.same(own.server.listeners('checkExpectation'), [mine])
})

test('the listener hands the request to the request listeners, added once', async (t) => {
  const server = new EventEmitter()
  const seen: unknown[] = []
  server.on('request', (req, res) => seen.push(req, res))
  passExpectationsToFastify(server)
  passExpectationsToFastify(server)
  t.equal(server.listenerCount('checkExpectation'), 1)
  server.emit('checkExpectation', 'req', 'res')
  t.same(seen, ['req', 'res'])
})

test('an HTTP/1.1 request without Host that reaches Fastify: 400 in the error form', async (t) => {
  // Node answers it itself (a bare 400) unless the server is made with requireHostHeader: false.
  const { app, handled } = await build(t, {}, { http: { requireHostHeader: false } })
  const port = await listen(app)
  const [res] = await exchange(port, 'GET /books HTTP/1.1\r\n\r\n')
  t.equal(res?.status, 400)
  t.equal(res?.headers['cache-control'], 'no-store')
  const { error } = JSON.parse(res?.body ?? '{}')
  t.equal(error.code, 'BAD_REQUEST')
  t.equal(error.message, 'An HTTP/1.1 request must carry a Host header')
  t.same(error.details, [{ field: 'headers/host', message: 'required', code: 'REQUIRED' }])
  t.equal(error.requestId, res?.headers['x-request-id'])
  t.equal(handled(), 0)
  // HTTP/1.0 does not require Host; an empty Host is a Host.
  const [old] = await exchange(port, 'GET /books HTTP/1.0\r\n\r\n')
  t.equal(old?.status, 200)
  const [empty] = await exchange(port, 'GET /books HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n')
  t.equal(empty?.status, 200)
  t.equal(handled(), 2)
})
