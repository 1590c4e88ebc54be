import fc from 'fast-check'
import { test } from 'tap'
import {
  combineVersions,
  findMatch,
  findState,
  formatEntityTag,
  hashEntityTag,
  namesState,
  MAX_ENTITY_TAGS,
  parseEntityTag,
  parseEntityTagList,
  tagMatches,
  toEntityTag,
  withCoding,
  withoutCoding,
  withRepresentation,
} from '../src/index.js'

/** etagc: %x21 / %x23-7E (obs-text left out of the generator, tested below). */
const etagc = fc
  .integer({ min: 0x21, max: 0x7e })
  .filter((c) => c !== 0x22)
  .map((c) => String.fromCharCode(c))
const opaque = fc.array(etagc, { maxLength: 20 }).map((cs) => `"${cs.join('')}"`)
const entityTag = fc.record({ weak: fc.boolean(), opaque })

test('parses lists of entity-tags with OWS, empty members and W/', async (t) => {
  t.equal(parseEntityTagList(undefined), undefined)
  t.equal(parseEntityTagList('  '), undefined)
  t.equal(parseEntityTagList(' * '), '*')
  t.same(parseEntityTagList('"a", W/"b" ,,"" ,\t"c"'), [
    { weak: false, opaque: '"a"' },
    { weak: true, opaque: '"b"' },
    { weak: false, opaque: '""' },
    { weak: false, opaque: '"c"' },
  ])
  t.same(
    parseEntityTagList('"\u00e9t\u00e9"'),
    [{ weak: false, opaque: '"\u00e9t\u00e9"' }],
    'obs-text',
  )
})

test('malformed members are skipped, never thrown on', async (t) => {
  t.same(parseEntityTagList('abc, "ok"'), [{ weak: false, opaque: '"ok"' }])
  t.same(parseEntityTagList('"a b", "ok"'), [{ weak: false, opaque: '"ok"' }])
  t.same(parseEntityTagList('"unterminated'), [])
  t.same(parseEntityTagList('"a"x, "b"'), [{ weak: false, opaque: '"b"' }])
  t.same(parseEntityTagList('w/"a"'), [])
  t.same(parseEntityTagList('*, "a"'), [{ weak: false, opaque: '"a"' }], '* inside a list is not *')
  t.same(parseEntityTagList('"\u0100"'), [], 'beyond obs-text')
  t.same(parseEntityTagList('"a" "b"'), [])
  t.equal(parseEntityTag('"a", "b"'), undefined)
  t.equal(parseEntityTag('nope'), undefined)
  t.same(parseEntityTag('W/"a"'), { weak: true, opaque: '"a"' })
})

test('lists are bounded to MAX_ENTITY_TAGS', async (t) => {
  const long = Array.from({ length: 500 }, (_, i) => `"${i}"`).join(',')
  const list = parseEntityTagList(long) as unknown[]
  t.equal(list.length, MAX_ENTITY_TAGS)
})

test('property: formatted lists parse back to the same tags', async () => {
  fc.assert(
    fc.property(
      fc.array(entityTag, { minLength: 1, maxLength: MAX_ENTITY_TAGS }),
      fc.constantFrom(',', ', ', ' ,\t'),
      (tags, sep) => {
        const parsed = parseEntityTagList(tags.map(formatEntityTag).join(sep))
        return JSON.stringify(parsed) === JSON.stringify(tags)
      },
    ),
  )
})

test('property: any string parses without throwing, to undefined, * or well-formed tags', async () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.string({ unit: 'binary' }),
        fc.string({ unit: fc.constantFrom('"', 'W', '/', ',', ' ', 'a', '*'), maxLength: 60 }),
      ),
      (value) => {
        const parsed = parseEntityTagList(value)
        if (parsed === undefined || parsed === '*') return true
        return (
          parsed.length <= MAX_ENTITY_TAGS &&
          parsed.every((tag) => parseEntityTag(formatEntityTag(tag)) !== undefined)
        )
      },
    ),
    { numRuns: 2000 },
  )
})

// No timing assertion (speed is the benchmark's job): a backtracking parser would not finish
// these within the test timeout, a linear one does at once.
test('parsing is linear: a 100 KB hostile header is parsed', async (t) => {
  for (const unit of ['"', 'W/"a', ',', 'x', '"a" ']) {
    const value = unit.repeat(Math.ceil(100_000 / unit.length))
    t.doesNotThrow(() => parseEntityTagList(value), `${JSON.stringify(unit)} repeated`)
  }
})

