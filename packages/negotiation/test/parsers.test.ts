import fc from 'fast-check'
import { test } from 'tap'
import {
  acceptsUtf8,
  isLanguageRange,
  isVersionedJson,
  MAX_LIST_ELEMENTS,
  mergeVary,
  negotiateMediaType,
  parseAccept,
  parseAcceptLanguage,
  parseContentType,
  parseList,
  pickLanguage,
  qualityOf,
  toOffer,
  versionedJsonVersion,
} from '../src/index.js'

const offers = [
  'application/json',
  'application/xml',
  'application/hal+json',
  'application/vnd.api+json',
].map((t) => toOffer(t)!)

function pick(accept: string): string | undefined {
  const ranges = parseAccept(accept)
  return ranges === undefined ? 'MALFORMED' : negotiateMediaType(ranges, offers)?.mediaType
}

test('Accept: spec rules 1-5 and RFC 9110 §12.5.1', async (t) => {
  t.equal(pick('application/xml;q=0.9, application/json;q=0.8'), 'application/xml', 'ordered by q')
  t.equal(pick('application/xml, application/json'), 'application/json', 'equal q: server order')
  t.equal(pick('application/xml;q=0.5, application/json'), 'application/json', 'missing q is 1')
  t.equal(pick('application/json;q=0, */*;q=0.1'), 'application/xml', 'q=0 excludes')
  t.equal(pick('application/json;q=0'), undefined, 'nothing acceptable')
  t.equal(pick('text/html'), undefined)
  t.equal(pick('*/*'), 'application/json')
  t.equal(pick('application/*;q=0.5, application/hal+json'), 'application/hal+json')
  t.equal(
    pick('*/*;q=0.1, application/*;q=0, application/xml'),
    'application/xml',
    'type/* beats */*',
  )
  t.equal(pick('APPLICATION/XML'), 'application/xml', 'case-insensitive')
  t.equal(pick('application/json;charset=UTF-8;q=0.4, application/xml;q=0.5'), 'application/xml')
  t.equal(pick('application/json;charset=utf-8;q=0.9, application/json;q=0.1'), 'application/json')
  t.equal(pick('application/json;charset=latin1'), undefined, 'another charset does not match')
  t.equal(pick('application/vnd.api+json;ext="x"'), undefined, 'unknown parameters do not match')
  t.equal(
    pick('application/vnd.api+json; profile="https://example.com/timestamps"'),
    'application/vnd.api+json',
    'JSON:API profile is ignored (JSON:API 1.1)',
  )
  t.equal(
    pick('application/vnd.api+json; profile="https://example.com/p"; ext="https://example.com/e"'),
    undefined,
    'JSON:API profile + ext: no extension is supported',
  )
  t.equal(pick('application/hal+json; profile="x"'), undefined, 'profile only on JSON:API')
  t.equal(pick('application/json; foo=bar'), undefined, 'another type: unknown parameters miss')
  t.equal(
    pick('application/vnd.api.v2+json, application/xml'),
    'application/json',
    'versioned JSON',
  )
  t.equal(pick('*; q=.2'), 'application/json', 'Java `*` is */*')
  t.equal(
    pick('text/html, garbage, application/xml;q=0.1'),
    'application/xml',
    'bad ranges skipped',
  )
  t.equal(pick('garbage'), 'MALFORMED')
  t.equal(pick('*/json'), 'MALFORMED')
  t.equal(pick('a/b/c'), 'MALFORMED')
  t.same(parseAccept(' , '), [], 'empty list: no preference')
  t.same(parseAccept('application/vnd.api.v2+json', { versionedJson: false }), [
    { type: 'application', subtype: 'vnd.api.v2+json', params: [], q: 1 },
  ])
  t.equal(qualityOf(parseAccept('application/xml')!, toOffer('application/json')!), 0)
  t.equal(toOffer('*/*'), undefined)
  t.equal(toOffer('nope'), undefined)
  t.ok(isVersionedJson('vnd.api.v12+json'))
  for (const s of [
    'vnd.api+json',
    'vnd.v1+json',
    'vnd.api.v+json',
    'vnd.api.x1+json',
    'vnd.api.v1a+json',
    'hal+json',
    'vnd.api.v1+xml',
  ]) {
    t.notOk(isVersionedJson(s), s)
  }
})

