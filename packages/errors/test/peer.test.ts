/** importPeer: an optional peer that is not installed is an OptionsError naming what to install. */
import { test } from 'tap'
import { importPeer, OptionsError, type Peer } from '../src/index.js'

const PEER: Peer = {
  plugin: '@acme/store',
  option: 'store',
  needs: 'is a Redis store, which needs ioredis: install it (npm install ioredis)',
}

test('a missing ESM module is an OptionsError on the option, naming what to install', async (t) => {
  const error = await importPeer(PEER, 'ioredis', () => import(`ioredis-not-${Date.now()}`)).catch(
    (e: unknown) => e,
  )
  t.type(error, OptionsError)
  t.equal((error as OptionsError).option, 'store')
  t.match(
    (error as Error).message,
    /^@acme\/store: option "store" is a Redis store, which needs ioredis: install it \(npm install ioredis\); ioredis could not be loaded \(.+\)$/,
  )
})

test('a CommonJS module-not-found, or one with only its message, is read the same way', async (t) => {
  const commonjs = Object.assign(new Error("Cannot find module 'ioredis'"), {
    code: 'MODULE_NOT_FOUND',
  })
  await t.rejects(
    importPeer(PEER, 'ioredis', () => Promise.reject(commonjs)),
    { name: 'OptionsError', option: 'store' },
  )
  const bare = new Error("Cannot find package 'ioredis' imported from x.js")
  await t.rejects(
    importPeer(PEER, 'ioredis', () => Promise.reject(bare)),
    { name: 'OptionsError', option: 'store' },
  )
})

test('any other failure of the import is passed on as it is, an Error or not', async (t) => {
  const broken = Object.assign(new Error('syntax error in ioredis'), { code: 'ERR_REQUIRE_ESM' })
  await t.rejects(
    importPeer(PEER, 'ioredis', () => Promise.reject(broken)),
    broken,
  )
  const caught = await importPeer(PEER, 'ioredis', () => Promise.reject(null)).then(
    () => 'resolved',
    (value: unknown) => value,
  )
  t.equal(caught, null)
})

test('an installed peer is answered as imported', async (t) => {
  const fastify = await importPeer(PEER, 'fastify', () => import('fastify'))
  t.type(fastify.default, 'function')
})
