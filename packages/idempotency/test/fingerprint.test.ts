/** The store key (SHA-256) and the fingerprint (SHA-1): one-shot digests, as a chained `Hash`'s. */
import * as crypto from 'node:crypto'
import { BODY_BYTES } from '@restwell/core/internal'
import type { FastifyRequest } from 'fastify'
import { test } from 'tap'
import { fingerprintOf, storeKeyOf } from '../src/fingerprint.js'

const request = (body: unknown) =>
  ({ method: 'POST', url: '/books?x=1', body }) as unknown as FastifyRequest

/** The digest of `parts` fed one by one to a `Hash`: what keys stored in Redis were made with. */
const chained = (...parts: (string | Buffer)[]) => digestOf('sha256', parts)

/** The fingerprint's digest of `parts`: SHA-1 (README, Decisions). */
const fingerprinted = (...parts: (string | Buffer)[]) => digestOf('sha1', parts)

function digestOf(algorithm: string, parts: (string | Buffer)[]): string {
  const hash = crypto.createHash(algorithm)
  for (const part of parts) hash.update(part)
  return hash.digest('base64url')
}

test('the digests are those of the parts fed one by one: keys already stored still match', async (t) => {
  t.equal(
    storeKeyOf('address:1', 'POST', '/books', 'k'),
    chained('address:1', '\0', 'POST', '\0', '/books', '\0', 'k'),
  )
  const head = ['POST', '\n', '/books?x=1', '\n'] as const
  t.equal(
    fingerprintOf(request({ title: 'Dune' })),
    fingerprinted(...head, 'j{"title":"Dune"}'),
    'JSON',
  )
  t.equal(fingerprintOf(request('é,ü')), fingerprinted(...head, 'sé,ü'), 'a string, in UTF-8')
  const bytes = Buffer.from([0, 255, 1])
  t.equal(fingerprintOf(request(bytes)), fingerprinted(...head, bytes), 'bytes as they are')
  t.equal(fingerprintOf(request(undefined)), fingerprinted(...head, 'u'), 'no body')
})

test("the bytes a restwell parser kept are the body's fingerprint, whitespace and all", async (t) => {
  const head = ['POST', '\n', '/books?x=1', '\n'] as const
  const sent = (text: string) =>
    ({
      ...request({ title: 'Dune' }),
      [BODY_BYTES]: Buffer.from(text),
    }) as unknown as FastifyRequest
  const bytes = '{ "title": "Dune" }'
  t.equal(
    fingerprintOf(sent(bytes)),
    fingerprinted(...head, Buffer.from(bytes)),
    'the bytes, not the value',
  )
  t.not(fingerprintOf(sent(bytes)), fingerprintOf(sent('{"title":"Dune"}')), 'whitespace counts')
  t.not(fingerprintOf(sent(bytes)), fingerprintOf(request({ title: 'Dune' })), 'nor the JSON of it')
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