test('weak and strong comparison, with coding suffixes', async (t) => {
  const strong = { weak: false, opaque: '"a"' }
  const weak = { weak: true, opaque: '"a"' }
  t.ok(tagMatches(weak, strong, false))
  t.notOk(tagMatches(weak, strong, true))
  t.notOk(tagMatches(strong, weak, true))
  t.ok(tagMatches(strong, strong, true))
  t.ok(tagMatches({ weak: false, opaque: '"a-gzip"' }, strong, true))
  t.ok(tagMatches({ weak: false, opaque: '"a-br"' }, strong, false))
  t.notOk(tagMatches({ weak: false, opaque: '"a-foo"' }, strong, false))
  t.notOk(tagMatches({ weak: false, opaque: '"b-gzip"' }, strong, false))
  t.equal(findMatch('*', strong, true), strong)
  t.equal(findMatch([], strong, true), undefined)
  t.equal(withoutCoding('"abc"'), undefined)
  t.equal(withoutCoding('"x-y-zstd"'), '"x-y"')
  t.equal(withCoding('W/"a"', 'gzip'), 'W/"a-gzip"')
})

test('property: weak comparison is symmetric and ignores W/; strong implies weak', async () => {
  fc.assert(
    fc.property(entityTag, entityTag, (a, b) => {
      const weakAB = tagMatches(a, b, false)
      const plainA = { ...a, weak: false }
      const plainB = { ...b, weak: false }
      if (weakAB !== tagMatches(plainA, plainB, false)) return false
      if (tagMatches(a, b, true) && !weakAB) return false
      return tagMatches(a, a, false)
    }),
  )
})

test('toEntityTag: quotes versions, keeps quoted tags, hashes what cannot be a tag', async (t) => {
  t.same(toEntityTag(7), { weak: false, opaque: '"7"' })
  t.same(toEntityTag('v1', true), { weak: true, opaque: '"v1"' })
  t.same(toEntityTag('"q"'), { weak: false, opaque: '"q"' })
  t.same(toEntityTag('W/"q"'), { weak: true, opaque: '"q"' })
  t.same(toEntityTag('"q"', true), { weak: true, opaque: '"q"' })
  t.match(toEntityTag('a"b"').opaque, /^"[A-Za-z0-9_-]{27}"$/)
  t.match(toEntityTag('').opaque, /^"[A-Za-z0-9_-]{27}"$/)
  t.same(hashEntityTag('x'), hashEntityTag(Buffer.from('x')), 'a string hashes as its UTF-8 bytes')
  t.equal(hashEntityTag('x', true).weak, true)
})

test('withRepresentation: the key inside the quotes, the tag itself without one', async (t) => {
  const seven = { weak: false, opaque: '"7"' }
  t.equal(withRepresentation(seven, undefined), seven)
  t.same(withRepresentation(seven, 'xml'), { weak: false, opaque: '"7;xml"' })
  t.same(withRepresentation({ weak: true, opaque: '"7"' }, 'hal;de'), {
    weak: true,
    opaque: '"7;hal;de"',
  })
  t.notOk(tagMatches({ weak: false, opaque: '"7"' }, { weak: false, opaque: '"7;xml"' }, false))
})

test('namesState: the tag of any representation of a state, in any coding, names it', async (t) => {
  const state = { weak: false, opaque: '"7"' }
  const held = (opaque: string, weak = false) => ({ weak, opaque })
  for (const opaque of ['"7"', '"7;xml"', '"7;hal;pt_br"', '"7;xml-gzip"', '"7-br"']) {
    t.ok(namesState(held(opaque), state, true), opaque)
  }
  for (const opaque of ['"70"', '"7;"', '"8;xml"', '"7xml"', '"7-foo"']) {
    t.notOk(namesState(held(opaque), state, false), opaque)
  }
  t.notOk(namesState(held('"7;xml"', true), state, true), 'strong: a weak tag never')
  t.notOk(namesState(held('"7;xml"'), held('"7"', true), true))
  t.ok(namesState(held('"7;xml"', true), state, false), 'weak comparison ignores W/')
  t.equal(findState('*', state, true), state)
  t.same(findState([held('"6"'), held('"7;siren"')], state, true), held('"7;siren"'))
  t.equal(findState([held('"6;xml"')], state, true), undefined)
})

test('combineVersions: one version from several, joined, or hashed when a part could mislead', async (t) => {
  t.equal(combineVersions([3, 7]), '3.7')
  t.equal(combineVersions(['v2', 3, 'a_b-c']), 'v2.3.a_b-c')
  t.not(combineVersions([3, 7]), combineVersions([37]))
  const odd = combineVersions(['1.2', 3])
  t.match(odd, /^[A-Za-z0-9_-]{27}$/, 'a part with a dot: hashed')
  t.not(odd, combineVersions([1, '2.3']), 'so that they never meet')
  t.same(toEntityTag([3, 7]), { weak: false, opaque: '"3.7"' }, 'toEntityTag combines a list')
  t.same(toEntityTag([3, 7], true), { weak: true, opaque: '"3.7"' })
})
