import { Type } from '@sinclair/typebox'
import fc from 'fast-check'
import { test } from 'tap'
import { OptionsError, validateOptions } from '../src/index.js'
import { editDistance, nearestKey } from '../src/validate-options.js'

/** The message `validateOptions('p', schema, options)` throws, or 'ok'. */
function messageOf(schema: Parameters<typeof validateOptions>[1], options: unknown): string {
  try {
    validateOptions('p', schema, options)
    return 'ok'
  } catch (error) {
    return (error as Error).message
  }
}

/** Restricted Damerau-Levenshtein by its recursive definition: the reference, for short strings. */
function reference(a: string, b: string): number {
  const d = (i: number, j: number): number => {
    if (i === 0) return j
    if (j === 0) return i
    let best = Math.min(
      d(i - 1, j) + 1,
      d(i, j - 1) + 1,
      d(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1),
    )
    if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
      best = Math.min(best, d(i - 2, j - 2) + 1)
    }
    return best
  }
  return d(a.length, b.length)
}

test('editDistance: insertions, deletions, substitutions and adjacent swaps', async (t) => {
  t.equal(editDistance('pagniation', 'pagination'), 1, 'a swap is one edit')
  t.equal(editDistance('', 'abc'), 3)
  t.equal(editDistance('abc', ''), 3)
  t.equal(editDistance('kitten', 'sitting'), 3)
  t.equal(editDistance('ca', 'abc'), 3, 'optimal string alignment: no edit of a swapped pair')
  const short = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 6 })
  fc.assert(
    fc.property(short, short, (a, b) => editDistance(a, b) === reference(a, b)),
    { numRuns: 300 },
  )
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), (a, b) => {
      const d = editDistance(a, b)
      return (
        d === editDistance(b, a) &&
        d >= Math.abs(a.length - b.length) &&
        d <= Math.max(a.length, b.length) &&
        (d === 0) === (a === b)
      )
    }),
  )
  // One edit of any kind is at most one.
  fc.assert(
    fc.property(
      fc.string({ minLength: 2, maxLength: 30 }),
      fc.nat(),
      fc.string({ minLength: 1, maxLength: 1 }),
      (s, n, c) => {
        const i = n % (s.length - 1)
        const swapped = `${s.slice(0, i)}${s[i + 1]}${s[i]}${s.slice(i + 2)}`
        const inserted = `${s.slice(0, i)}${c}${s.slice(i)}`
        const deleted = `${s.slice(0, i)}${s.slice(i + 1)}`
        const replaced = `${s.slice(0, i)}${c}${s.slice(i + 1)}`
        return [swapped, inserted, deleted, replaced].every((other) => editDistance(s, other) <= 1)
      },
    ),
  )
})

test('nearestKey: the closest known key within two edits, case aside, else none', async (t) => {
  const known = ['pagination', 'errors', 'max', 'maxAge', 'ajv']
  t.equal(nearestKey('pagniation', known), 'pagination')
  t.equal(nearestKey('Pagination', known), 'pagination', 'case is no edit')
  t.equal(nearestKey('erors', known), 'errors')
  t.equal(nearestKey('mx', known), 'max')
  t.equal(nearestKey('maxage', known), 'maxAge')
  t.equal(nearestKey('maxAgee', known), 'maxAge')
  t.equal(nearestKey('paginate', known), undefined, 'three edits')
  t.equal(nearestKey('x', known), undefined, 'a one-letter key is no typo of "ajv"')
  t.equal(nearestKey('', known), undefined)
  t.equal(nearestKey('mat', ['max', 'may']), 'max', 'the first on a tie')
  t.equal(nearestKey('maxx', ['max', 'maxy']), 'max', 'then only a closer one replaces it')
  t.equal(nearestKey('maxy', ['max', 'maxy']), 'maxy')
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), fc.array(fc.string({ maxLength: 12 })), (k, ks) => {
      const near = nearestKey(k, ks)
      return (
        near === undefined ||
        (ks.includes(near) && editDistance(k.toLowerCase(), near.toLowerCase()) <= 2)
      )
    }),
  )
})

