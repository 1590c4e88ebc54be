/**
 * Hostile bodies, amplification attempts and method-override escalation against the umbrella
 * with every plugin on. Each case: a clean 4xx (or a success), never a 5xx, errors in the error
 * form, and `Object.prototype` untouched afterwards. The wire cases (wrong Content-Length, slow
 * senders, oversize bodies announced by Content-Length) use a raw `net` socket.
 */
import { createServer } from 'node:http'
import { connect, type Socket } from 'node:net'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import { buildReliabilityApp, memoryStore, READ, WRITE } from './app.js'
import { type Answer, errorFormProblems } from './form.js'
import { type Counter, junk, mutated, prototypeProblems, send } from './hostile.js'
import { PATIENCE_MS } from '../helpers/patience.js'

const RUNS = Number(process.env.RELIABILITY_RUNS ?? 1000)
const counter: Counter = { cases: 0, statuses: new Map() }
let app: FastifyInstance

tap.before(async () => {
  app = await buildReliabilityApp({ store: memoryStore(200) })
})
tap.teardown(async () => {
  await app.close()
  const statuses = [...counter.statuses!].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`)
  tap.comment(`hostile-bodies: ${counter.cases} requests sent; statuses ${statuses.join(' ')}`)
})

const MERGE = { ...WRITE, 'content-type': 'application/merge-patch+json' }
const JSON_PATCH = { ...WRITE, 'content-type': 'application/json-patch+json' }
const JSON_TYPE = { ...WRITE, 'content-type': 'application/json' }

/** Sends and checks, then checks `Object.prototype`. */
async function hostile(options: Parameters<typeof send>[2]): Promise<number> {
  const status = await send(app, counter, options)
  const polluted = prototypeProblems()
  if (polluted.length > 0)
    throw new Error(
      `prototype polluted by ${JSON.stringify(options).slice(0, 300)}: ${polluted.join('; ')}`,
    )
  return status
}

const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype']
const jsonValue = fc.jsonValue({ maxDepth: 4 })

test('generated and mutated JSON bodies on POST, PUT, PATCH (both formats): no 5xx, no pollution', async (t) => {
  const documents = fc.oneof(
    fc.constant('{"title":"T","year":2000,"tags":["a"]}'),
    fc.constant('[{"op":"replace","path":"/title","value":"X"}]'),
    fc.constant('{"__proto__":{"polluted":1},"title":"P","year":1}'),
    fc.constant('{"constructor":{"prototype":{"polluted":1}},"title":"P","year":1}'),
    fc.constant('[{"op":"add","path":"/__proto__/polluted","value":1}]'),
    fc.constant('[{"op":"add","path":"/constructor/prototype/polluted","value":1}]'),
    fc.constant('[{"op":"copy","from":"/__proto__","path":"/tags/0"}]'),
    fc.constant('[{"op":"move","from":"/title","path":"/constructor"}]'),
    jsonValue.map((v) => JSON.stringify(v)),
    fc
      .record({
        key: fc.constantFrom(...POLLUTING_KEYS, 'title', 'tags', 'x'),
        value: jsonValue,
        nested: fc.constantFrom(...POLLUTING_KEYS, 'polluted'),
      })
      .map(
        ({ key, value, nested }) =>
          `{"${key}":{"${nested}":${JSON.stringify(value)}},"title":"K","year":3}`,
      ),
    fc
      .array(
        fc.record({
          op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'nope'),
          path: fc
            .array(fc.constantFrom(...POLLUTING_KEYS, 'title', 'tags', '0', '-', '~1', '~2', ''), {
              maxLength: 4,
            })
            .map((p) => `/${p.join('/')}`),
          from: fc.constantFrom('/title', '/tags', '/__proto__', '/constructor/prototype'),
          value: jsonValue,
        }),
        { maxLength: 6 },
      )
      .map((ops) => JSON.stringify(ops)),
    mutated([
      '{"title":"T","year":2000,"tags":["a","b"]}',
      '[{"op":"add","path":"/tags/-","value":"z"}]',
      '{"a":[1,{"b":null}]}',
    ]),
    junk,
  )
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        ['POST', '/v1/books', JSON_TYPE],
        ['PUT', '/v1/books/7', JSON_TYPE],
        ['PATCH', '/v1/books/8', MERGE],
        ['PATCH', '/v1/books/9', JSON_PATCH],
        ['POST', '/v1/exports', JSON_TYPE],
      ),
      documents,
      async ([method, url, headers], payload) => {
        await hostile({ method: method as 'POST', url, headers, payload })
      },
    ),
    { numRuns: RUNS, includeErrorInReport: true },
  )
  t.pass(`${RUNS} generated bodies`)
})

test('prototype-pollution keys: refused with 400 (JSON) or 422 (patch), prototype untouched', async (t) => {
  const cases: [string, string, Record<string, string>, string, number[]][] = [
    ['POST', '/v1/books', JSON_TYPE, '{"__proto__":{"polluted":1},"title":"P","year":1}', [400]],
    [
      'POST',
      '/v1/books',
      JSON_TYPE,
      '{"title":"P","year":1,"constructor":{"prototype":{"polluted":1}}}',
      [400],
    ],
    [
      'POST',
      '/v1/books',
      JSON_TYPE,
      '{"title":"P","year":1,"tags":[{"__proto__":{"isAdmin":true}}]}',
      [400],
    ],
    [
      'POST',
      '/v1/books',
      JSON_TYPE,
      '{"title":"P","year":1,"\\u005f_proto__":{"polluted":1}}',
      [400],
    ],
    ['PATCH', '/v1/books/10', MERGE, '{"__proto__":{"polluted":1}}', [400]],
    ['PATCH', '/v1/books/10', MERGE, '{"constructor":{"prototype":{"polluted":1}}}', [400]],
    [
      'PATCH',
      '/v1/books/10',
      JSON_PATCH,
      '[{"op":"add","path":"/__proto__/polluted","value":1}]',
      [422],
    ],
    [
      'PATCH',
      '/v1/books/10',
      JSON_PATCH,
      '[{"op":"add","path":"/constructor/prototype/polluted","value":1}]',
      [422],
    ],
    [
      'PATCH',
      '/v1/books/10',
      JSON_PATCH,
      '[{"op":"replace","path":"/title","value":{"__proto__":{"polluted":1}}}]',
      [400, 422],
    ],
    [
      'PATCH',
      '/v1/books/10',
      JSON_PATCH,
      '[{"op":"copy","from":"/constructor","path":"/x"}]',
      [422],
    ],
    [
      'POST',
      '/v1/books',
      { ...WRITE, 'content-type': 'application/x-www-form-urlencoded' },
      '__proto__[polluted]=1&title=P&year=1',
      [400, 201],
    ],
    [
      'POST',
      '/v1/books',
      { ...WRITE, 'content-type': 'application/x-www-form-urlencoded' },
      'constructor[prototype][polluted]=1&title=P&year=1',
      [400, 201],
    ],
    ['GET', '/v1/books?__proto__[polluted]=1&constructor[prototype][polluted]=1', READ, '', [400]],
  ]
  for (const [method, url, headers, payload, expected] of cases) {
    const status = await hostile({
      method: method as 'POST',
      url,
      headers,
      ...(payload === '' ? {} : { payload }),
    })
    t.ok(expected.includes(status), `${method} ${url} ${payload.slice(0, 60)}: ${status}`)
  }
  t.same(prototypeProblems(), [], 'Object.prototype untouched')
  const book = await app.inject({ url: '/v1/books/10', headers: READ })
  t.notOk('polluted' in book.json(), 'the stored book did not gain a member')
})

test('deep nesting (100 000 levels), huge arrays, many patch operations: bounded 4xx', async (t) => {
  const depth = 100_000
  const cases: [string, string, Record<string, string>, string][] = [
    ['POST', '/v1/books', JSON_TYPE, `${'['.repeat(depth)}${']'.repeat(depth)}`],
    [
      'POST',
      '/v1/books',
      JSON_TYPE,
      `{"title":"D","year":1,"tags":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    ],
    ['POST', '/v1/books', JSON_TYPE, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`],
    ['PATCH', '/v1/books/11', MERGE, `{"title":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`],
    [
      'PATCH',
      '/v1/books/11',
      JSON_PATCH,
      `[{"op":"add","path":"/tags/0","value":${'['.repeat(depth)}${']'.repeat(depth)}}]`,
    ],
    [
      'POST',
      '/v1/books',
      JSON_TYPE,
      `{"title":"A","year":1,"tags":[${Array.from({ length: 200_000 }, () => '"a"').join(',')}]}`,
    ],
    [
      'PATCH',
      '/v1/books/11',
      MERGE,
      `{"tags":[${Array.from({ length: 200_000 }, () => '"a"').join(',')}]}`,
    ],
    [
      'PATCH',
      '/v1/books/11',
      JSON_PATCH,
      JSON.stringify(
        Array.from({ length: 20_000 }, () => ({ op: 'test', path: '/id', value: 11 })),
      ),
    ],
    [
      'PATCH',
      '/v1/books/11',
      JSON_PATCH,
      JSON.stringify(
        Array.from({ length: 1000 }, () => ({ op: 'add', path: '/tags/-', value: 'x'.repeat(40) })),
      ),
    ],
    [
      'POST',
      '/v1/books',
      JSON_TYPE,
      `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":1`).join(',')}}`,
    ],
    ['POST', '/v1/books', JSON_TYPE, `{"title":"${'\\u0000'.repeat(100_000)}","year":1}`],
  ]
  for (const [method, url, headers, payload] of cases) {
    const status = await hostile({ method: method as 'POST', url, headers, payload })
    t.ok(
      status >= 400 && status < 500,
      `${method} ${url} (${payload.length} bytes, ${payload.slice(0, 20)}…): ${status}`,
    )
  }
})

