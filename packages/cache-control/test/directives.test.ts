import fc from 'fast-check'
import { test } from 'tap'
import {
  formatCacheControl,
  isSharedCacheControl,
  isSharedPolicy,
  MAX_CACHE_CONTROL_LENGTH,
  MAX_DELTA_SECONDS,
  MAX_DIRECTIVES,
  parseCacheControl,
} from '../src/index.js'

test('formatCacheControl: the defaults', async (t) => {
  t.equal(formatCacheControl({}), 'private, no-cache', 'revalidate-always, private')
  t.equal(formatCacheControl({ public: true }), 'public, no-cache')
  t.equal(formatCacheControl({ private: true }), 'private, no-cache')
  t.equal(formatCacheControl({ maxAge: 60 }), 'private, max-age=60', 'a lifetime drops no-cache')
  t.equal(formatCacheControl({ public: true, maxAge: 60 }), 'public, max-age=60')
  t.equal(formatCacheControl({ sMaxAge: 600 }), 's-maxage=600', 's-maxage alone is shareable')
  t.equal(formatCacheControl({ sMaxAge: 600, private: true }), 'private, s-maxage=600')
  t.equal(formatCacheControl({ maxAge: 60, noCache: true }), 'private, no-cache, max-age=60')
  t.equal(formatCacheControl({ noCache: false }), 'private')
})

test('formatCacheControl: an explicit private: false is honoured (shareable, RFC 9111 §3)', async (t) => {
  t.equal(formatCacheControl({ private: false }), 'no-cache', 'was "private, no-cache"')
  t.equal(formatCacheControl({ private: false, maxAge: 60 }), 'max-age=60')
  t.equal(formatCacheControl({ private: false, public: true }), 'public, no-cache')
  t.equal(formatCacheControl({ private: false, sMaxAge: 5 }), 's-maxage=5')
  t.equal(isSharedPolicy({ private: false }), true, 'a shared cache may store it')
  t.equal(isSharedPolicy({ private: false, noStore: true }), false)
})

test('formatCacheControl: no-store stands alone', async (t) => {
  t.equal(formatCacheControl({ noStore: true }), 'no-store')
  t.equal(formatCacheControl({ noStore: true, public: true, maxAge: 9 }), 'no-store')
  t.equal(formatCacheControl({ noStore: false }), 'private, no-cache')
})

test('formatCacheControl: every directive, in a fixed order', async (t) => {
  t.equal(
    formatCacheControl({
      public: true,
      noCache: true,
      maxAge: 60,
      sMaxAge: 120,
      mustRevalidate: true,
      proxyRevalidate: true,
      staleWhileRevalidate: 30,
      staleIfError: 86400,
      immutable: true,
      noTransform: true,
    }),
    'public, no-cache, max-age=60, s-maxage=120, must-revalidate, proxy-revalidate, stale-while-revalidate=30, stale-if-error=86400, immutable, no-transform',
  )
  t.equal(
    formatCacheControl({ public: true, maxAge: 0, immutable: false, mustRevalidate: false }),
    'public, max-age=0',
  )
})

test('formatCacheControl: impossible policies throw a TypeError', async (t) => {
  t.throws(() => formatCacheControl({ public: true, private: true }), TypeError)
  t.throws(() => formatCacheControl({ maxAge: -1 }), /max-age must be an integer/)
  t.throws(() => formatCacheControl({ sMaxAge: 1.5 }), /s-maxage/)
  t.throws(() => formatCacheControl({ staleWhileRevalidate: Number.NaN }), /stale-while-revalidate/)
  t.throws(() => formatCacheControl({ staleIfError: MAX_DELTA_SECONDS + 1 }), /stale-if-error/)
  t.equal(
    formatCacheControl({ maxAge: MAX_DELTA_SECONDS }),
    `private, max-age=${MAX_DELTA_SECONDS}`,
  )
})

test('isSharedPolicy', async (t) => {
  t.equal(isSharedPolicy({}), false)
  t.equal(isSharedPolicy({ maxAge: 5 }), false)
  t.equal(isSharedPolicy({ public: true }), true)
  t.equal(isSharedPolicy({ sMaxAge: 5 }), true)
  t.equal(isSharedPolicy({ sMaxAge: 5, private: true }), false)
  t.equal(isSharedPolicy({ public: true, noStore: true }), false)
})

