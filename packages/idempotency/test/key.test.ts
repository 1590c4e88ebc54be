/**
 * The `Idempotency-Key` parser: the String cases of httpwg/structured-field-tests (the data files
 * under fixtures/structured-field-tests, as that repository has them), and fast-check properties.
 */
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { parseItem, serializeItem, Token } from 'structured-headers'
import { test } from 'tap'
import { DEFAULT_MAX_KEY_LENGTH, readIdempotencyKey } from '../src/index.js'
import { maxFieldLength } from '../src/key.js'

interface Case {
  name: string
  raw: string[]
  header_type: string
  expected?: [unknown, unknown[]]
  must_fail?: boolean
  can_fail?: boolean
}

function cases(file: string): Case[] {
  const url = new URL(`fixtures/structured-field-tests/${file}`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as Case[]
}

const MAX = DEFAULT_MAX_KEY_LENGTH

for (const file of ['string.json', 'string-generated.json', 'token.json']) {
  test(`structured-field-tests ${file}: a String is the key, anything else is refused`, async (t) => {
    const all = cases(file).filter((c) => c.header_type === 'item')
    t.ok(all.length > 0)
    for (const c of all) {
      const reading = readIdempotencyKey(c.raw, MAX)
      const bare = c.expected?.[0]
      if (c.must_fail === true) {
        t.ok('problem' in reading, `${c.name}: refused`)
      } else if (typeof bare === 'string' && bare.length > 0 && bare.length <= MAX) {
        t.same(reading, { key: bare }, `${c.name}: read`)
      } else if (c.can_fail !== true) {
        // A valid item that is a Token, or an empty or overlong String: not a key.
        t.ok('problem' in reading, `${c.name}: refused as a key`)
      }
    }
  })
}

test('the draft examples are read (draft §2.1, §6)', async (t) => {
  t.same(readIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"', MAX), {
    key: '8e03978e-40d5-43e8-bc93-6894a57f9324',
  })
  t.same(readIdempotencyKey('"clkyoesmbgybucifusbbtdsbohtyuuwz"', MAX), {
    key: 'clkyoesmbgybucifusbbtdsbohtyuuwz',
  })
})

test('refusals say why', async (t) => {
  const problem = (value: string | string[], max = MAX) => {
    const reading = readIdempotencyKey(value, max)
    return 'problem' in reading ? reading.problem : undefined
  }
  t.match(problem('8e03978e-40d5-43e8-bc93-6894a57f9324'), /String/, 'unquoted: not a String')
  t.match(problem('abc'), /String/, 'a Token')
  t.match(problem('42'), /String/, 'an Integer')
  t.match(problem('"abc'), /structured field String/, 'unbalanced')
  t.match(problem('""'), /is empty/)
  t.match(problem('"abcd"', 3), /longer than 3 characters/)
  t.match(problem(['"a"', '"b"']), /structured field String/, 'two field lines: a list')
  t.match(problem('"a", "b"'), /structured field String/, 'two keys in one line')
  t.match(problem(`"${'a'.repeat(maxFieldLength(MAX))}"`), /longer than a key/, 'refused unread')
  t.same(readIdempotencyKey('"k";v=1', MAX), { key: 'k' }, 'parameters are ignored (RFC 9651 §2.2)')
  t.same(readIdempotencyKey(' "k" ', MAX), { key: 'k' }, 'surrounding spaces (RFC 9651 §4.2)')
})

/** A printable ASCII string (what an sf-string holds, RFC 9651 §3.3.3). */
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: MAX,
})

test('property: any key a client serializes as a String is read back as it was', async () => {
  fc.assert(
    fc.property(printable, (key) => {
      const reading = readIdempotencyKey(serializeItem([key, new Map()]), MAX)
      return 'key' in reading && reading.key === key
    }),
  )
})

test('property: parameters after the String change nothing', async () => {
  fc.assert(
    fc.property(
      printable,
      fc.stringMatching(/^[a-z][a-z0-9_.*-]{0,8}$/),
      fc.integer(),
      (key, name, n) => {
        const reading = readIdempotencyKey(serializeItem([key, new Map([[name, n]])]), MAX)
        return 'key' in reading && reading.key === key
      },
    ),
  )
})

test('property: a Token, a number or a boolean is never a key', async () => {
  const other = fc.oneof(
    fc.stringMatching(/^[A-Za-z*][A-Za-z0-9!#$%&'*+.^_`|~:/-]{0,20}$/).map((s) => new Token(s)),
    fc.integer({ min: -999_999_999, max: 999_999_999 }),
    fc.boolean(),
  )
  fc.assert(
    fc.property(
      other,
      (value) => 'problem' in readIdempotencyKey(serializeItem([value, new Map()]), MAX),
    ),
  )
})

test('property: any value, however hostile, is read or refused, never thrown on', async () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), printable), (value) => {
      const reading = readIdempotencyKey(value, MAX)
      return 'key' in reading
        ? reading.key.length >= 1 && reading.key.length <= MAX
        : reading.problem.length > 0
    }),
    { numRuns: 2000 },
  )
})

test('property: a key outside printable ASCII is refused', async () => {
  const outside = fc.oneof(
    fc.integer({ min: 0, max: 0x1f }),
    fc.integer({ min: 0x7f, max: 0xffff }),
  )
  fc.assert(
    fc.property(printable, outside, (key, code) => {
      const value = `"${key.replace(/[\\"]/g, '\\$&')}${String.fromCharCode(code)}"`
      return 'problem' in readIdempotencyKey(value, MAX)
    }),
  )
})

test('a plain quoted key is read without the structured-field parser (its cost on every request)', async (t) => {
  const { readIdempotencyKey: read } = await t.mockImport<typeof import('../src/key.js')>(
    '../src/key.js',
    {
      'structured-headers': {
        parseItem: () => {
          throw new Error('parsed')
        },
      },
    },
  )
  t.same(read('"8e03978e-40d5-43e8-bc93-6894a57f9324"', MAX), {
    key: '8e03978e-40d5-43e8-bc93-6894a57f9324',
  })
  t.same(read(`"${'a'.repeat(MAX)}"`, MAX), { key: 'a'.repeat(MAX) }, 'the longest key')
  t.match(read(`"${'a'.repeat(MAX + 1)}"`, MAX), { problem: /longer than/ }, 'still bounded')
  t.match(read('"k";v=1', MAX), { problem: /structured field String/ }, 'parameters: the parser')
  t.match(read('"a\\"b"', MAX), { problem: /structured field String/ }, 'an escape: the parser')
})

test('property: a plain key, as sent, is what the parser reads', async () => {
  const plain = fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0x7e })
      .filter((c) => c !== 0x22 && c !== 0x5c)
      .map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: MAX,
  })
  fc.assert(
    fc.property(plain, (key) => {
      const reading = readIdempotencyKey(`"${key}"`, MAX)
      return 'key' in reading && reading.key === parseItem(`"${key}"`)[0]
    }),
  )
})
