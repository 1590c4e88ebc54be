/** ioredis is an optional peer dependency: a Redis store without it fails at registration, naming it. */
import { importPeer, OptionsError } from '@restwell/errors'
import { test } from 'tap'
import { REDIS_STORE } from '../src/redis.js'

test('a missing ioredis is an OptionsError on store naming what to install', async (t) => {
  const missing = () => import(`ioredis-not-${Date.now()}`)
  const error = await importPeer(REDIS_STORE, 'ioredis', missing).catch((e: unknown) => e)
  t.type(error, OptionsError)
  t.equal((error as OptionsError).option, 'store')
  t.match(
    (error as Error).message,
    /^@restwell\/idempotency: option "store" is a Redis store, .*npm install ioredis.*ioredis could not be loaded/,
  )
})
