import fc from 'fast-check'
import { test } from 'tap'
import {
  type ConditionalHeaders,
  type CurrentValidators,
  evaluateIfRange,
  evaluatePreconditions,
  hasPrecondition,
  isSafeReadMethod,
} from '../src/index.js'
import { checksStoredState, isConditional, readPreconditions } from '../src/preconditions.js'

const T = Date.UTC(2024, 4, 1, 10)
const AT = 'Wed, 01 May 2024 10:00:00 GMT'
const BEFORE = 'Tue, 30 Apr 2024 10:00:00 GMT'
const current: CurrentValidators = {
  etag: { weak: false, opaque: '"v3"' },
  lastModified: T,
  exists: true,
}

test('§13.2.2 step 1: If-Match (strong) decides before everything else', async (t) => {
  t.same(evaluatePreconditions('PUT', { 'if-match': '"v2"', 'if-none-match': '"x"' }, current), {
    result: 'failed',
    field: 'if-match',
  })
  t.same(
    evaluatePreconditions('PUT', { 'if-match': '"v3"', 'if-unmodified-since': BEFORE }, current),
    {
      result: 'proceed',
    },
    'If-Unmodified-Since is not evaluated when If-Match is present',
  )
  t.same(evaluatePreconditions('PUT', { 'if-match': '*' }, { exists: false }), {
    result: 'failed',
    field: 'if-match',
  })
  t.same(evaluatePreconditions('PUT', { 'if-match': '*' }, { exists: true }), { result: 'proceed' })
  t.same(
    evaluatePreconditions('PUT', { 'if-match': '"v3"' }, { exists: true }),
    {
      result: 'failed',
      field: 'if-match',
    },
    'no current ETag: no tag matches',
  )
  t.same(
    evaluatePreconditions('PUT', { 'if-match': 'garbage' }, current),
    {
      result: 'failed',
      field: 'if-match',
    },
    'a malformed If-Match matches nothing',
  )
})

test('§13.2.2 step 2: If-Unmodified-Since only without If-Match', async (t) => {
  t.same(evaluatePreconditions('DELETE', { 'if-unmodified-since': BEFORE }, current), {
    result: 'failed',
    field: 'if-unmodified-since',
  })
  t.same(evaluatePreconditions('DELETE', { 'if-unmodified-since': AT }, current), {
    result: 'proceed',
  })
  t.same(evaluatePreconditions('DELETE', { 'if-unmodified-since': 'junk' }, current), {
    result: 'proceed',
  })
  t.same(evaluatePreconditions('DELETE', { 'if-unmodified-since': BEFORE }, { exists: true }), {
    result: 'proceed',
  })
})

test('§13.2.2 step 3: If-None-Match (weak) → 304 for GET/HEAD, 412 otherwise', async (t) => {
  t.same(evaluatePreconditions('GET', { 'if-none-match': 'W/"v3"' }, current), {
    result: 'not-modified',
    etag: current.etag,
  })
  t.same(
    evaluatePreconditions(
      'HEAD',
      { 'if-none-match': '"v3-gzip"', 'accept-encoding': 'gzip, br' },
      current,
    ),
    { result: 'not-modified', etag: { weak: false, opaque: '"v3-gzip"' } },
  )
  // An encoded copy's tag matches on GET/HEAD only when the request takes that coding: the
  // 304 lets a cache send the copy it holds.
  for (const acceptEncoding of [undefined, '', 'identity', 'br', 'gzip;q=0', '*;q=0']) {
    t.same(
      evaluatePreconditions(
        'GET',
        { 'if-none-match': '"v3-gzip"', 'accept-encoding': acceptEncoding },
        current,
      ),
      { result: 'proceed' },
      `no 304 for the gzip copy with Accept-Encoding ${String(acceptEncoding)}`,
    )
  }
  t.same(
    evaluatePreconditions(
      'GET',
      { 'if-none-match': '"v3-br", "v3"', 'accept-encoding': 'gzip' },
      current,
    ),
    { result: 'not-modified', etag: current.etag },
    'of the copies held, the one the request takes',
  )
  t.same(
    evaluatePreconditions('PUT', { 'if-none-match': '"v3-gzip"' }, current),
    { result: 'failed', field: 'if-none-match' },
    'a write: the tag names the state, whatever the coding of the copy',
  )
  t.same(evaluatePreconditions('GET', { 'if-none-match': '*' }, { exists: true }), {
    result: 'not-modified',
    etag: undefined,
  })
  t.same(evaluatePreconditions('GET', { 'if-none-match': '*' }, { exists: false }), {
    result: 'proceed',
  })
  t.same(evaluatePreconditions('GET', { 'if-none-match': '"v3"' }, { exists: true }), {
    result: 'proceed',
  })
  t.same(evaluatePreconditions('PATCH', { 'if-none-match': '"v3"' }, current), {
    result: 'failed',
    field: 'if-none-match',
  })
  t.same(
    evaluatePreconditions('GET', { 'if-none-match': '"v2"', 'if-modified-since': AT }, current),
    { result: 'proceed' },
    'step 4 is skipped when If-None-Match is present',
  )
})