test('Accept: a versioned JSON range is JSON only for a version the request may be answered in', async (t) => {
  const both = 'application/vnd.api.v9+json, application/xml;q=0.5'
  const choose = (versions?: ReadonlySet<number>) =>
    negotiateMediaType(parseAccept(both, { versions })!, offers)?.mediaType
  t.equal(choose(), 'application/json', 'no versions given: any version is JSON')
  t.equal(choose(new Set([1, 2])), 'application/xml', 'v9 is not served: XML is what is acceptable')
  t.equal(choose(new Set([9])), 'application/json')
  t.same(parseAccept('application/vnd.api.v9+json', { versions: new Set([2]) }), [
    { type: 'application', subtype: 'vnd.api.v9+json', params: [], q: 1 },
  ])
  t.same(
    parseAccept('application/vnd.api.v2+json', { versions: new Set([2]), versionedJson: false }),
    [{ type: 'application', subtype: 'vnd.api.v2+json', params: [], q: 1 }],
    'versionedJson off wins',
  )
  const ordered =
    'application/vnd.api.v1+json, application/vnd.api.v2+json;q=0.1, application/xml;q=0.5'
  t.equal(
    negotiateMediaType(parseAccept(ordered, { versions: new Set([2]) })!, offers)?.mediaType,
    'application/xml',
    'the served version weighs JSON (q=0.1), not another version listed first',
  )
  t.equal(versionedJsonVersion('vnd.api.v12+json'), 12)
  t.equal(versionedJsonVersion('vnd.x.v0+json'), 0)
  t.equal(versionedJsonVersion('vnd.api.v999999999+json'), 999_999_999)
  for (const s of ['vnd.api.v02+json', 'vnd.api.v1000000000+json', 'vnd.api+json', 'hal+json']) {
    t.equal(versionedJsonVersion(s), undefined, s)
  }
  t.equal(
    pick('application/vnd.api.v02+json, application/xml'),
    'application/json',
    'without versions, any digits read as JSON (as before)',
  )
  t.equal(
    negotiateMediaType(
      parseAccept('application/vnd.api.v02+json, application/xml;q=0.5', {
        versions: new Set([2]),
      })!,
      offers,
    )?.mediaType,
    'application/xml',
    'v02 is not version 2 (as @restwell/versioning reads it)',
  )
})

test('Content-Type: one media type with parameters', async (t) => {
  t.same(parseContentType('Application/JSON; Charset="utf-8"'), {
    essence: 'application/json',
    params: [['charset', 'utf-8']],
  })
  t.same(parseContentType('multipart/form-data; boundary=----x'), {
    essence: 'multipart/form-data',
    params: [['boundary', '----x']],
  })
  for (const bad of ['', 'json', 'a/b, c/d', '*/*', 'text/*', 'a/b; c', 'a/b;q=0.5', 'a/b c']) {
    t.equal(parseContentType(bad), undefined, JSON.stringify(bad))
  }
})