test('oversize bodies: 413 in the error form (inject: bodyLimit 1 MiB)', async (t) => {
  const big = `{"title":"${'x'.repeat(1024 * 1024)}","year":1}`
  for (const [method, url, headers] of [
    ['POST', '/v1/books', JSON_TYPE],
    ['PUT', '/v1/books/12', JSON_TYPE],
    ['PATCH', '/v1/books/12', MERGE],
    ['PATCH', '/v1/books/12', JSON_PATCH],
  ] as const) {
    const status = await hostile({ method, url, headers, payload: big })
    t.equal(status, 413, `${method} ${url}`)
  }
})

test('ranges that try to amplify: at most 8 range-specs, a Range over 1 KB is ignored', async (t) => {
  const full = await app.inject({
    url: '/v1/books/3',
    headers: { ...READ, 'accept-encoding': 'identity' },
  })
  const size = full.rawPayload.length
  const attempts = [
    `bytes=${Array.from({ length: 8 }, () => '0-').join(',')}`,
    `bytes=${Array.from({ length: 9 }, () => '0-').join(',')}`,
    `bytes=${Array.from({ length: 200 }, () => '0-').join(',')}`,
    `bytes=${Array.from({ length: 8 }, (_, i) => `${i}-${size}`).join(',')}`,
    `bytes=${Array.from({ length: 8 }, () => '-100000').join(',')}`,
    `bytes=0-0,${Array.from({ length: 7 }, (_, i) => `${i + 2}-${i + 2}`).join(',')}`,
    `bytes=${'0-,'.repeat(400)}0-`,
  ]
  for (const range of attempts) {
    counter.cases++
    const res = await app.inject({
      url: '/v1/books/3',
      headers: { ...READ, range, 'accept-encoding': 'identity' },
    })
    t.ok(
      res.statusCode === 200 || res.statusCode === 206 || res.statusCode === 416,
      `${range.slice(0, 40)}…: ${res.statusCode}`,
    )
    // 8 parts of the whole body at most, plus one multipart header block (< 200 bytes) each.
    t.ok(
      res.rawPayload.length <= 8 * (size + 200),
      `answer ${res.rawPayload.length} bytes for a ${size}-byte body`,
    )
  }
})

