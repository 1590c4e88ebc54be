/**
 * Hostile headers and query parameters against the umbrella with every plugin on: generated and
 * mutated values of every header restwell parses, and of every query parameter it reads. No
 * answer is a 5xx; every 4xx is in the configured error form; and very large values (100 KB
 * headers, 10 000-element lists) finish — a parser that backtracked or did quadratic work on
 * them would not finish within tap's timeout. Timings are not asserted (the benchmark measures
 * speed); the bounds each parser applies are listed in README.md.
 */
import { request as httpRequest } from 'node:http'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import { buildReliabilityApp, READ, TOKENS, WRITE } from './app.js'
import { type Answer, errorFormProblems } from './form.js'
import { type Counter, headerSafe, junk, mutated, send } from './hostile.js'

const RUNS = Number(process.env.RELIABILITY_RUNS ?? 1000)
const counter: Counter = { cases: 0, statuses: new Map() }
let app: FastifyInstance
let cursor = ''

tap.before(async () => {
  app = await buildReliabilityApp()
  const page = await app.inject({ url: '/v1/authors?limit=3', headers: READ })
  const next = (page.json() as { links: { next: string } }).links.next
  cursor = new URL(next, 'http://x').searchParams.get('cursor') ?? ''
})
tap.teardown(async () => {
  await app.close()
  const statuses = [...counter.statuses!].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`)
  tap.comment(`hostile-headers: ${counter.cases} requests sent; statuses ${statuses.join(' ')}`)
})

const SEEDS = {
  accept: [
    'application/json',
    'application/xml',
    'application/hal+json;q=0.9, application/vnd.api+json',
    'application/vnd.siren+json; q=1.0',
    '*/*;q=0.1',
    'text/html',
    'application/*',
    '*; q=.2',
    'application/vnd.api.v1+json',
    'application/vnd.api.v2+json;q=0.5, application/vnd.api.v1+json',
    'application/vnd.api.v3+json',
    'application/json;q=0, application/xml',
    'application/json; charset=utf-8',
  ],
  'accept-language': ['en', 'de-CH, fr;q=0.5', '*', 'en-US;q=0', 'zz-ZZ', 'de;q=1.0, *;q=0'],
  'accept-charset': ['utf-8', 'iso-8859-1', '*;q=0', 'utf-8;q=0, *', 'UTF-8;q=0.9'],
  'accept-encoding': [
    'gzip',
    'br;q=1, gzip;q=0.5',
    'identity;q=0',
    '*;q=0',
    'deflate, x-unknown',
    'gzip;q=0, *',
  ],
  'if-none-match': ['"1"', 'W/"1"', '*', '"1", "2"', '"a""b"', 'W/', '"unterminated', '"2", W/"3"'],
  'if-match': ['"1"', 'W/"1"', '*', '"1", "2"', '"nope"', '"', 'W/"2"'],
  date: [
    'Sun, 06 Nov 1994 08:49:37 GMT',
    'Sunday, 06-Nov-94 08:49:37 GMT',
    'Sun Nov  6 08:49:37 1994',
    'Thu, 01 Jan 2099 00:00:00 GMT',
    'Mon, 32 Foo 2020 25:61:61 GMT',
    'yesterday',
    '0',
  ],
  'if-range': ['"1"', 'W/"1"', 'Sun, 06 Nov 1994 08:49:37 GMT', '"2"', 'garbage'],
  range: [
    'bytes=0-5',
    'bytes=-5',
    'bytes=5-',
    'bytes=0-0,2-3',
    'bytes=999999-',
    'items=0-5',
    'bytes=5-1',
    'bytes=00000000000000000000001-2',
    'bytes=0-1,0-1,0-1',
    'bytes=-0',
  ],
  override: [
    'PUT',
    'PATCH',
    'DELETE',
    'TRACE',
    'CONNECT',
    'GET',
    'put',
    'PUT, DELETE',
    'OPTIONS',
    'HEAD',
  ],
  authorization: [
    `Bearer ${TOKENS.write}`,
    `Bearer ${TOKENS.read}`,
    'Basic dXNlcjpwYXNz',
    'Bearer',
    `Bearer  ${TOKENS.read}`,
    `bearer ${TOKENS.read}`,
    'Bearer a.b.c==',
    'Bearer ====',
    'Negotiate x',
  ],
  'x-request-id': [
    'abc',
    'req-1',
    '0a93b811-d7a2-47fb-8ac2-0c5b836e9894',
    'a b',
    '<script>',
    'x'.repeat(200),
  ],
  'content-type': [
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=latin1',
    'application/merge-patch+json',
    'application/json-patch+json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json;;',
    'application/json; charset="utf-8"',
  ],
} as const

const GET_PATHS = [
  '/v1/books',
  '/v1/books/3',
  '/v2/books/3',
  '/books/3',
  '/books',
  '/v1/authors',
  '/v3/books',
  '/v0/books/1',
  '/jobs/0a93b811-d7a2-47fb-8ac2-0c5b836e9894',
  '/v1/books/3/x',
  '/v1/books/99999',
  '/nope',
]

/** Every read header, each present or not, valid, mutated or junk. */
const readHeaders = fc.record(
  {
    accept: mutated(SEEDS.accept),
    'accept-language': mutated(SEEDS['accept-language']),
    'accept-charset': mutated(SEEDS['accept-charset']),
    'accept-encoding': mutated(SEEDS['accept-encoding']),
    'if-none-match': mutated(SEEDS['if-none-match']),
    'if-modified-since': mutated(SEEDS.date),
    'if-range': mutated(SEEDS['if-range']),
    range: mutated(SEEDS.range),
    'x-request-id': mutated(SEEDS['x-request-id']),
  },
  { requiredKeys: [] },
)

function clean(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = headerSafe(v)
  return out
}

test('GET and HEAD with generated and mutated read headers: no 5xx, errors in the error form', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...GET_PATHS),
      fc.constantFrom('GET', 'HEAD'),
      readHeaders,
      fc.oneof(
        { weight: 9, arbitrary: fc.constant(READ.authorization) },
        { weight: 1, arbitrary: mutated(SEEDS.authorization) },
      ),
      async (url, method, headers, authorization) => {
        await send(app, counter, { method, url, headers: clean({ ...headers, authorization }) })
      },
    ),
    { numRuns: RUNS * 2, includeErrorInReport: true },
  )
  t.pass(`${RUNS * 2} generated read requests`)
})

test('writes with generated Content-Type, If-Match, If-Unmodified-Since, override and bodies', async (t) => {
  const bodies = fc.oneof(
    fc.constant('{"title":"T","year":2000}'),
    fc.constant('{"title":"T2"}'),
    fc.constant('[{"op":"replace","path":"/title","value":"X"}]'),
    fc.constant('title=T&year=2000'),
    fc.constant(''),
    mutated([
      '{"title":"T","year":2000,"tags":["a"]}',
      '[{"op":"add","path":"/tags/-","value":"z"}]',
    ]),
  )
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
      fc.constantFrom(
        '/v1/books',
        '/v1/books/3',
        '/v1/books/4',
        '/v1/exports',
        '/books/3',
        ...Array.from({ length: 20 }, (_, i) => `/v1/books/${i + 5}`),
      ),
      fc.record(
        {
          'content-type': mutated(SEEDS['content-type']),
          'if-match': mutated(SEEDS['if-match']),
          'if-none-match': mutated(SEEDS['if-none-match']),
          'if-unmodified-since': mutated(SEEDS.date),
          'x-http-method-override': mutated(SEEDS.override),
          accept: mutated(SEEDS.accept),
          'x-request-id': mutated(SEEDS['x-request-id']),
        },
        { requiredKeys: [] },
      ),
      fc.oneof(
        { weight: 9, arbitrary: fc.constant(WRITE.authorization) },
        { weight: 1, arbitrary: mutated(SEEDS.authorization) },
      ),
      bodies,
      async (method, url, headers, authorization, payload) => {
        const h = clean({ ...headers, authorization })
        await send(app, counter, {
          method: method as 'POST',
          url,
          headers: h,
          ...(payload === '' ? {} : { payload }),
        })
      },
    ),
    { numRuns: RUNS * 2, includeErrorInReport: true },
  )
  t.pass(`${RUNS * 2} generated write requests`)
})

test('generated query parameters: page, limit, sort, filters, format, version, _method, cursor', async (t) => {
  const numberish = mutated([
    '1',
    '2',
    '0',
    '-1',
    '50',
    '51',
    '1.5',
    '1e2',
    '0x10',
    '',
    '9007199254740993',
    ' 3',
  ])
  const params = fc.record(
    {
      page: numberish,
      limit: numberish,
      sort: mutated([
        'title',
        '-year',
        'title,-id',
        'nope',
        '-',
        ',',
        '--title',
        'title,title',
        '+year',
      ]),
      year: numberish,
      title: mutated(['Book 001', '', 'x'.repeat(201)]),
      tag: fc.array(mutated(['odd', 'even', '']), { maxLength: 5 }),
      format: mutated(['json', 'xml', 'hal', 'jsonapi', 'siren', 'choices', 'XML', 'csv']),
      version: mutated(['1', '2', '3', '01', '-1', 'v1', '1.0']),
      _method: mutated(SEEDS.override),
      cursor: fc.oneof(fc.constant('CURSOR'), mutated(['CURSOR', 'abc', '', 'eyJ9'])),
      deleted: mutated(['include', 'only', 'no']),
      unknown: junk,
    },
    { requiredKeys: [] },
  )
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('/v1/books', '/v1/authors', '/v1/books/3', '/books', '/v2/books/3'),
      fc.constantFrom('GET', 'GET', 'GET', 'POST'),
      params,
      fc.boolean(),
      async (path, method, query, rawPercent) => {
        const parts: string[] = []
        for (const [name, value] of Object.entries(query)) {
          const values = Array.isArray(value) ? value : [value]
          for (const v of values) {
            const text = v === 'CURSOR' ? cursor : v.replace('CURSOR', cursor.slice(0, 20))
            parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(text)}`)
          }
        }
        // Malformed percent-escapes and bare separators, as a hostile client sends them.
        if (rawPercent) parts.push('sort=%E0%A4%A', '%zz=1', '&&', '=', 'limit=%')
        const url = parts.length === 0 ? path : `${path}?${parts.join('&')}`
        const headers = method === 'POST' ? { ...WRITE, 'content-type': 'application/json' } : READ
        await send(app, counter, {
          method: method as 'GET',
          url,
          headers,
          ...(method === 'POST' ? { payload: '{}' } : {}),
        })
      },
    ),
    { numRuns: RUNS * 2, includeErrorInReport: true },
  )
  t.pass(`${RUNS * 2} generated query strings`)
})

