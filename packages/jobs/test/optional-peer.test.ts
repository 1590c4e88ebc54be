/** bullmq and ioredis are optional peer dependencies: a Redis store without them fails at registration, naming them. */
import { OptionsError } from '@restwell/errors'
import { test } from 'tap'
import { importPeer } from '../src/bullmq.js'

test('a missing optional peer is an OptionsError on store naming what to install', async (t) => {
  const missing = () => import(`bullmq-not-installed-${Date.now()}`)
  const error = await importPeer('bullmq', missing).catch((e: unknown) => e)
  t.type(error, OptionsError)
  t.equal((error as OptionsError).option, 'store')
  t.match((error as Error).message, /npm install bullmq ioredis/)
  t.match((error as Error).message, /bullmq could not be loaded/)
})

test('a CommonJS module-not-found is read the same way', async (t) => {
  const missing = () =>
    Promise.reject(
      Object.assign(new Error("Cannot find module 'ioredis'"), { code: 'MODULE_NOT_FOUND' }),
    )
  await t.rejects(importPeer('ioredis', missing), { name: 'OptionsError', option: 'store' })
})

test('a module-not-found without its code is read from its message', async (t) => {
  const missing = () => Promise.reject(new Error("Cannot find package 'bullmq' imported from x.js"))
  await t.rejects(importPeer('bullmq', missing), { name: 'OptionsError', option: 'store' })
})

test('any other failure of the import is passed on as it is', async (t) => {
  const broken = Object.assign(new Error('syntax error in bullmq'), { code: 'ERR_REQUIRE_ESM' })
  await t.rejects(
    importPeer('bullmq', () => Promise.reject(broken)),
    broken,
  )
})

test('a rejection that is no Error is passed on as it is', async (t) => {
  const caught = await importPeer('bullmq', () => Promise.reject(null)).then(
    () => 'resolved',
    (value: unknown) => value,
  )
  t.equal(caught, null)
})

test('an installed peer is answered as imported', async (t) => {
  const bullmq = await importPeer('bullmq', () => import('bullmq'))
  t.type(bullmq.Queue, 'function')
})
