/** bullmq and ioredis are optional peer dependencies: a Redis store without them fails at registration, naming them. */
import { importPeer, OptionsError } from '@restwell/errors'
import { test } from 'tap'
import { REDIS_STORE } from '../src/bullmq.js'

test('a missing optional peer is an OptionsError on store naming what to install', async (t) => {
  const missing = () => import(`bullmq-not-installed-${Date.now()}`)
  const error = await importPeer(REDIS_STORE, 'bullmq', missing).catch((e: unknown) => e)
  t.type(error, OptionsError)
  t.equal((error as OptionsError).option, 'store')
  t.match((error as Error).message, /^@restwell\/jobs: option "store" is a Redis store/)
  t.match((error as Error).message, /npm install bullmq ioredis/)
  t.match((error as Error).message, /bullmq could not be loaded/)
})
