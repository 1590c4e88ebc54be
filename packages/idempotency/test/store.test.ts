/** The records the Redis store writes as text, and the memory store's clock and bound. */
import { test } from 'tap'
import { memoryStore } from '../src/memory.js'
import { type Completed, decodeRecord, encodeRecord, type Running } from '../src/store.js'

const marker: Running = { state: 'running', fingerprint: 'f', token: 't' }
const done: Completed = {
  state: 'done',
  fingerprint: 'f',
  answer: {
    status: 201,
    headers: [
      ['location', '/a'],
      ['link', ['<a>', '<b>']],
    ],
    body: Buffer.from([0, 255, 10]),
  },
}

test('records survive their text form, bytes included', async (t) => {
  t.same(decodeRecord(encodeRecord(marker)), marker)
  const back = decodeRecord(encodeRecord(done))
  t.same(back, done)
  t.ok(back.state === 'done' && back.answer.body.equals(done.answer.body))
})

test('a value of another shape is refused, never half read', async (t) => {
  for (const text of [
    '{}',
    '{"state":"done","fingerprint":"f"}',
    '{"state":"running","fingerprint":1}',
    'null',
  ]) {
    t.throws(() => decodeRecord(text), text)
  }
  t.throws(() => decodeRecord('not json'), SyntaxError)
})

test('the memory store: claim, complete, release; expired keys swept from the front', async (t) => {
  let now = 0
  const store = memoryStore(10, () => now)
  t.equal(store.claim('a', marker, 100), undefined)
  t.same(store.claim('a', { ...marker, token: 'u' }, 100), marker, 'held')
  const other: Running = { ...marker, token: 'other' }
  t.equal(
    store.complete('a', other, done, 1000),
    false,
    'only the marker that holds it completes it',
  )
  store.release('a', other)
  t.same(store.claim('a', other, 100), marker, 'nor frees it')
  t.equal(store.complete('a', marker, done, 1000), true)
  t.same(store.claim('a', other, 100), done)
  t.equal(store.claim('b', marker, 100), undefined)
  store.release('b', marker)
  t.equal(store.claim('b', marker, 100), undefined, 'released: free again')
  now = 100
  t.equal(store.complete('b', marker, done, 1000), false, 'an expired marker completes nothing')
  now = 1000
  t.equal(store.claim('c', marker, 100), undefined, 'a is swept (expired at the front)')
  t.equal(store.claim('a', other, 100), undefined)
  await store.close()
  t.equal(store.claim('c', other, 100), undefined, 'closing forgets every key')
})

test('the memory store sweeps at most a few expired keys per claim', async (t) => {
  let now = 0
  const store = memoryStore(100, () => now)
  for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) store.claim(key, marker, 10)
  now = 10
  store.claim('g', marker, 10)
  t.same(store.claim('f', { ...marker, token: 'x' }, 10), undefined, 'f expired all the same')
})