test('parseCacheControl reads directives, arguments and quoted strings', async (t) => {
  const parsed = parseCacheControl(
    'Public, MAX-AGE=60 ,s-maxage="120", private="set-cookie, x-a", no-cache, ext="a\\"b"',
  )
  t.same(
    [...parsed],
    [
      ['public', ''],
      ['max-age', '60'],
      ['s-maxage', '120'],
      ['private', 'set-cookie, x-a'],
      ['no-cache', ''],
      ['ext', 'a"b'],
    ],
  )
  t.same(
    [...parseCacheControl(['no-store', 'max-age=1'])],
    [
      ['no-store', ''],
      ['max-age', '1'],
    ],
  )
  t.same([...parseCacheControl('max-age=1, max-age=2')], [['max-age', '1']], 'the first one wins')
})

test('parseCacheControl skips malformed members and never throws', async (t) => {
  t.same([...parseCacheControl('max-age=, public')], [['public', '']], 'empty argument')
  t.same([...parseCacheControl('max-age="12, public')], [], 'unclosed quote eats the rest')
  t.same([...parseCacheControl('no cache, private')], [['private', '']], 'junk after a token')
  t.same([...parseCacheControl('=1, @x, public')], [['public', '']], 'no name')
  t.same([...parseCacheControl('a="x" y, b')], [['b', '']], 'junk after a quoted string')
  t.same([...parseCacheControl('ext="ends with \\')], [], 'a trailing backslash')
  t.same([...parseCacheControl(undefined)], [])
  t.same([...parseCacheControl(42)], [])
  t.same([...parseCacheControl([1, 'public'])], [['public', '']])
  t.same([...parseCacheControl(',,  ,\t')], [])
})

test('parseCacheControl bounds the directives and the length it reads', async (t) => {
  const many = Array.from({ length: MAX_DIRECTIVES + 10 }, (_, i) => `d${i}`).join(', ')
  t.equal(parseCacheControl(many).size, MAX_DIRECTIVES)
  const long = `${'x'.repeat(MAX_CACHE_CONTROL_LENGTH)}, public`
  t.equal(parseCacheControl(long).has('public'), false)
})

test('isSharedCacheControl', async (t) => {
  t.equal(isSharedCacheControl(parseCacheControl('public, max-age=5')), true)
  t.equal(
    isSharedCacheControl(parseCacheControl('max-age=5')),
    true,
    'storable from anonymous requests',
  )
  t.equal(isSharedCacheControl(parseCacheControl('private, max-age=5')), false)
  t.equal(isSharedCacheControl(parseCacheControl('private="set-cookie", max-age=5')), true)
  t.equal(isSharedCacheControl(parseCacheControl('public, no-store')), false)
})

test('property: parseCacheControl never throws, stays bounded, reads back what format wrote', async (t) => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.array(fc.string())), (value) => {
      const parsed = parseCacheControl(value)
      return parsed.size <= MAX_DIRECTIVES
    }),
  )
  const seconds = fc.option(fc.integer({ min: 0, max: MAX_DELTA_SECONDS }), { nil: undefined })
  const flag = fc.option(fc.boolean(), { nil: undefined })
  fc.assert(
    fc.property(
      fc.record({
        public: flag,
        private: flag,
        noCache: flag,
        noStore: flag,
        maxAge: seconds,
        sMaxAge: seconds,
        staleWhileRevalidate: seconds,
        staleIfError: seconds,
        immutable: flag,
        mustRevalidate: flag,
      }),
      (directives) => {
        // Refused (a TypeError), tested above.
        if (directives.public === true && directives.private === true) return true
        const parsed = parseCacheControl(formatCacheControl(directives))
        if (directives.noStore === true) return parsed.size === 1 && parsed.has('no-store')
        return (
          isSharedCacheControl(parsed) === isSharedPolicy(directives) &&
          parsed.get('max-age') ===
            (directives.maxAge === undefined ? undefined : String(directives.maxAge))
        )
      },
    ),
  )
  t.pass('properties hold')
})

test('property: parseCacheControl is linear on hostile input', async (t) => {
  const hostile = [
    '"'.repeat(100_000),
    'a='.repeat(50_000),
    'a="\\'.repeat(30_000),
    ', '.repeat(50_000),
    'x'.repeat(100_000),
  ]
  for (const value of hostile) {
    const start = performance.now()
    parseCacheControl(value)
    t.ok(performance.now() - start < 200, `${value.slice(0, 6)}… read quickly`)
  }
})