test('If-None-Match with thousands of tags and Accept with thousands of types: bounded lists', async (t) => {
  const current = await app.inject({ url: '/v1/books/4', headers: READ })
  const etag = String(current.headers.etag)
  const others = (n: number) => Array.from({ length: n }, (_, i) => `"other-${i}"`)
  const early = await app.inject({
    url: '/v1/books/4',
    headers: { ...READ, 'if-none-match': [etag, ...others(5000)].join(', ') },
  })
  t.equal(early.statusCode, 304, 'a match among the first 64 tags counts')
  const late = await app.inject({
    url: '/v1/books/4',
    headers: { ...READ, 'if-none-match': [...others(5000), etag].join(', ') },
  })
  t.equal(
    late.statusCode,
    200,
    'tags past the 64th are not read: full answer (safe: a cache refill)',
  )
  const ifMatch = await app.inject({
    method: 'PATCH',
    url: '/v1/books/4',
    headers: { ...MERGE, 'if-match': [...others(5000), etag].join(', ') },
    payload: '{"title":"late"}',
  })
  t.equal(ifMatch.statusCode, 412, 'If-Match past the 64th tag fails closed (412), never writes')
  const acceptLate = await app.inject({
    url: '/v1/books/4',
    headers: {
      ...READ,
      accept: [...Array.from({ length: 5000 }, (_, i) => `text/x-${i}`), 'application/xml'].join(
        ', ',
      ),
    },
  })
  t.equal(acceptLate.statusCode, 406, 'media ranges past the 64th are not read')
  t.same(errorFormProblems(acceptLate), [])
  const acceptEarly = await app.inject({
    url: '/v1/books/4',
    headers: {
      ...READ,
      accept: ['application/xml', ...Array.from({ length: 5000 }, (_, i) => `text/x-${i}`)].join(
        ', ',
      ),
    },
  })
  t.equal(acceptEarly.statusCode, 200)
  t.match(acceptEarly.headers['content-type'], /^application\/xml/)
  counter.cases += 5
})