test('Accept-Language: ranges and RFC 4647 lookup / filtering', async (t) => {
  t.same(parseAcceptLanguage('de;q=0.5, en-US, fr;q=0.5, bad_range, *;q=0.1'), [
    { range: 'en-us', q: 1 },
    { range: 'de', q: 0.5 },
    { range: 'fr', q: 0.5 },
    { range: '*', q: 0.1 },
  ])
  for (const ok of ['*', 'en', 'en-US', 'zh-Hant-TW', 'x-private1', 'de-1996'])
    t.ok(isLanguageRange(ok), ok)
  for (const bad of [
    '',
    '-',
    'en-',
    '-en',
    'en--us',
    'toolongtag',
    'en-toolongsub',
    '1en',
    'e n',
  ]) {
    t.notOk(isLanguageRange(bad), bad)
  }
  const available = ['en-US', 'de', 'fr-CA']
  const lang = (header: string, fallback = 'en-US'): string =>
    pickLanguage(parseAcceptLanguage(header), available, fallback)
  t.equal(lang('de-CH'), 'de', 'lookup truncates the range')
  t.equal(lang('fr'), 'fr-CA', 'basic filtering widens a range')
  t.equal(lang('EN-us'), 'en-US', 'case-insensitive, configured casing kept')
  t.equal(lang('it'), 'en-US', 'unavailable: the default')
  t.equal(lang('it, de;q=0.2'), 'de')
  t.equal(lang('*', 'de'), 'de', '* takes the default')
  t.equal(lang('*, de;q=0', 'de'), 'en-US', '* takes another when the default is excluded')
  t.equal(lang('*, en;q=0, de;q=0, fr;q=0', 'de'), 'de', 'all excluded: still the default')
  t.equal(lang('de-x-private-stuff'), 'de', 'single-letter subtags go with the next')
  t.equal(lang('de;q=0, en;q=0.5'), 'en-US')
  t.equal(pickLanguage([], available, 'de'), 'de')
  // RFC 2616 §14.4: a tag's weight is that of the longest range matching it, so a q=0 prefix
  // does not exclude a more specific tag the client asked for with a positive weight.
  const english = ['en-GB', 'en-US', 'de']
  const en = (header: string): string => pickLanguage(parseAcceptLanguage(header), english, 'de')
  t.equal(en('en-GB, en;q=0'), 'en-GB', 'British English, not other English')
  t.equal(en('en;q=0, en-GB'), 'en-GB', 'order does not matter')
  t.equal(en('en-GB;q=0.9, en;q=0'), 'en-GB')
  t.equal(en('en-GB;q=0, en'), 'en-US', 'the exact q=0 still excludes')
  t.equal(
    en('en-GB-oed, en-GB;q=0'),
    'de',
    'a longer range that does not match the tag keeps no tag',
  )
  t.equal(en('en, en-US;q=0'), 'en-GB')
  t.equal(en('en, en;q=0'), 'de', 'the same range twice: q=0 wins')
  t.equal(en('en;q=0, en, de;q=0.1'), 'de')
  t.equal(en('en-gb, *;q=0'), 'en-GB', '* with q=0 excludes nothing named')
})

test('Accept-Charset: UTF-8 only', async (t) => {
  t.ok(acceptsUtf8('utf-8'))
  t.ok(acceptsUtf8('iso-8859-1, *;q=0.1'))
  t.ok(acceptsUtf8('UTF-8;q=0.1, *;q=0'))
  t.notOk(acceptsUtf8('utf-8;q=0'))
  t.notOk(acceptsUtf8('utf-8;q=0, *'), 'explicit q=0 beats *')
  t.notOk(acceptsUtf8('iso-8859-1'), 'not listed and no *')
  t.notOk(acceptsUtf8('*;q=0'))
  t.ok(acceptsUtf8('"x"'), 'nothing well-formed: ignored')
  t.ok(acceptsUtf8(''), 'empty: ignored')
  t.notOk(acceptsUtf8('utf-8;q=0, a/b'), 'a non-token value is skipped')
})

test('Vary: merged, never duplicated', async (t) => {
  t.equal(mergeVary(undefined, ['Accept']), 'Accept')
  t.equal(mergeVary('accept-encoding', ['Accept', 'Accept-Encoding']), 'Accept-Encoding, Accept')
  t.equal(mergeVary('Origin, ACCEPT', ['Accept']), 'Origin, Accept', 'one spelling per field')
  t.equal(mergeVary(['Origin', 'Cookie'], ['Accept']), 'Origin, Cookie, Accept')
  t.equal(mergeVary('*', ['Accept']), '*')
  t.equal(mergeVary('Origin', ['*']), '*')
  t.equal(mergeVary(' , ', []), '')
  t.equal(mergeVary(42, ['Accept']), 'Accept')
})

// ---------------------------------------------------------------- properties

const headerChars = fc.constantFrom(...'ab*/;=q0.1 ,"\\\t-+éx\u0000'.split(''))
const hostile = fc.oneof(fc.string(), fc.string({ unit: headerChars, maxLength: 300 }))

