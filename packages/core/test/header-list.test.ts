import fc from 'fast-check'
import { test } from 'tap'
import {
  ACCEPT_CACHE_SIZE,
  isToken,
  MAX_LIST_ELEMENTS,
  MAX_PARAMS,
  parseList,
  parseQ,
  remembered,
} from '@restwell/core/internal'

test('parseList reads values, parameters and weights', async (t) => {
  t.same(parseList('text/html;level=1;q=0.5;ext=x, */*'), {
    elements: [
      { value: 'text/html', params: [['level', '1']], q: 0.5 },
      { value: '*/*', params: [], q: 1 },
    ],
    malformed: 0,
  })
  t.same(parseList('a; Name="quoted \\"v\\", still" ; q=1').elements, [
    { value: 'a', params: [['name', 'quoted "v", still']], q: 1 },
  ])
  t.same(
    parseList(' , ,a,, b ;; ;c=d').elements.map((e) => e.value),
    ['a', 'b'],
  )
  t.same(parseList('a;c=d ;').elements[0]?.params, [['c', 'd']])
  t.equal(parseList('a;q=2, b;q=x, c;=d, d;e, e;f=, "x", f g, h;i="open').malformed, 8)
  t.same(
    parseList('a;q=2, b').elements.map((e) => e.value),
    ['b'],
  )
  t.equal(parseList('a;q=0.5;q=1').elements[0]?.q, 0.5, 'parameters after q are extensions')
  t.equal(parseList('a;x="\\').malformed, 1, 'a trailing backslash in a quoted string')
  t.equal(parseList(Array(200).fill('a').join(',')).elements.length, MAX_LIST_ELEMENTS)
  const many = `a${';p=1'.repeat(40)}`
  t.equal(parseList(many).elements[0]?.params.length, 16, 'parameters are bounded')
  t.equal(
    parseList('"a,b", c')
      .elements.map((e) => e.value)
      .join(),
    'c',
    'commas in quotes',
  )
})

test('parseQ: RFC 9110 qvalues, leniently', async (t) => {
  t.equal(parseQ('1'), 1)
  t.equal(parseQ('0.8'), 0.8)
  t.equal(parseQ('.2'), 0.2, 'Java sends q=.2')
  t.equal(parseQ('0.12345'), 0.123)
  t.equal(parseQ('0.0004'), 0.001, 'a positive weight never rounds to 0 (not acceptable)')
  t.equal(parseQ('0.0005'), 0.001)
  t.equal(parseQ('0.000001'), 0.001)
  t.equal(parseQ('0.0000'), 0, 'zero with more decimals is still zero')
  t.equal(parseQ('0.9996'), 1)
  t.equal(parseQ('1.5'), undefined)
  t.equal(parseQ(''), undefined)
  t.equal(parseQ('.'), undefined)
  t.equal(parseQ('1..0'), undefined)
  t.equal(parseQ('0.1e1'), undefined)
  t.equal(parseQ('123456789'), undefined)
  t.ok(isToken('abc'))
  t.notOk(isToken(''))
  t.notOk(isToken('a b'))
  t.notOk(isToken('é'))
})

const headerChars = fc.constantFrom(...'ab*/;=q0.1 ,"\\\t-+éx\u0000'.split(''))
const hostile = fc.oneof(fc.string(), fc.string({ unit: headerChars, maxLength: 300 }))

test('property: parseList never throws and stays within bounds', async (t) => {
  fc.assert(
    fc.property(hostile, (header) => {
      const { elements, malformed } = parseList(header)
      return (
        elements.length <= MAX_LIST_ELEMENTS &&
        malformed >= 0 &&
        elements.every(
          (e) => e.value !== '' && e.q >= 0 && e.q <= 1 && e.params.length <= MAX_PARAMS,
        )
      )
    }),
    { numRuns: 2000 },
  )
  t.pass('2000 hostile headers parsed')
})

test('property: a positive qvalue stays positive, within 0..1, three decimals', async (t) => {
  // Leading zeros make the tiny weights (0.0004) that rounding used to turn into 0.
  const decimals = fc
    .tuple(fc.integer({ min: 0, max: 5 }), fc.stringMatching(/^[0-9]{1,6}$/))
    .map(([zeros, digits]) => `${'0'.repeat(zeros)}${digits}`.slice(0, 6))
  const lenient = fc.oneof(
    fc.tuple(fc.constantFrom('0', ''), decimals).map(([a, b]) => `${a}.${b}`),
    fc.constantFrom('0', '1', '1.0', '1.000', '0.'),
  )
  fc.assert(
    fc.property(lenient, (raw) => {
      const q = parseQ(raw)
      if (q === undefined) return raw.length > 8
      if (q < 0 || q > 1 || Math.abs(Math.round(q * 1000) - q * 1000) > 1e-9) return false
      return Number(raw) > 0 ? q > 0 : q === 0
    }),
    { numRuns: 2000 },
  )
  t.pass()
})

test('remembered: each value judged once while it is kept, never more than the bound', async (t) => {
  const memo = new Map<string, number | null>()
  const judged: string[] = []
  const judge = (value: string) => {
    judged.push(value)
    return value.startsWith('n') ? null : value.length
  }
  t.equal(remembered(memo, 'abc', judge), 3)
  t.equal(remembered(memo, 'abc', judge), 3)
  t.equal(remembered(memo, 'none', judge), null, 'null is a verdict too')
  t.equal(remembered(memo, 'none', judge), null)
  t.same(judged, ['abc', 'none'], 'a kept value is not judged again, null included')
  for (let i = 0; i < 3 * ACCEPT_CACHE_SIZE; i++) {
    t.equal(remembered(memo, `v${i}`, judge), `v${i}`.length)
    t.ok(memo.size <= ACCEPT_CACHE_SIZE)
  }
  t.equal(remembered(memo, 'abc', judge), 3, 'forgotten, then judged afresh')
  t.equal(judged.filter((value) => value === 'abc').length, 2)
})