test('method override cannot escalate', async (t) => {
  const before = (await app.inject({ url: '/v1/books/20', headers: READ })).statusCode
  t.equal(before, 200)
  for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'OPTIONS'] as const) {
    const body = method === 'PUT' || method === 'PATCH'
    const res = await app.inject({
      method,
      url: '/v1/books/20?_method=DELETE',
      headers: {
        ...WRITE,
        'x-http-method-override': 'DELETE',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(method === 'PUT' ? { payload: '{"title":"still","year":1}' } : {}),
      ...(method === 'PATCH' ? { payload: '{}' } : {}),
    })
    t.not(res.statusCode, 204, `${method} carrying an override is not a DELETE (${res.statusCode})`)
  }
  t.equal(
    (await app.inject({ url: '/v1/books/20', headers: READ })).statusCode,
    200,
    'the book still exists',
  )

  for (const target of ['TRACE', 'CONNECT', 'trace', 'TRACK', 'GET', 'HEAD', 'POST']) {
    for (const carrier of ['header', 'query'] as const) {
      const res = await app.inject({
        method: 'POST',
        url: carrier === 'query' ? `/v1/books/20?_method=${target}` : '/v1/books/20',
        headers: {
          ...WRITE,
          ...(carrier === 'header' ? { 'x-http-method-override': target } : {}),
        },
      })
      t.ok(
        res.statusCode === 400 || res.statusCode === 405,
        `POST overridden to ${target} by ${carrier}: ${res.statusCode}`,
      )
      t.same(errorFormProblems(res), [])
    }
  }
  for (const method of ['TRACE', 'CONNECT'] as const) {
    const res = await app.inject({ method, url: '/v1/books/20', headers: WRITE })
    t.ok([400, 405, 501].includes(res.statusCode), `${method} itself: ${res.statusCode}`)
    t.notMatch(res.body, /writer-token/, `${method} never echoes the request`)
  }

  const anonymous = await app.inject({
    method: 'POST',
    url: '/v1/books/20',
    headers: { 'x-http-method-override': 'DELETE' },
  })
  t.equal(anonymous.statusCode, 401, 'auth applies to the overridden DELETE (no token)')
  const reader = await app.inject({
    method: 'POST',
    url: '/v1/books/20',
    headers: { ...READ, 'x-http-method-override': 'DELETE' },
  })
  t.equal(reader.statusCode, 403, 'the DELETE needs the write scope the read token lacks')
  t.equal((await app.inject({ url: '/v1/books/20', headers: READ })).statusCode, 200, 'still there')
  const writer = await app.inject({
    method: 'POST',
    url: '/v1/books/20',
    headers: { ...WRITE, 'x-http-method-override': 'DELETE' },
  })
  t.equal(writer.statusCode, 204, 'the write token may delete')
  counter.cases += 30

  const limited = await buildReliabilityApp({ deleteLimit: 2 })
  t.teardown(() => limited.close())
  const statuses: number[] = []
  for (let i = 1; i <= 4; i++) {
    const res = await limited.inject({
      method: 'POST',
      url: `/v1/books/${i}`,
      headers: { ...WRITE, 'x-http-method-override': 'DELETE' },
    })
    statuses.push(res.statusCode)
    if (res.statusCode === 429) t.same(errorFormProblems(res), [])
  }
  t.same(
    statuses,
    [204, 204, 429, 429],
    "the DELETE route's own limit (2/min) counts overridden POSTs",
  )
  const plainPost = await limited.inject({
    method: 'POST',
    url: '/v1/books',
    headers: JSON_TYPE,
    payload: '{"title":"N","year":1}',
  })
  t.equal(plainPost.statusCode, 201, 'a plain POST is not counted against the DELETE limit')
  counter.cases += 5
})

