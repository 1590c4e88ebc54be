import fc from 'fast-check'
import { test } from 'tap'
import { countAuthorizationLines, parseAuthorization } from '../src/authorization.js'
import { formatChallenge, safeDescription } from '../src/challenge.js'

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/'
const b64token = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(...B64), minLength: 1, maxLength: 60 }),
    fc.nat({ max: 3 }),
  )
  .map(([body, pad]) => body + '='.repeat(pad))
const bearerCase = fc
  .array(fc.boolean(), { minLength: 6, maxLength: 6 })
  .map((flags) => [...'bearer'].map((c, i) => (flags[i] ? c.toUpperCase() : c)).join(''))

test('parseAuthorization reads Bearer credentials', async (t) => {
  t.same(parseAuthorization(undefined), { kind: 'none' })
  t.same(parseAuthorization(''), { kind: 'none' })
  t.same(parseAuthorization('  \t '), { kind: 'none' })
  t.same(parseAuthorization('Bearer abc.DEF-_~+/=='), { kind: 'bearer', token: 'abc.DEF-_~+/==' })
  t.same(parseAuthorization('bEaReR   tok'), { kind: 'bearer', token: 'tok' })
  t.same(parseAuthorization(' Bearer tok \t'), { kind: 'bearer', token: 'tok' })
  t.same(parseAuthorization('Basic dXNlcjpwYXNz'), { kind: 'other', scheme: 'Basic' })
  t.same(parseAuthorization('Bearers tok'), { kind: 'other', scheme: 'Bearers' })
  t.same(parseAuthorization('Digest'), { kind: 'other', scheme: 'Digest' })
  t.equal(parseAuthorization('Bearer').kind, 'malformed')
  t.equal(parseAuthorization('Bearer    ').kind, 'malformed')
  t.equal(parseAuthorization('Bearer =abc').kind, 'malformed')
  t.equal(parseAuthorization('Bearer a=b').kind, 'malformed')
  t.equal(parseAuthorization('Bearer a b').kind, 'malformed')
  t.equal(parseAuthorization('Bearer a,Bearer b').kind, 'malformed')
  t.equal(parseAuthorization('Bearer tök').kind, 'malformed')
  t.equal(parseAuthorization('Bearer\ttok').kind, 'malformed')
  t.equal(parseAuthorization('=tok').kind, 'malformed')
  t.equal(parseAuthorization('Bé tok').kind, 'malformed')
  t.match(parseAuthorization('Bearer'), { reason: /no token/ })
})

test('property: any b64token round-trips, whatever the scheme case and spacing', async () => {
  fc.assert(
    fc.property(bearerCase, fc.integer({ min: 1, max: 4 }), b64token, (scheme, spaces, token) => {
      const parsed = parseAuthorization(`${scheme}${' '.repeat(spaces)}${token}`)
      return parsed.kind === 'bearer' && parsed.token === token
    }),
  )
})

test('property: never throws, and a token with a foreign char is never accepted', async () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (value) => {
      const parsed = parseAuthorization(value)
      return ['none', 'bearer', 'other', 'malformed'].includes(parsed.kind)
    }),
  )
  fc.assert(
    fc.property(
      b64token,
      fc
        .string({ unit: 'binary', minLength: 1, maxLength: 3 })
        .filter((s) => /[^A-Za-z0-9\-._~+/=]/.test(s.trim()) && s.trim() !== ''),
      b64token,
      (a, junk, b) => parseAuthorization(`Bearer ${a}${junk}${b}`).kind === 'malformed',
    ),
  )
})

// No timing assertion: a backtracking parser would not finish these within the test timeout.
test('long hostile input is parsed (linear, no backtracking)', async (t) => {
  const long = `Bearer ${'a'.repeat(200_000)}`
  t.equal(parseAuthorization(long).kind, 'bearer')
  t.equal(parseAuthorization(`${long}=a`).kind, 'malformed')
  t.equal(parseAuthorization(`Bearer ${'='.repeat(100_000)}`).kind, 'malformed')
  t.equal(parseAuthorization(`${'B'.repeat(100_000)} x`).kind, 'other')
})

test('countAuthorizationLines counts every Authorization line', async (t) => {
  t.equal(countAuthorizationLines([]), 0)
  t.equal(countAuthorizationLines(['Host', 'x', 'authorization', 'a', 'AUTHORIZATION', 'b']), 2)
  t.equal(countAuthorizationLines(['Authorization', 'a', 'Authorizations', 'b']), 1)
})

test('formatChallenge builds RFC 6750 challenges', async (t) => {
  t.equal(formatChallenge({ realm: 'api' }), 'Bearer realm="api"')
  t.equal(
    formatChallenge({ realm: 'api', error: 'invalid_token', description: 'expired' }),
    'Bearer realm="api", error="invalid_token", error_description="expired"',
  )
  t.equal(
    formatChallenge({ realm: 'r', error: 'insufficient_scope', scopes: ['a', 'b:c'] }),
    'Bearer realm="r", error="insufficient_scope", scope="a b:c"',
  )
  t.equal(formatChallenge({ realm: 'r', scopes: [] }), 'Bearer realm="r"')
})

test('safeDescription keeps only RFC 6750 description chars, bounded', async (t) => {
  t.equal(safeDescription('plain text'), 'plain text')
  t.equal(safeDescription('say "hi"\\\n'), 'say  hi   ')
  t.equal(safeDescription('é'), ' ')
  t.equal(safeDescription('x'.repeat(500)).length, 200)
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) =>
      /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/.test(safeDescription(text)),
    ),
  )
})