test('generated Authorization values on a protected route: 400/401/403, never 5xx', async (t) => {
  const statuses = new Set<number>()
  await fc.assert(
    fc.asyncProperty(
      mutated(SEEDS.authorization),
      fc.constantFrom('GET', 'POST'),
      async (authorization, method) => {
        const status = await send(app, counter, {
          method: method as 'GET',
          url: method === 'GET' ? '/v1/books/3' : '/v1/books',
          headers: { authorization: headerSafe(authorization), 'content-type': 'application/json' },
          payload: method === 'POST' ? '{"title":"A","year":1}' : undefined,
        })
        statuses.add(status)
      },
    ),
    { numRuns: RUNS, includeErrorInReport: true },
  )
  t.ok(statuses.has(401) && statuses.has(400), `statuses seen: ${[...statuses].sort().join(', ')}`)
})

/** ~100 KB values built to make a backtracking or quadratic parser blow up. */
const BIG = 100_000
function fill(piece: string, prefix = ''): string {
  return prefix + piece.repeat(Math.ceil((BIG - prefix.length) / piece.length))
}
const HUGE_HEADERS: Record<string, string> = {
  accept: fill('application/json;q=0.5;a=b,'),
  'accept-language': fill('en-US;q=0.5,'),
  'accept-charset': fill('utf-8;q=0.1,'),
  'accept-encoding': fill('gzip;q=0.5,'),
  'if-none-match': fill('"aaaaaaaa",'),
  'if-match': fill('W/"x",'),
  'if-modified-since': fill(' ', 'Sun, 06 Nov 1994 08:49:37 GMT'),
  'if-unmodified-since': fill('1'),
  'if-range': fill('"', 'W/'),
  range: fill('0-1,', 'bytes='),
  'x-http-method-override': fill('PUT,'),
  authorization: fill('a', 'Bearer '),
  'x-request-id': fill('a'),
  'content-type': fill(';a=b', 'application/json'),
}