/**
 * Raw HTTP over a socket: writes `chunks` (with `gapMs` between them) and collects the reply
 * until the server closes the connection (every case here ends so), or `PATIENCE_MS` passed.
 */
function raw(
  port: number,
  chunks: string[],
  gapMs = 0,
  waitMs = PATIENCE_MS,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ port, host: '127.0.0.1' })
    let text = ''
    let closed = false
    const finish = () => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ text, closed })
    }
    const timer = setTimeout(finish, waitMs)
    socket.on('data', (d) => {
      text += d.toString('latin1')
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      closed = true
      finish()
    })
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return
        socket.write(chunk)
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs))
      }
    })
  })
}

function statusOf(text: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)
}

/** The responses in `text`, in order (each body is as long as its Content-Length). */
function responsesOf(text: string): Answer[] {
  const out: Answer[] = []
  let rest = text
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n')
    if (end === -1) break
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    out.push({
      statusCode: statusOf(statusLine),
      headers,
      body: rest.slice(end + 4, end + 4 + length),
    })
    rest = rest.slice(end + 4 + length)
  }
  return out
}

/** Form problems of every response in `text` (none: each 4xx is in restwell's error form). */
function wireFormProblems(text: string): string[] {
  const answers = responsesOf(text)
  return answers.length === 0 ? ['no response'] : answers.flatMap((a) => errorFormProblems(a))
}

