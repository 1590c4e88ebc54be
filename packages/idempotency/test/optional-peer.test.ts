/** ioredis is an optional peer dependency: a Redis store without it fails at registration, naming it. */
import { OptionsError } from '@restwell/errors'
import { test } from 'tap'
import { importPeer } from '../src/redis.js'

test('a missing ioredis is an OptionsError on store naming what to install', async (t) => {
  const error = await importPeer('ioredis', () => import(`ioredis-not-${Date.now()}`)).catch(
    (e: unknown) => e,
  )
  t.type(error, OptionsError)
  t.equal((error as OptionsError).option, 'store')
  t.match((error as Error).message, /npm install ioredis.*ioredis could not be loaded/)
})

test('any other failure of the import is passed on as it is', async (t) => {
  const broken = new Error('syntax error in ioredis')
  await t.rejects(
    importPeer('ioredis', () => Promise.reject(broken)),
    broken,
  )
})