test('property: no parser throws, results stay within bounds', async (t) => {
  fc.assert(
    fc.property(hostile, (header) => {
      const list = parseList(header)
      if (list.elements.length > MAX_LIST_ELEMENTS) return false
      if (list.elements.some((e) => !(e.q >= 0 && e.q <= 1) || e.value === '')) return false
      const ranges = parseAccept(header)
      if (ranges?.some((r) => r.type === '*' && r.subtype !== '*')) return false
      negotiateMediaType(ranges ?? [], offers)
      parseContentType(header)
      const languages = parseAcceptLanguage(header)
      for (let i = 1; i < languages.length; i++)
        if (languages[i - 1]!.q < languages[i]!.q) return false
      pickLanguage(languages, ['en', 'de'], 'en')
      acceptsUtf8(header)
      mergeVary(header, ['Accept'])
      return true
    }),
    { numRuns: 2000 },
  )
  t.pass('2000 hostile headers parsed')
})

test('property: a chosen type is always acceptable and among the offers', async (t) => {
  const range = fc.record({
    type: fc.constantFrom(
      'application/json',
      'application/xml',
      'application/*',
      '*/*',
      'text/html',
    ),
    q: fc.integer({ min: 0, max: 1000 }),
  })
  fc.assert(
    fc.property(fc.array(range, { maxLength: 8 }), (list) => {
      const header = list.map((r) => `${r.type};q=${r.q / 1000}`).join(', ')
      const ranges = parseAccept(header)!
      const chosen = negotiateMediaType(ranges, offers)
      if (chosen === undefined) return offers.every((o) => qualityOf(ranges, o) === 0)
      const q = qualityOf(ranges, chosen)
      return q > 0 && offers.every((o) => qualityOf(ranges, o) <= q)
    }),
  )
  t.pass()
})

test('property: a language is never one whose longest matching range has q=0', async (t) => {
  const tags = ['en', 'en-GB', 'en-US', 'en-GB-oed', 'de', 'de-CH', 'fr']
  const range = fc.record({
    range: fc.constantFrom(...tags, '*', 'EN-gb', 'it'),
    q: fc.constantFrom(0, 0.001, 0.5, 1),
  })
  const available = fc.uniqueArray(fc.constantFrom(...tags), { minLength: 1, maxLength: 5 })
  fc.assert(
    fc.property(fc.array(range, { maxLength: 6 }), available, (list, offered) => {
      const header = list.map((r) => `${r.range};q=${r.q}`).join(', ')
      const ranges = parseAcceptLanguage(header)
      const fallback = offered[0]!
      const chosen = pickLanguage(ranges, offered, fallback)
      if (!offered.includes(chosen)) return false
      // The weight of a tag: that of the longest range (not `*`) matching it.
      const weight = (tag: string): number | undefined => {
        let best: { length: number; q: number } | undefined
        for (const r of ranges) {
          const lower = tag.toLowerCase()
          if (r.range === '*' || !(lower === r.range || lower.startsWith(`${r.range}-`))) continue
          if (
            best === undefined ||
            r.range.length > best.length ||
            (r.range.length === best.length && r.q === 0)
          )
            best = { length: r.range.length, q: r.q }
        }
        return best?.q
      }
      if (chosen !== fallback && weight(chosen) === 0) return false
      // A tag the top range names exactly, with a positive weight, is chosen unless a q=0
      // duplicate of that range refuses it.
      const top = ranges[0]
      const named = offered.find((tag) => tag.toLowerCase() === top?.range)
      if (top !== undefined && top.q > 0 && named !== undefined && weight(named) !== 0) {
        return chosen === named
      }
      return true
    }),
    { numRuns: 2000 },
  )
  t.pass()
})

// No timing assertion (speed is the benchmark's job): a backtracking parser would not finish
// 100 KB of these hostile pieces within the test timeout; a linear one does at once.
test('property: 100 KB hostile headers are parsed without backtracking', async (t) => {
  const parsers: ((h: string) => unknown)[] = [
    (h) => parseAccept(h),
    (h) => parseContentType(h),
    (h) => parseAcceptLanguage(h),
    (h) => acceptsUtf8(h),
  ]
  const unit = fc.constantFrom(
    'a/b;',
    ';',
    'x="\\"',
    ',',
    ' ',
    '"',
    'q=0.',
    'en-',
    '*/*;p=1',
    'a;b=',
  )
  fc.assert(
    fc.property(unit, (piece) => {
      const header = piece.repeat(Math.ceil(100_000 / piece.length))
      for (const parse of parsers) parse(header)
      return true
    }),
    { numRuns: 20 },
  )
  t.pass()
})
