import fc from 'fast-check'
import { test } from 'tap'
import {
  ALGORITHMS,
  chooseAlgorithm,
  DIGEST_LENGTHS,
  digestOf,
  MAX_MEMBERS,
  parseIntegrity,
  parsePreferences,
  serializeIntegrity,
  serializePreferences,
} from '../src/index.js'

const HELLO = '{"hello": "world"}\n'

test('the sample digests of RFC 9530 Appendix B', async (t) => {
  t.equal(
    serializeIntegrity('sha-256', digestOf('sha-256', HELLO)),
    'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:',
    'B.1: the full representation',
  )
  t.equal(
    serializeIntegrity('sha-256', digestOf('sha-256', '')),
    'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:',
    'B.2: empty content',
  )
  t.equal(
    serializeIntegrity('sha-512', digestOf('sha-512', '{"hello": "world"}')),
    'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    'Appendix D: sha-512 of the object',
  )
  t.same(ALGORITHMS, ['sha-256', 'sha-512'])
  t.same(DIGEST_LENGTHS, { 'sha-256': 32, 'sha-512': 64 })
})

test('parseIntegrity: a Dictionary of Byte Sequences, or nothing', async (t) => {
  const digests = parseIntegrity(
    'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:, md5=:AAAA:',
  )
  t.same([...(digests?.keys() ?? [])], ['sha-256', 'md5'], 'unknown algorithms kept, in order')
  t.equal(digests?.get('sha-256')?.length, 32)
  t.equal(
    parseIntegrity('sha-256=1'),
    undefined,
    'a member that is no Byte Sequence: ignored whole',
  )
  t.equal(parseIntegrity('sha-256=(:AAAA:)'), undefined, 'an Inner List is none either')
  t.equal(parseIntegrity('sha-256=:AAAA'), undefined, 'a field that fails parsing (RFC 9651 §4.2)')
  t.equal(parseIntegrity('SHA-256=:AAAA:'), undefined, 'keys are lower case')
  const many = Array.from({ length: MAX_MEMBERS + 1 }, (_, i) => `a${i}=:AAAA:`).join(', ')
  t.equal(parseIntegrity(many), undefined, 'more members than the bound')
  t.same(parseIntegrity('')?.size, 0, 'an empty field has no member')
})

test('parsePreferences: a Dictionary of Integers from 0 to 10, or nothing (RFC 9530 §4)', async (t) => {
  t.same(
    [...(parsePreferences('sha-512=3, sha-256=10, unixsum=0') ?? [])],
    [
      ['sha-512', 3],
      ['sha-256', 10],
      ['unixsum', 0],
    ],
  )
  t.equal(parsePreferences('sha-256=11'), undefined, 'above 10')
  t.equal(parsePreferences('sha-256=-1'), undefined, 'below 0')
  t.equal(parsePreferences('sha-256=1.5'), undefined, 'a Decimal')
  t.equal(parsePreferences('sha-256'), undefined, 'a bare key is the Boolean true')
  t.equal(parsePreferences('sha-256=(1 2)'), undefined, 'an Inner List')
  t.equal(parsePreferences('sha-256=10,'), undefined, 'a trailing comma fails parsing')
})

test('serializePreferences: the most preferred first, from 10 down', async (t) => {
  t.equal(serializePreferences(['sha-512', 'sha-256']), 'sha-512=10, sha-256=9')
})

test('chooseAlgorithm: the client preference among the server algorithms, as a hint', async (t) => {
  const ours = ['sha-256', 'sha-512'] as const
  t.equal(chooseAlgorithm(undefined, ours), 'sha-256', 'no preference: the server first')
  t.equal(
    chooseAlgorithm(
      new Map([
        ['sha-512', 3],
        ['sha-256', 10],
      ]),
      ours,
    ),
    'sha-256',
  )
  t.equal(
    chooseAlgorithm(
      new Map([
        ['sha-512', 3],
        ['sha-256', 1],
      ]),
      ours,
    ),
    'sha-512',
  )
  t.equal(
    chooseAlgorithm(
      new Map([
        ['sha-512', 3],
        ['sha-256', 3],
      ]),
      ours,
    ),
    'sha-256',
    'a tie: ours',
  )
  t.equal(
    chooseAlgorithm(new Map([['sha', 10]]), ours),
    'sha-256',
    'only algorithms the server lacks: one of its own (RFC 9530 Appendix C.2)',
  )
  t.equal(chooseAlgorithm(new Map([['sha-256', 0]]), ours), 'sha-512', 'one refused: another')
  t.equal(
    chooseAlgorithm(
      new Map([
        ['sha-256', 0],
        ['sha-512', 0],
      ]),
      ours,
    ),
    undefined,
    'all refused',
  )
})

test('property: any digest serialized is parsed back to the same bytes', async () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...ALGORITHMS),
      fc.uint8Array({ minLength: 0, maxLength: 80 }),
      (algorithm, bytes) => {
        const parsed = parseIntegrity(serializeIntegrity(algorithm, bytes))
        const back = parsed?.get(algorithm)
        return back !== undefined && Buffer.from(back).equals(Buffer.from(bytes))
      },
    ),
  )
})

test('property: the parsers never throw and are bounded, whatever the field', async () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (value) => {
      const digests = parseIntegrity(value)
      const preferences = parsePreferences(value)
      return (digests?.size ?? 0) <= MAX_MEMBERS && (preferences?.size ?? 0) <= MAX_MEMBERS
    }),
  )
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(
          fc.constantFrom('sha-256', 'sha-512', 'md5', 'x'),
          fc.integer({ min: 0, max: 10 }),
        ),
        {
          maxLength: 8,
        },
      ),
      (members) => {
        const value = members.map(([key, weight]) => `${key}=${weight}`).join(', ')
        const parsed = parsePreferences(value)
        const firstOf = new Map<string, number>()
        // A Dictionary keeps the last value of a repeated key (RFC 9651 §4.2.2).
        for (const [key, weight] of members) firstOf.set(key, weight)
        return (
          parsed !== undefined && [...firstOf].every(([key, weight]) => parsed.get(key) === weight)
        )
      },
    ),
  )
})