test('§13.2.2 step 4: If-Modified-Since for GET/HEAD only', async (t) => {
  t.same(evaluatePreconditions('GET', { 'if-modified-since': AT }, current), {
    result: 'not-modified',
    etag: current.etag,
  })
  t.same(evaluatePreconditions('GET', { 'if-modified-since': BEFORE }, current), {
    result: 'proceed',
  })
  t.same(evaluatePreconditions('PUT', { 'if-modified-since': AT }, current), { result: 'proceed' })
  t.same(evaluatePreconditions('GET', { 'if-modified-since': AT }, { exists: true }), {
    result: 'proceed',
  })
  t.same(evaluatePreconditions('GET', {}, current), { result: 'proceed' })
})

test('If-Range', async (t) => {
  const old = { etag: current.etag, lastModified: T }
  t.ok(evaluateIfRange(undefined, old))
  t.ok(evaluateIfRange('"v3"', old))
  t.notOk(evaluateIfRange('W/"v3"', old))
  t.notOk(evaluateIfRange('"v3-gzip"', old))
  t.notOk(evaluateIfRange('"v3", "v4"', old))
  t.notOk(evaluateIfRange('"v3"', { lastModified: T }))
  t.notOk(evaluateIfRange(['"v3"', '"v3"'], old))
  t.ok(evaluateIfRange(AT, old))
  t.notOk(evaluateIfRange(BEFORE, old))
  t.notOk(evaluateIfRange(AT, { etag: current.etag }))
  t.notOk(evaluateIfRange(AT, old, T + 500), 'a date less than a second old is weak')
})

test('helpers', async (t) => {
  t.ok(isSafeReadMethod('GET'))
  t.ok(isSafeReadMethod('HEAD'))
  t.notOk(isSafeReadMethod('POST'))
  t.notOk(hasPrecondition({}))
  t.ok(hasPrecondition({ 'if-unmodified-since': AT }))
  t.ok(hasPrecondition({ 'if-modified-since': AT }))
  t.notOk(hasPrecondition({ 'if-unmodified-since': 'x' }), 'an invalid date is ignored')
  t.notOk(hasPrecondition({ 'if-modified-since': AT }, 'PUT'), 'If-Modified-Since is for reads')
  t.ok(hasPrecondition({ 'if-match': '' }, 'PUT'), 'an If-Match is always evaluated')
})

test('only the preconditions the evaluation uses count (what requirePrecondition asks for)', async (t) => {
  for (const value of ['', '   ', ',', ' , ,', 'garbage']) {
    t.same(
      readPreconditions('PUT', { 'if-match': value }).ifMatch,
      [],
      `If-Match ${JSON.stringify(value)} is a list that matches nothing`,
    )
    t.same(
      evaluatePreconditions('PUT', { 'if-match': value }, current),
      { result: 'failed', field: 'if-match' },
      `If-Match ${JSON.stringify(value)} fails closed`,
    )
  }
  const ignored: Array<[string, ConditionalHeaders]> = [
    ['If-Modified-Since on a write (§13.1.3)', { 'if-modified-since': AT }],
    ['an invalid If-Unmodified-Since (§13.1.4)', { 'if-unmodified-since': 'garbage' }],
    ['an empty If-None-Match', { 'if-none-match': ' ' }],
    ['a malformed If-None-Match', { 'if-none-match': 'garbage, W/x' }],
  ]
  for (const [label, headers] of ignored) {
    const read = readPreconditions('PATCH', headers)
    t.notOk(isConditional(read), `${label} is no precondition`)
    t.notOk(checksStoredState(read, current))
  }
  t.same(readPreconditions('GET', { 'if-match': '"a"', 'if-unmodified-since': AT }), {
    ifMatch: [{ weak: false, opaque: '"a"' }],
    ifUnmodifiedSince: undefined,
    ifNoneMatch: undefined,
    ifModifiedSince: undefined,
  })
  const both = readPreconditions('GET', { 'if-none-match': '*', 'if-modified-since': AT })
  t.equal(both.ifNoneMatch, '*')
  t.equal(both.ifModifiedSince, undefined, 'If-Modified-Since is ignored beside If-None-Match')
  t.same(
    evaluatePreconditions('GET', { 'if-none-match': 'garbage', 'if-modified-since': AT }, current),
    { result: 'not-modified', etag: current.etag },
    'a malformed If-None-Match is as if absent: If-Modified-Since decides',
  )
  const since = readPreconditions('DELETE', { 'if-unmodified-since': AT })
  t.ok(checksStoredState(since, current))
  t.notOk(
    checksStoredState(since, { exists: true, etag: current.etag }),
    'If-Unmodified-Since checks nothing when the resource has no date',
  )
  t.ok(checksStoredState(readPreconditions('PUT', { 'if-none-match': '*' }), { exists: false }))
  t.ok(checksStoredState(readPreconditions('PUT', { 'if-match': '' }), { exists: false }))
})

test('property: evaluation never throws and 304 only answers GET/HEAD', async () => {
  const header = fc.option(
    fc.oneof(fc.string(), fc.constantFrom('*', '"v3"', 'W/"v3"', AT, BEFORE)),
    {
      nil: undefined,
    },
  )
  fc.assert(
    fc.property(
      fc.constantFrom('GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'POST'),
      header,
      header,
      header,
      header,
      fc.boolean(),
      (method, a, b, c, d, exists) => {
        const outcome = evaluatePreconditions(
          method,
          { 'if-match': a, 'if-none-match': b, 'if-modified-since': c, 'if-unmodified-since': d },
          exists ? current : { exists: false },
        )
        return outcome.result !== 'not-modified' || isSafeReadMethod(method)
      },
    ),
  )
})
