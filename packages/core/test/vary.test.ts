import fc from 'fast-check'
import Fastify from 'fastify'
import { test } from 'tap'
import { appendVary, mergeVary } from '@restwell/core'
import { MAX_VARY_FIELDS, VARY_MEMO_SIZE } from '@restwell/core/internal'

test('mergeVary adds each name once, case-insensitively, keeping the first spelling', async (t) => {
  t.equal(mergeVary(undefined, ['Accept']), 'Accept')
  t.equal(mergeVary('x-api-key', ['Accept', 'X-Api-Key']), 'x-api-key, Accept')
  t.equal(mergeVary('Accept,,accept , Origin', []), 'Accept, Origin')
  t.equal(mergeVary(['Accept', 'Origin'], ['origin']), 'Accept, Origin')
  t.equal(mergeVary([1, 'Accept'], []), 'Accept')
  t.equal(mergeVary(42, []), '')
  t.equal(mergeVary('Accept', ['*']), '*', '* absorbs everything')
  t.equal(mergeVary('*', ['Accept']), '*')
})

test('mergeVary keeps at most MAX_VARY_FIELDS names', async (t) => {
  const names = Array.from({ length: MAX_VARY_FIELDS + 5 }, (_, i) => `X-H${i}`)
  t.equal(mergeVary('', names).split(', ').length, MAX_VARY_FIELDS)
  t.equal(mergeVary('', names), reference('', names))
  const full = names.join(', ')
  t.equal(mergeVary(full, ['Accept', 'x-h1']), reference(full, ['Accept', 'x-h1']))
})

test('property: mergeVary never throws and never repeats a name', async (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), fc.array(fc.string({ maxLength: 20 })), (a, b) => {
      const merged = mergeVary(a, b)
      if (merged === '*' || merged === '') return true
      const keys = merged.split(', ').map((n) => n.toLowerCase())
      return new Set(keys).size === keys.length && keys.length <= MAX_VARY_FIELDS
    }),
  )
  t.pass('properties hold')
})

test('a name holding a comma is read as the names it lists', async (t) => {
  t.equal(mergeVary('', ['x, x']), 'x', 'the counterexample fast-check found')
  t.equal(mergeVary('Accept', ['origin, accept', 'X']), 'Accept, Origin, X')
  t.equal(mergeVary(undefined, ['a, *']), '*')
})

/** The standard spellings the generated names below can hit (the test above covers them all). */
const STANDARD = ['Accept', 'Accept-Encoding', 'Origin', 'Cookie']

test('the standard request fields have one spelling, whoever adds them first', async (t) => {
  t.equal(mergeVary('accept-encoding', ['Accept', 'Accept-Encoding']), 'Accept-Encoding, Accept')
  t.equal(
    mergeVary('ORIGIN, accept-language', ['authorization']),
    'Origin, Accept-Language, Authorization',
  )
  t.equal(
    mergeVary(undefined, ['access-control-request-method', 'cookie', 'accept-charset']),
    'Access-Control-Request-Method, Cookie, Accept-Charset',
  )
})

/** The rule, written plainly: every name of the value then the new ones, each once. */
function reference(existing: unknown, names: readonly string[]): string {
  const text =
    typeof existing === 'string'
      ? existing
      : Array.isArray(existing)
        ? existing.filter((v) => typeof v === 'string').join(',')
        : ''
  const out: string[] = []
  for (const raw of [...text.split(','), ...names.flatMap((name) => name.split(','))]) {
    const name = raw.trim()
    if (name === '*') return '*'
    if (name === '' || out.length === MAX_VARY_FIELDS) continue
    const canonical = STANDARD.find((known) => known.toLowerCase() === name.toLowerCase()) ?? name
    if (!out.some((kept) => kept.toLowerCase() === name.toLowerCase())) out.push(canonical)
  }
  return out.join(', ')
}

test('property: mergeVary is the plain rule, on the first call and on a remembered one', async (t) => {
  const name = fc.oneof(
    fc.constantFrom(
      'Accept',
      'accept',
      'Origin',
      'accept-encoding',
      'COOKIE',
      '*',
      '',
      ' a , b ',
      'a,b',
    ),
    fc.string({ maxLength: 12 }),
  )
  fc.assert(
    fc.property(
      fc.oneof(
        fc.array(name, { maxLength: 6 }).map((names) => names.join(',')),
        fc.string(),
      ),
      fc.array(name, { maxLength: 4 }),
      (existing, names) => {
        const expected = reference(existing, names)
        return mergeVary(existing, names) === expected && mergeVary(existing, names) === expected
      },
    ),
    { numRuns: 2000 },
  )
  t.equal(mergeVary('a', ['b,c']), 'a, b, c', 'a name with a comma lists names, as the field does')
  t.equal(mergeVary('a', ['b', 'c']), 'a, b, c')
})

test('the memo starts over past VARY_MEMO_SIZE values and keeps answering right', async (t) => {
  for (let i = 0; i < VARY_MEMO_SIZE * 2 + 3; i++) {
    if (mergeVary(`X-${i}`, ['Accept']) !== `X-${i}, Accept`) t.fail(`wrong merge for X-${i}`)
  }
  t.equal(mergeVary('X-0', ['Accept']), 'X-0, Accept')
  t.equal(mergeVary('X-0', ['Origin']), 'X-0, Origin', 'another name for a remembered value')
})

test('appendVary sets the header only when there is something to say', async (t) => {
  const app = Fastify()
  app.get('/a', async (_request, reply) => appendVary(reply, 'Accept', 'accept').send('x'))
  app.get('/none', async (_request, reply) => appendVary(reply).send('x'))
  t.equal((await app.inject('/a')).headers.vary, 'Accept')
  t.equal((await app.inject('/none')).headers.vary, undefined)
})
