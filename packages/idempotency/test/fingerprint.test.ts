/** The store key and the fingerprint: one-shot digests, equal to those of a chained `Hash`. */
import * as crypto from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { test } from 'tap'
import { fingerprintOf, storeKeyOf } from '../src/fingerprint.js'

const request = (body: unknown) =>
  ({ method: 'POST', url: '/books?x=1', body }) as unknown as FastifyRequest

/** The digest of `parts` fed one by one to a `Hash`: what keys stored in Redis were made with. */
const chained = (...parts: (string | Buffer)[]) => {
  const hash = crypto.createHash('sha256')
  for (const part of parts) hash.update(part)
  return hash.digest('base64url')
}

test('the digests are those of the parts fed one by one, so keys already stored still match', async (t) => {
  t.equal(
    storeKeyOf('address:1', 'POST', '/books', 'k'),
    chained('address:1', '\0', 'POST', '\0', '/books', '\0', 'k'),
  )
  const head = ['POST', '\n', '/books?x=1', '\n'] as const
  t.equal(fingerprintOf(request({ title: 'Dune' })), chained(...head, 'j{"title":"Dune"}'), 'JSON')
  t.equal(fingerprintOf(request('é,ü')), chained(...head, 'sé,ü'), 'a string, in UTF-8')
  const bytes = Buffer.from([0, 255, 1])
  t.equal(fingerprintOf(request(bytes)), chained(...head, bytes), 'bytes as they are')
  t.equal(fingerprintOf(request(undefined)), chained(...head, 'u'), 'no body')
})

test('no Hash object per request: the one-shot digest (its cost on every request with a key)', async (t) => {
  const mocked = await t.mockImport<typeof import('../src/fingerprint.js')>(
    '../src/fingerprint.js',
    {
      'node:crypto': {
        ...crypto,
        createHash: () => {
          throw new Error('a Hash object')
        },
      },
    },
  )
  t.equal(mocked.storeKeyOf('s', 'POST', '/books', 'k'), storeKeyOf('s', 'POST', '/books', 'k'))
  t.equal(mocked.fingerprintOf(request({ a: 1 })), fingerprintOf(request({ a: 1 })))
  t.equal(mocked.fingerprintOf(request(Buffer.from('a'))), fingerprintOf(request(Buffer.from('a'))))
})
