import fc from 'fast-check'
import { test } from 'tap'
import {
  bestVersion,
  compileMoved,
  deprecationValue,
  linkValue,
  MAX_ACCEPT_RANGES,
  movedLocation,
  parseAcceptVersions,
  parseQuality,
  parseVersionNumber,
  prefixVersion,
  sunsetValue,
  toDate,
  versionMediaType,
} from '../src/index.js'
import { askedVersions, MAX_NAMED_VERSIONS } from '../src/accept.js'

test('parseVersionNumber takes canonical integers only', async (t) => {
  t.equal(parseVersionNumber('0'), 0)
  t.equal(parseVersionNumber('12'), 12)
  t.equal(parseVersionNumber('999999999'), 999999999)
  for (const bad of ['', '01', '1.0', '+1', '-1', 'v1', '1a', '1234567890', ' 1']) {
    t.equal(parseVersionNumber(bad), undefined, JSON.stringify(bad))
  }
})

test('prefixVersion reads a /v<N> first segment', async (t) => {
  t.same(prefixVersion('/v1/books'), { version: 1, length: 3 })
  t.same(prefixVersion('/v12'), { version: 12, length: 4 })
  t.same(prefixVersion('/v2?x=1'), { version: 2, length: 3 })
  for (const url of [
    '/',
    '/books',
    '/vx/books',
    '/v/books',
    '/v1a/books',
    '/v01/x',
    '/V1/x',
    '/v12345678901/x',
    '',
  ]) {
    t.equal(prefixVersion(url), undefined, url)
  }
})

test('parseQuality follows the qvalue grammar', async (t) => {
  for (const [text, q] of [
    ['0', 0],
    ['1', 1],
    ['0.5', 0.5],
    ['0.125', 0.125],
    ['1.000', 1],
    ['1.', 1],
    ['0.', 0],
  ] as const) {
    t.equal(parseQuality(text), q, text)
  }
  for (const bad of ['', '2', '1.5', '0.1234', '.5', 'a', '0,5', '1.001']) {
    t.equal(parseQuality(bad), undefined, bad)
  }
})

test('parseAcceptVersions reads versions, qualities and other types', async (t) => {
  t.same(parseAcceptVersions('application/vnd.api.v2+json'), {
    versions: [{ version: 2, q: 1 }],
    other: false,
  })
  t.same(parseAcceptVersions(' Application/VND.API.V1+JSON ; Q=0.5 ; level=1 , */*;q=0'), {
    versions: [{ version: 1, q: 0.5 }],
    other: false,
  })
  t.same(parseAcceptVersions('text/html, application/vnd.api.vx+json, ,;q=1'), {
    versions: [],
    other: true,
  })
  t.same(parseAcceptVersions('application/vnd.api.v1+json;q=bad'), { versions: [], other: false })
  t.same(parseAcceptVersions(''), { versions: [], other: false })
  const many = Array.from({ length: MAX_ACCEPT_RANGES + 10 }, () => versionMediaType(1)).join(',')
  t.equal(parseAcceptVersions(many).versions.length, MAX_ACCEPT_RANGES)
})

test('bestVersion: highest q, then highest version, among supported with q > 0', async (t) => {
  const supported = (v: number): boolean => v === 1 || v === 2
  t.equal(
    bestVersion(
      [
        { version: 1, q: 0.9 },
        { version: 2, q: 0.5 },
      ],
      supported,
    ),
    1,
  )
  t.equal(
    bestVersion(
      [
        { version: 1, q: 0.5 },
        { version: 2, q: 0.5 },
      ],
      supported,
    ),
    2,
  )
  t.equal(
    bestVersion(
      [
        { version: 2, q: 0.5 },
        { version: 1, q: 0.5 },
      ],
      supported,
    ),
    2,
  )
  t.equal(
    bestVersion(
      [
        { version: 9, q: 1 },
        { version: 2, q: 0 },
      ],
      supported,
    ),
    undefined,
  )
  t.equal(bestVersion([], supported), undefined)
})

test('property: Accept parsing never throws and stays bounded', async (t) => {
  const piece = fc.constantFrom(
    'application/vnd.api.v',
    '1',
    '0',
    '+json',
    ';',
    'q=',
    '0.5',
    ',',
    ' ',
    '*/*',
    'x',
  )
  const header = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.array(piece, { maxLength: 80 }).map((p) => p.join('')),
  )
  fc.assert(
    fc.property(header, (h) => {
      const parsed = parseAcceptVersions(h)
      return (
        parsed.versions.length <= MAX_ACCEPT_RANGES &&
        parsed.versions.every((v) => Number.isInteger(v.version) && v.q >= 0 && v.q <= 1)
      )
    }),
  )
  // Found by this property: a first segment only counts after the path's leading slash.
  t.equal(prefixVersion(' v0'), undefined)
  t.equal(prefixVersion('xv1/books'), undefined)
  fc.assert(
    fc.property(fc.string({ maxLength: 30 }), (s) => {
      const v = prefixVersion(s)
      const n = parseVersionNumber(s)
      const q = parseQuality(s)
      return (
        (v === undefined || s.startsWith(`/v${v.version}`)) &&
        (n === undefined || String(n) === s) &&
        (q === undefined || (q >= 0 && q <= 1))
      )
    }),
  )
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 999_999_999 }), (n) => {
      const parsed = parseAcceptVersions(versionMediaType(n))
      return parseVersionNumber(String(n)) === n && parsed.versions[0]?.version === n
    }),
  )
  t.pass('properties held')
})