test('100 KB values of every header: answered (bounded work), no 5xx, errors in the error form', async (t) => {
  const unbalanced: Record<string, string> = {
    accept: fill('"', 'application/json;a='), // an unterminated quoted-string
    'if-none-match': fill('\\"', '"'), // escapes that never close
    'accept-language': fill('-a'),
    range: fill('-', 'bytes=0'),
  }
  for (const [name, value] of [...Object.entries(HUGE_HEADERS), ...Object.entries(unbalanced)]) {
    for (const [method, url] of [
      ['GET', '/v1/books/3'],
      ['POST', '/v1/books/3'],
      ['PATCH', '/v1/books/4'],
    ] as const) {
      const headers: Record<string, string> = {
        ...WRITE,
        'content-type': 'application/merge-patch+json',
        [name]: value,
      }
      const status = await send(app, counter, {
        method,
        url,
        headers,
        payload: method === 'GET' ? undefined : '{"title":"Z"}',
      })
      t.ok(status < 500, `${name} (${value.length} bytes) on ${method} ${url}: ${status}`)
    }
  }
})

test('10 000-element lists in headers and the query: bounded, no 5xx', async (t) => {
  const n = 10_000
  const lists: Record<string, string> = {
    accept: Array.from({ length: n }, (_, i) => `application/x-${i};q=0.${i % 10}`).join(','),
    'if-none-match': Array.from({ length: n }, (_, i) => `"t${i}"`).join(', '),
    range: `bytes=${Array.from({ length: n }, (_, i) => `${i}-${i + 1}`).join(',')}`,
    'accept-language': Array.from({ length: n }, (_, i) => `x${i % 100}-y;q=0.5`).join(','),
    'accept-encoding': Array.from({ length: n }, (_, i) => `c${i}`).join(','),
  }
  for (const [name, value] of Object.entries(lists)) {
    const status = await send(app, counter, {
      url: '/v1/books/3',
      headers: { ...READ, [name]: value },
    })
    t.ok(status < 500, `${name} with ${n} elements: ${status}`)
  }
  const queries = [
    Array.from({ length: n }, (_, i) => `tag=t${i}`).join('&'),
    `sort=${Array.from({ length: n }, () => 'title').join(',')}`,
    Array.from({ length: n }, (_, i) => `p${i}=1`).join('&'),
    Array.from({ length: n }, () => 'version=1').join('&'),
    Array.from({ length: n }, () => '_method=PUT').join('&'),
    `cursor=${'A'.repeat(BIG)}`,
    `page=${'9'.repeat(BIG)}`,
  ]
  for (const query of queries) {
    for (const method of ['GET', 'POST'] as const) {
      const status = await send(app, counter, {
        method,
        url: `/v1/books?${query}`,
        headers: { ...WRITE, 'content-type': 'application/json' },
        payload: method === 'POST' ? '{"title":"Q","year":1}' : undefined,
      })
      t.ok(status < 500, `${method} ?${query.slice(0, 30)}… (${query.length} chars): ${status}`)
    }
  }
  const cursorStatus = await send(app, counter, {
    url: `/v1/authors?cursor=${'A'.repeat(BIG)}`,
    headers: READ,
  })
  t.equal(cursorStatus, 400, 'a 100 KB cursor is refused without being decoded')
})

test('on the wire, a header section over 16 KB is 431 in the error form, and the next is served', async (t) => {
  const wire = await buildReliabilityApp()
  t.teardown(() => wire.close())
  const address = await wire.listen({ port: 0, host: '127.0.0.1' })
  const { port } = new URL(address)
  const answer = await new Promise<Answer>((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/v1/books/3',
      headers: { ...READ, accept: HUGE_HEADERS.accept },
    })
    req.on('response', (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
  counter.cases++
  // Node's parser refuses it before Fastify routes it; the clientErrorHandler of
  // @restwell/errors answers in the structured form (a fresh requestId, Connection: close).
  t.equal(answer.statusCode, 431, 'Request Header Fields Too Large, before any route runs')
  t.same(errorFormProblems(answer), [], 'in the error form')
  t.equal(
    (JSON.parse(answer.body) as { error: { code: string } }).error.code,
    'REQUEST_HEADER_FIELDS_TOO_LARGE',
  )
  t.equal(answer.headers.connection, 'close')
  const ok = await fetch(`${address}/v1/books/3`, { headers: READ })
  counter.cases++
  t.equal(ok.status, 200, 'the next request is served')
})
