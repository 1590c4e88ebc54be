import fc from 'fast-check'
import { test } from 'tap'
import {
  formatApplied,
  MAX_PARAMETERS,
  MAX_PREFERENCES,
  parsePrefer,
  RequestPreferences,
  waitSeconds,
} from '../src/index.js'

const entries = (field: unknown) =>
  [...parsePrefer(field)].map(([name, { value, parameters }]) => [name, value, [...parameters]])

test('parsePrefer: the grammar of RFC 7240 §2', async (t) => {
  t.same(entries('return=minimal'), [['return', 'minimal', []]])
  t.same(entries('respond-async, wait=10'), [
    ['respond-async', undefined, []],
    ['wait', '10', []],
  ])
  t.same(entries('foo; bar'), [['foo', undefined, [['bar', undefined]]]], 'a parameter (§2.1)')
  t.same(
    entries('foo; bar=""'),
    [['foo', undefined, [['bar', undefined]]]],
    'an empty value is none',
  )
  t.same(entries('foo=""; bar=baz'), [['foo', undefined, [['bar', 'baz']]]])
  t.same(
    entries('Return = "minimal" ;  A = "x\\"y" ;;'),
    [['return', 'minimal', [['a', 'x"y']]]],
    'BWS, quoted-string, empty parameters',
  )
  t.same(entries('RETURN=Minimal'), [['return', 'Minimal', []]], 'names fold, values do not')
  t.same(
    entries(['return=minimal', 'handling=strict']),
    [
      ['return', 'minimal', []],
      ['handling', 'strict', []],
    ],
    'field lines are one list',
  )
  t.same(
    entries('return=minimal, return=representation'),
    [['return', 'minimal', []]],
    'the first wins',
  )
  t.same(
    entries('foo; a=1; a=2'),
    [['foo', undefined, [['a', '1']]]],
    'a parameter once, the first',
  )
})

test('parsePrefer: a malformed element is ignored, the rest is read', async (t) => {
  t.same(entries('=x, return=minimal'), [['return', 'minimal', []]], 'no name')
  t.same(entries('a=, return=minimal'), [['return', 'minimal', []]], 'no word after =')
  t.same(entries('a="open, return=minimal'), [], 'an unclosed quote takes the rest')
  t.same(entries('a="x\\'), [], 'an escape at the end')
  t.same(
    entries('a="x\u0001", b'),
    [['b', undefined, []]],
    'a control character in a quoted-string',
  )
  t.same(entries('a b, c'), [['c', undefined, []]], 'junk after the preference')
  t.same(entries('a; =1, c'), [['c', undefined, []]], 'a parameter without a name')
  t.same(entries('a; p=, c'), [['c', undefined, []]], 'a parameter without a word')
  t.same(entries('a "q,r" , c'), [['c', undefined, []]], 'junk with a quoted comma')
  t.same(entries(undefined), [])
  t.same(entries(' , ,, '), [], 'empty elements')
  t.same(entries('a\t;\tb = 1'), [['a', undefined, [['b', '1']]]], 'tabs are whitespace')
})

test('parsePrefer: bounded', async (t) => {
  const many = Array.from({ length: MAX_PREFERENCES + 5 }, (_, i) => `p${i}`).join(', ')
  t.equal(parsePrefer(many).size, MAX_PREFERENCES)
  const params = Array.from({ length: MAX_PARAMETERS + 5 }, (_, i) => `q${i}=1`).join('; ')
  t.equal(parsePrefer(`a; ${params}`).get('a')?.parameters.size, MAX_PARAMETERS)
})

test('waitSeconds and formatApplied', async (t) => {
  t.equal(waitSeconds(parsePrefer('wait=10').get('wait')), 10)
  t.equal(waitSeconds(parsePrefer('wait=ten').get('wait')), undefined)
  t.equal(waitSeconds(parsePrefer('wait').get('wait')), undefined)
  t.equal(waitSeconds(undefined), undefined)
  t.equal(
    formatApplied([
      ['return', 'minimal'],
      ['respond-async', undefined],
    ]),
    'return=minimal, respond-async',
  )
})

test('RequestPreferences: the preferences of RFC 7240 §4, others kept but unused', async (t) => {
  const prefs = new RequestPreferences(
    'return=minimal, respond-async, wait=5, handling=lenient, x-foo=1',
  )
  t.equal(prefs.return, 'minimal')
  t.equal(prefs.respondAsync, true)
  t.equal(prefs.wait, 5)
  t.equal(prefs.handling, 'lenient')
  t.equal(prefs.all.get('x-foo')?.value, '1', 'an unknown preference is read, and ignored')
  const other = new RequestPreferences('return=everything, handling=sloppy')
  t.equal(other.return, undefined)
  t.equal(other.handling, undefined)
  t.equal(other.respondAsync, false)
  prefs.apply('return', 'minimal')
  prefs.apply('return', 'minimal')
  t.same(prefs.applied, [['return', 'minimal']], 'each once')
})

const tokenArb = fc.stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,8}$/)
const wordArb = fc.oneof(
  tokenArb,
  fc.string({ maxLength: 6 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
)
const quote = (s: string): string => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`

test('property: a well-formed field is read back as written', async () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(tokenArb, fc.option(wordArb, { nil: undefined })), {
        selector: ([name]) => name,
        maxLength: 10,
      }),
      (prefs) => {
        const field = prefs
          .map(([name, value]) => (value === undefined ? name : `${name}=${quote(value)}`))
          .join(', ')
        const parsed = parsePrefer(field)
        return prefs.every(([name, value]) => {
          const got = parsed.get(name)
          return got !== undefined && got.value === (value === '' ? undefined : value)
        })
      },
    ),
  )
})

test('property: never throws, whatever the field, and stays bounded', async () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 400 }),
      (field) => parsePrefer(field).size <= MAX_PREFERENCES,
    ),
  )
})