test('a union names the field of the variant that fits the value, and what it expects', async (t) => {
  const rateLimit = Type.Object(
    {
      max: Type.Optional(Type.Integer({ minimum: 1 })),
      timeWindow: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.String()])),
    },
    { additionalProperties: false },
  )
  const schema = Type.Object(
    { rateLimit: Type.Optional(Type.Union([Type.Literal(false), rateLimit])) },
    { additionalProperties: false },
  )
  const error = t.throws(() => validateOptions('restwell', schema, { rateLimit: { max: 'lots' } }))
  t.ok(error instanceof OptionsError)
  t.match(error, {
    name: 'OptionsError',
    code: 'RESTWELL_INVALID_OPTION',
    option: 'rateLimit.max',
    message: 'restwell: option "rateLimit.max" must be an integer ≥ 1 (got "lots")',
  })
  t.equal(
    messageOf(schema, { rateLimit: true }),
    'p: option "rateLimit" must be false or an object (got true)',
    'no variant has the shape of the value: the union as a whole',
  )
  t.equal(
    messageOf(schema, { rateLimit: { timeWindow: 0 } }),
    'p: option "rateLimit.timeWindow" must be an integer ≥ 1 or a string (got 0)',
  )
  t.equal(
    messageOf(schema, { rateLimit: { tiemWindow: 5, max: 'x' } }),
    'p: option "rateLimit.tiemWindow" is not known; did you mean "timeWindow"?',
    'an unknown key first: a typo explains the rest',
  )
  t.equal(
    messageOf(schema, { ratelimit: {} }),
    'p: option "ratelimit" is not known; did you mean "rateLimit"?',
  )
  t.equal(messageOf(schema, { rateLimit: { max: 5 } }), 'ok')
})

test('unions of containers: the variant whose error is deepest; arrays too', async (t) => {
  const schema = Type.Object({
    store: Type.Union([
      Type.Literal('memory'),
      Type.Object({ kind: Type.Literal('a') }),
      Type.Object({ redis: Type.Object({ url: Type.String({ minLength: 1 }) }) }),
    ]),
    list: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Integer())])),
    pick: Type.Optional(
      Type.Union([Type.Object({ a: Type.Integer() }), Type.Object({ b: Type.Integer() })]),
    ),
  })
  t.equal(
    messageOf(schema, { store: { redis: { url: '' } } }),
    'p: option "store.redis.url" must be a non-empty string (got "")',
  )
  t.equal(
    messageOf(schema, { store: 'disk' }),
    'p: option "store" must be "memory", an object or an object (got "disk")',
  )
  t.equal(
    messageOf(schema, { store: 'memory', list: [1, 'two'] }),
    'p: option "list.1" must be an integer (got "two")',
  )
  t.equal(
    messageOf(schema, { store: 'memory', pick: {} }),
    'p: option "pick.a" is required: it must be an integer',
    'equally deep: the first variant',
  )
})

