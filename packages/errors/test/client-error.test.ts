import type { Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify'
import { type Test, test } from 'tap'
import { clientErrorHandler, clientErrorResponse, restwellErrors } from '../src/index.js'

interface WireAnswer {
  status: number
  headers: Record<string, string>
  body: string
  /** The server closed the connection. */
  closed: boolean
}

async function listen(
  t: Test,
  options: FastifyHttpOptions<Server> = {},
): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify({ ...options, clientErrorHandler })
  await app.register(restwellErrors)
  app.get('/ok', async () => ({ ok: true }))
  app.post('/echo', async (request) => request.body)
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return { app, port: typeof address === 'object' && address !== null ? address.port : 0 }
}

/** Writes `chunks` on a fresh connection and reads until the server closes it. */
function exchange(port: number, chunks: string[]): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      text += chunk
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const [head = '', ...rest] = text.split('\r\n\r\n')
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0),
        headers,
        body: rest.join('\r\n\r\n'),
        closed: true,
      })
    })
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk)
    })
  })
}

function checkForm(t: Test, answer: WireAnswer, status: number, code: string): void {
  t.equal(answer.status, status, `status ${status}`)
  t.equal(answer.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(answer.headers['cache-control'], 'no-store')
  t.equal(answer.headers.connection, 'close')
  t.ok(answer.headers.date, 'a Date header')
  t.equal(Number(answer.headers['content-length']), Buffer.byteLength(answer.body, 'latin1'))
  const body = JSON.parse(answer.body) as {
    error: { code: string; message: string; details: unknown[]; requestId: string }
  }
  t.match(body, {
    error: {
      code,
      message: String,
      details: [],
      requestId: answer.headers['x-request-id'],
      timestamp: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
    },
  })
  t.match(answer.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'a generated request id')
  t.ok(answer.closed, 'the connection is closed')
}

test('a malformed request line: 400 in the structured form, then served again', async (t) => {
  const { port } = await listen(t)
  const answer = await exchange(port, ['GARBAGE / NOT-HTTP\r\n\r\n'])
  checkForm(t, answer, 400, 'BAD_REQUEST')
  const ok = await fetch(`http://127.0.0.1:${port}/ok`)
  t.equal(ok.status, 200, 'the server still serves')
  const smuggled = await exchange(port, [
    'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
  ])
  checkForm(t, smuggled, 400, 'BAD_REQUEST')
})

test('a header section over maxHeaderSize: 431 in the structured form', async (t) => {
  const { port } = await listen(t, { http: { maxHeaderSize: 1024 } })
  const answer = await exchange(port, [
    `GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`,
  ])
  checkForm(t, answer, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE')
})

test('oversize chunk extensions: 413 in the structured form', async (t) => {
  const { port } = await listen(t)
  const answer = await exchange(port, [
    'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    `2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
  ])
  checkForm(t, answer, 413, 'PAYLOAD_TOO_LARGE')
})

test('a request that never completes: 408 in the structured form', async (t) => {
  // Node looks for timed-out requests every connectionsCheckingInterval.
  const { port } = await listen(t, {
    requestTimeout: 200,
    http: { connectionsCheckingInterval: 20 },
  })
  const answer = await exchange(port, ['GET /ok HTTP/1.1\r\nHost: x\r\n'])
  checkForm(t, answer, 408, 'REQUEST_TIMEOUT')
})

test('a reset, destroyed or unwritable socket is not written to', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const calls: string[] = []
  const socket = (state: { destroyed: boolean; writable: boolean }): Socket =>
    ({
      ...state,
      write: () => calls.push('write'),
      destroy: () => calls.push('destroy'),
    }) as unknown as Socket
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
  clientErrorHandler.call(app, reset, socket({ destroyed: false, writable: true }))
  t.same(calls, [], 'ECONNRESET: nothing to do')
  const parse = Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_METHOD' })
  clientErrorHandler.call(app, parse, socket({ destroyed: true, writable: false }))
  t.same(calls, [], 'already destroyed: nothing to do')
  clientErrorHandler.call(app, parse, socket({ destroyed: false, writable: false }))
  t.same(calls, ['destroy'], 'not writable: destroyed without a write')
  calls.length = 0
  clientErrorHandler.call(app, parse, socket({ destroyed: false, writable: true }))
  t.same(calls, ['write', 'destroy'], 'writable: the answer, then destroyed')
})

test('clientErrorResponse: an error without a code is a 400', async (t) => {
  const response = clientErrorResponse(new Error('no code'))
  t.match(response, /^HTTP\/1\.1 400 Bad Request\r\n/)
  t.match(response, /\r\n\r\n\{"error":\{"code":"BAD_REQUEST"/)
})
