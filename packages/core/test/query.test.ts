import { BODY_BYTES, QUERY_KEY_PREFIX, queryContentKey } from '@restwell/core/internal'
import fc from 'fast-check'
import { test } from 'tap'

const json = { 'content-type': 'application/json' }

test('queryContentKey: only a QUERY has one', async (t) => {
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
    t.equal(queryContentKey({ method, body: { q: 1 }, headers: json }), undefined, method)
  }
  const key = queryContentKey({ method: 'QUERY', body: { q: 1 }, headers: json })
  t.ok(key?.startsWith(QUERY_KEY_PREFIX))
  t.match(key, /^q\.[A-Za-z0-9_-]{27}$/, 'an entity-tag can carry it')
})

test('queryContentKey: the same content gives the same key, other content another', async (t) => {
  const of = (body: unknown, type?: string) =>
    queryContentKey({ method: 'QUERY', body, headers: { 'content-type': type } })
  t.equal(of({ q: 'a' }, 'application/json'), of({ q: 'a' }, 'application/json'))
  t.not(of({ q: 'a' }, 'application/json'), of({ q: 'b' }, 'application/json'))
  t.equal(of('select *', 'text/plain'), of(Buffer.from('select *'), 'text/plain'), 'text as bytes')
  t.equal(of('x', ' Text/Plain '), of('x', 'text/plain'), 'the media type in any case')
  t.not(of('1', 'text/plain'), of(1, 'application/json'), 'the media type tells them apart')
  t.equal(of(undefined), of(null), 'no body: no bytes')
  t.equal(of(undefined), of(''))
  // What JSON cannot write (an app's own parser may make it) is still told apart.
  const cycle: Record<string, unknown> = { a: 1 }
  cycle.self = cycle
  t.match(of(cycle), /^q\./)
  t.not(of({ n: 1n }), of({ n: 2n }), 'BigInts')
  t.not(of(Symbol('x')), of(''), 'a value JSON writes as nothing')
  t.not(of('', 'application/json'), of(null, 'application/json'), 'the JSON "" is content')
  t.not(
    of('', 'application/ld+json; charset=utf-8'),
    of(null, 'application/ld+json; charset=utf-8'),
  )
  t.equal(
    of('', 'text/plain; charset=utf-8'),
    of(null, 'text/plain; charset=utf-8'),
    'empty text is none',
  )
})

test('queryContentKey: the bytes a parser kept, hashed once per request', async (t) => {
  const bytes = Buffer.from('{ "q":  "a" }')
  const request = { method: 'QUERY', body: { q: 'a' }, headers: json, [BODY_BYTES]: bytes }
  const key = queryContentKey(request)
  t.equal(
    key,
    queryContentKey({ method: 'QUERY', body: bytes, headers: json }),
    'the bytes as sent, not the value written again',
  )
  t.not(key, queryContentKey({ method: 'QUERY', body: { q: 'a' }, headers: json }))
  request.body = { q: 'changed by a handler' }
  t.equal(queryContentKey(request), key, 'made once: later steps read the same key')
  const early: { method: string; headers: typeof json; body?: unknown } = {
    method: 'QUERY',
    headers: json,
  }
  const none = queryContentKey(early)
  early.body = { q: 'a' }
  t.not(queryContentKey(early), none, 'asked before the body is read, it is made again once it is')
})

test('queryContentKey: two different JSON bodies never share a key (property)', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      const ka = queryContentKey({ method: 'QUERY', body: a, headers: json })
      const kb = queryContentKey({ method: 'QUERY', body: b, headers: json })
      return (JSON.stringify(a) === JSON.stringify(b)) === (ka === kb)
    }),
    { numRuns: 300 },
  )
  t.pass()
})
