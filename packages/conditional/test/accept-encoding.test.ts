import fc from 'fast-check'
import { test } from 'tap'
import { acceptsCoding, codingOf } from '../src/index.js'

test('acceptsCoding: RFC 9110 §12.5.3', async (t) => {
  t.notOk(acceptsCoding(undefined, 'gzip'), 'no field: identity is what such a client gets')
  t.notOk(acceptsCoding('', 'gzip'), 'an empty field accepts identity only')
  t.ok(acceptsCoding('gzip', 'gzip'))
  t.ok(acceptsCoding('GZip;Q=0.5', 'gzip'), 'names and parameters case-insensitive')
  t.ok(acceptsCoding('x-gzip', 'gzip'), 'x-gzip is gzip')
  t.ok(acceptsCoding('x-compress', 'compress'))
  t.notOk(acceptsCoding('br, deflate', 'gzip'))
  t.notOk(acceptsCoding('gzip;q=0', 'gzip'))
  t.notOk(acceptsCoding('gzip;q=0.000', 'gzip'))
  t.ok(acceptsCoding('gzip;q=0.001', 'gzip'))
  t.ok(acceptsCoding('*', 'gzip'), '* stands for the codings not named')
  t.notOk(acceptsCoding('*;q=0', 'gzip'))
  t.notOk(acceptsCoding('*, gzip;q=0', 'gzip'), 'a coding named with q=0 is refused despite *')
  t.notOk(acceptsCoding('gzip, gzip;q=0', 'gzip'), 'a refusal wins over a repeated acceptance')
  t.ok(acceptsCoding('br;q=0, *;q=0.1', 'gzip'))
  t.notOk(acceptsCoding('gzip;q=2', 'gzip'), 'a malformed member is skipped')
  t.ok(acceptsCoding('gzip;q=2, *', 'gzip'))
  t.equal(codingOf('"abc-gzip"'), 'gzip')
  t.equal(codingOf('"abc-foo"'), undefined)
  t.equal(codingOf('"abc"'), undefined)
})

const CODINGS = ['gzip', 'x-gzip', 'GZIP', 'br', 'deflate', 'identity', '*']
const member = fc.record({
  name: fc.constantFrom(...CODINGS),
  q: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
})
const weight = (q: number | undefined): string =>
  q === undefined ? '' : `;q=${q === 1000 ? '1' : `0.${String(q).padStart(3, '0')}`}`

test('property: agrees with the rule read member by member', async (t) => {
  fc.assert(
    fc.property(
      fc.array(member, { maxLength: 8 }),
      fc.constantFrom('gzip', 'br'),
      (list, coding) => {
        const header = list.map((m) => `${m.name}${weight(m.q)}`).join(', ')
        const named = list.filter((m) => {
          const name = m.name.toLowerCase()
          return (name === 'x-gzip' ? 'gzip' : name) === coding
        })
        const expected =
          named.length > 0
            ? named.every((m) => m.q !== 0)
            : list.some((m) => m.name === '*' && m.q !== 0)
        return acceptsCoding(header, coding) === expected
      },
    ),
    { numRuns: 2000 },
  )
  t.pass()
})

test('property: never throws on hostile input', async (t) => {
  const chars = fc.constantFrom(...'gzip*;q=0.1, "\\\t-xé\u0000'.split(''))
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.string({ unit: chars, maxLength: 200 })), (header) => {
      return typeof acceptsCoding(header, 'gzip') === 'boolean'
    }),
    { numRuns: 2000 },
  )
  t.pass()
})