test('what each kind of schema expects', async (t) => {
  const cases: [Parameters<typeof validateOptions>[1], unknown, string][] = [
    [Type.Literal('a'), 'b', 'must be "a" (got "b")'],
    [Type.Union([Type.Literal('a'), Type.Literal('b')]), 'c', 'must be one of "a", "b" (got "c")'],
    [Type.Integer(), 1.5, 'must be an integer (got 1.5)'],
    [Type.Integer({ minimum: 1, maximum: 9 }), 10, 'must be an integer ≥ 1 and ≤ 9 (got 10)'],
    [Type.Integer({ multipleOf: 5 }), 7, 'must be an integer a multiple of 5 (got 7)'],
    [
      Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
      1,
      'must be a number > 0 and < 1 (got 1)',
    ],
    [Type.Number(), Number.POSITIVE_INFINITY, 'must be a number (got Infinity)'],
    [Type.String(), 1, 'must be a string (got 1)'],
    [Type.String({ minLength: 3 }), 'ab', 'must be a string of at least 3 characters (got "ab")'],
    [Type.String({ maxLength: 2 }), 'abc', 'must be a string of 0 to 2 characters (got "abc")'],
    [
      Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z]+$' }),
      'A',
      'must be a string of 1 to 32 characters matching /^[a-z]+$/ (got "A")',
    ],
    [Type.String({ format: 'nope' }), 'x', 'must be a string in the "nope" format (got "x")'],
    [Type.Array(Type.String()), 'x', 'must be an array (got "x")'],
    [
      Type.Array(Type.String(), { minItems: 1, uniqueItems: true }),
      [],
      'must be a non-empty array without duplicates (got [])',
    ],
    [
      Type.Array(Type.String(), { minItems: 2 }),
      ['a'],
      'must be an array of at least 2 items (got ["a"])',
    ],
    [
      Type.Object({}, { maxProperties: 1 }),
      { a: 1, b: 2 },
      'must be an object of 0 to 1 keys (got {"a":1,"b":2})',
    ],
    [Type.Record(Type.String(), Type.Integer()), 1, 'must be an object (got 1)'],
    [Type.Boolean(), 'yes', 'must be a boolean (got "yes")'],
    [Type.Function([], Type.Unknown()), 1, 'must be a function (got 1)'],
    [Type.Date(), 'today', 'must be a Date (got "today")'],
    [Type.Null(), 0, 'must be null (got 0)'],
    [Type.Never(), 0, 'must be what its schema (Never) allows (got 0)'],
  ]
  for (const [schema, value, problem] of cases) {
    t.equal(
      messageOf(Type.Object({ x: schema }), { x: value }),
      `p: option "x" ${problem}`,
      problem,
    )
  }
})

test('unknown keys: a suggestion, else the known keys; record keys: their pattern', async (t) => {
  const closed = Type.Object(
    { alpha: Type.Optional(Type.String()), beta: Type.Optional(Type.String()) },
    { additionalProperties: false },
  )
  t.equal(
    messageOf(closed, { gamma: 'x' }),
    'p: option "gamma" is not known; the known ones are "alpha", "beta"',
  )
  t.equal(
    messageOf(Type.Object({ o: Type.Object({}, { additionalProperties: false }) }), {
      o: { a: 1 },
    }),
    'p: option "o.a" is not known: no option is accepted here',
  )
  const moved = Type.Object({
    moved: Type.Record(Type.String({ pattern: '^/[a-z/]*$' }), Type.String(), {
      additionalProperties: false,
    }),
  })
  t.equal(
    messageOf(moved, { moved: { '/old~/x': 'new' } }),
    'p: option "moved./old~/x" is not allowed: the keys here must match /^/[a-z/]*$/',
    'a JSON pointer path is read back: ~1 is "/", ~0 is "~"',
  )
  t.equal(
    messageOf(moved, { moved: { '/old': 2 } }),
    'p: option "moved./old" must be a string (got 2)',
  )
})

test('what was given: JSON, cut at 60 characters, or in words where JSON cannot say', async (t) => {
  const given = (value: unknown): string =>
    messageOf(Type.Object({ x: Type.Integer() }), { x: value })
  t.equal(given('y'.repeat(100)), `p: option "x" must be an integer (got "${'y'.repeat(56)}...)`)
  t.equal(
    given(() => 1),
    'p: option "x" must be an integer (got a function)',
  )
  t.equal(given(Number.NaN), 'p: option "x" must be an integer (got NaN)')
  t.equal(given(10n), 'p: option "x" must be an integer (got 10)')
  t.equal(given(Symbol('s')), 'p: option "x" must be an integer (got Symbol(s))')
  t.equal(given(/a+/g), 'p: option "x" must be an integer (got /a+/g)')
  const circular: Record<string, unknown> = {}
  circular.self = circular
  t.equal(
    given(circular),
    'p: option "x" must be an integer (got an object that JSON cannot write)',
  )
  t.equal(
    given({ n: 1n }),
    'p: option "x" must be an integer (got an object that JSON cannot write)',
  )
  t.equal(given(null), 'p: option "x" must be an integer (got null)')
  t.equal(given(undefined), 'p: option "x" must be an integer (got undefined)')
  t.equal(messageOf(Type.Object({}), 'x'), 'p: option "(options)" must be an object (got "x")')
  t.equal(
    messageOf(Type.Object({}, { additionalProperties: false }), { prefix: '/a', logLevel: 'info' }),
    'ok',
    "Fastify's own keys are not the plugin's",
  )
})