test('moved paths match at segment boundaries, longest first', async (t) => {
  const moved = compileMoved({ '/v1/a': '/v2/b/', '/v1/a/c': '/v3/c', '/v1': '/v2' })
  t.equal(movedLocation(moved, '/v1/a'), '/v2/b')
  t.equal(movedLocation(moved, '/v1/a/7'), '/v2/b/7')
  t.equal(movedLocation(moved, '/v1/a/c/1'), '/v3/c/1')
  t.equal(movedLocation(moved, '/v1/x'), '/v2/x')
  t.equal(movedLocation(moved, '/v10/x'), undefined)
  t.equal(
    movedLocation(compileMoved({ '/': '/v2' }), '/x'),
    undefined,
    'the root moves only itself',
  )
  t.equal(movedLocation(compileMoved({ '/': '/v2' }), '/'), '/v2')
})

test('a moved target / never makes a network-path Location (//host)', async (t) => {
  const moved = compileMoved({ '/old': '/' })
  t.equal(movedLocation(moved, '/old'), '/')
  t.equal(movedLocation(moved, '/old/'), '/')
  t.equal(movedLocation(moved, '/old/books'), '/books')
  t.equal(movedLocation(moved, '/old/evil.example/x'), '/evil.example/x')
  t.equal(movedLocation(moved, '/old//evil.example/x'), '/evil.example/x')
  t.equal(movedLocation(moved, '/old/\\evil.example/x'), '/evil.example/x', 'backslashes too')
  t.equal(movedLocation(moved, '/old/\t/\r\n/evil.example'), '/evil.example', 'tab, CR, LF too')
  t.equal(movedLocation(moved, '/old/a//b'), '/a//b', 'only the leading ones')
  t.equal(movedLocation(compileMoved({ '/': '/' }), '//evil.example'), '/evil.example')
  t.equal(movedLocation(compileMoved({ '/': '/v2' }), '//x'), '/v2/x')
})

test('property: no request path yields a Location starting with // or /\\', async (t) => {
  const piece = fc.constantFrom(
    '/',
    '\\',
    '\t',
    '\n',
    '\r',
    'old',
    'v1',
    'evil.example',
    '.',
    '..',
    '%2F',
    'x',
  )
  const path = fc.oneof(
    fc.array(piece, { maxLength: 12 }).map((p) => `/${p.join('')}`),
    fc.string({ maxLength: 40 }).map((s) => `/${s}`),
  )
  const maps = (
    [
      { '/old': '/' },
      { '/old/': '/', '/v1': '/v2' },
      { '/': '/' },
      { '/': '/v2', '/old/a': '/' },
    ] as Record<string, string>[]
  ).map((map) => compileMoved(map))
  fc.assert(
    fc.property(path, fc.constantFrom(...maps), (p, moved) => {
      const location = movedLocation(moved, p)
      if (location === undefined) return true
      // As a browser reads it (WHATWG URL removes every tab, LF and CR).
      const read = location.replace(/[\t\n\r]/g, '')
      return read.startsWith('/') && !/^\/[/\\]/.test(read)
    }),
    { numRuns: 2000 },
  )
  t.pass('property held')
})

test('lifecycle header values', async (t) => {
  const date = new Date(Date.UTC(2024, 0, 1))
  t.equal(deprecationValue(date), '@1704067200')
  t.equal(sunsetValue(date), 'Mon, 01 Jan 2024 00:00:00 GMT')
  t.equal(toDate('2024-01-01T00:00:00Z')?.getTime(), date.getTime())
  t.equal(toDate(date), date)
  t.equal(toDate('nope'), undefined)
  t.equal(linkValue('/v2/x', 'successor-version'), '</v2/x>; rel="successor-version"')
})

test('askedVersions: versions with q > 0, each once, in order, at most eight', async (t) => {
  t.same(askedVersions([]), { versions: [], more: false })
  t.same(
    askedVersions([
      { version: 3, q: 1 },
      { version: 2, q: 0 },
      { version: 4, q: 0.5 },
      { version: 3, q: 0.2 },
    ]),
    { versions: [3, 4], more: false },
  )
  const eight = Array.from({ length: MAX_NAMED_VERSIONS }, (_, i) => ({ version: i, q: 1 }))
  t.same(askedVersions([...eight, { version: 0, q: 1 }]), {
    versions: [0, 1, 2, 3, 4, 5, 6, 7],
    more: false,
  })
  t.same(askedVersions([...eight, { version: 8, q: 0 }]).more, false)
  t.same(askedVersions([...eight, { version: 8, q: 1 }]).more, true)
})
