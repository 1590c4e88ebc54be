import fc from 'fast-check'
import Fastify from 'fastify'
import { test } from 'tap'
import { appendVary, MAX_VARY_FIELDS, mergeVary } from '../src/index.js'

test('mergeVary adds each name once, case-insensitively, keeping the first spelling', async (t) => {
  t.equal(mergeVary(undefined, ['Accept']), 'Accept')
  t.equal(mergeVary('accept-encoding', ['Accept', 'Accept-Encoding']), 'accept-encoding, Accept')
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

test('appendVary sets the header only when there is something to say', async (t) => {
  const app = Fastify()
  app.get('/a', async (_request, reply) => appendVary(reply, 'Accept', 'accept').send('x'))
  app.get('/none', async (_request, reply) => appendVary(reply).send('x'))
  t.equal((await app.inject('/a')).headers.vary, 'Accept')
  t.equal((await app.inject('/none')).headers.vary, undefined)
})