test('over a socket: wrong Content-Length, oversize announcements, slow senders', async (t) => {
  // Node checks requestTimeout every connectionsCheckingInterval (30 s by default): a server
  // that wants slow senders cut promptly sets both, through serverFactory.
  const wire = await buildReliabilityApp({
    fastify: {
      requestTimeout: 1000,
      serverFactory: (handler) =>
        createServer({ requestTimeout: 1000, connectionsCheckingInterval: 100 }, handler),
    },
  })
  t.teardown(() => wire.close())
  const address = await wire.listen({ port: 0, host: '127.0.0.1' })
  const port = Number(new URL(address).port)
  const head = (length: number | string, extra = '') =>
    `POST /v1/books HTTP/1.1\r\nHost: x\r\nAuthorization: ${WRITE.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`
  const body = '{"title":"W","year":1}'

  // The bytes past Content-Length are read as the next request, which the HTTP parser refuses:
  // the app's clientErrorHandler (@restwell/errors) answers 400 in the error form, with a
  // fresh requestId (no request exists), and closes the connection.
  const short = await raw(port, [head(5) + body])
  t.equal(statusOf(short.text), 400, 'Content-Length shorter than the body: 400')
  t.same(wireFormProblems(short.text), [], 'both answers in the error form')
  t.ok(short.closed, 'and the connection is closed')

  const long = await raw(port, [head(body.length + 50) + body])
  t.equal(
    statusOf(long.text),
    408,
    'Content-Length longer than the body: the request times out (requestTimeout 1 s), 408',
  )
  t.same(wireFormProblems(long.text), [], 'in the error form')
  t.ok(long.closed, 'and the connection is closed')

  const huge = await raw(port, [head(50 * 1024 * 1024)])
  t.equal(
    statusOf(huge.text),
    413,
    'a 50 MB Content-Length is refused before any body byte arrives',
  )
  t.match(huge.text, /"code":"PAYLOAD_TOO_LARGE"/)

  const bad = await raw(port, [head('12abc') + body])
  t.equal(statusOf(bad.text), 400, 'a malformed Content-Length is a 400 from the HTTP parser')
  t.same(wireFormProblems(bad.text), [], 'in the error form')

  const both = await raw(port, [head(body.length, 'Transfer-Encoding: chunked\r\n') + body])
  t.equal(
    statusOf(both.text),
    400,
    'Content-Length with Transfer-Encoding (smuggling shape) is refused',
  )
  t.same(wireFormProblems(both.text), [], 'in the error form')

  // A slowloris: one header byte every 150 ms. Meanwhile other clients are served.
  const request = `GET /v1/books/3 HTTP/1.1\r\nHost: x\r\nAuthorization: ${READ.authorization}\r\nX-Slow: ${'a'.repeat(40)}\r\n\r\n`
  const slow = raw(port, request.split(''), 150)
  const others = await Promise.all(
    Array.from({ length: 5 }, () => fetch(`${address}/v1/books/3`, { headers: READ })),
  )
  t.same(
    others.map((r) => r.status),
    [200, 200, 200, 200, 200],
    'other clients are served while the slow one dribbles',
  )
  const slowResult = await slow
  t.equal(statusOf(slowResult.text), 408, 'the slow sender gets 408 once requestTimeout passes')
  t.same(wireFormProblems(slowResult.text), [], 'in the error form')
  t.ok(slowResult.closed)

  // A slow body: headers at once, then one body byte every 150 ms.
  const slowBody = await raw(port, [head(body.length), ...body.split('')], 150)
  t.equal(statusOf(slowBody.text), 408, 'a body dribbled past requestTimeout: 408')
  t.same(wireFormProblems(slowBody.text), [], 'in the error form')

  const after = await fetch(`${address}/v1/books/3`, { headers: READ })
  t.equal(after.status, 200, 'the server still serves')
  t.same(prototypeProblems(), [])
  counter.cases += 14
})
