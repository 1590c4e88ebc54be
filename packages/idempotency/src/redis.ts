/**
 * The Redis store: keys shared by every instance on one server. Each operation is one Lua
 * script, so a claim is atomic: of two instances claiming one key at once, one gets it.
 * ioredis is an optional peer dependency, imported here only, when this store is configured.
 */
import { importPeer, type Peer } from '@restwell/errors'
import type { FastifyBaseLogger } from 'fastify'
import type { RedisClient } from './options.js'
import {
  type Completed,
  decodeRecord,
  encodeRecord,
  type IdempotencyStore,
  type Running,
  type StoredRecord,
} from './store.js'

/** Sets the marker unless the key holds a record, which it returns (atomically: one script). */
const CLAIM = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1])
`
/** Replaces the marker by the completed record, if the key still holds that marker. */
const COMPLETE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`
/** Deletes the key, if it still holds the marker. */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`

interface Scripts {
  restwellIdempotencyClaim(key: string, marker: string, ms: number): Promise<string | null>
  restwellIdempotencyComplete(
    key: string,
    marker: string,
    record: string,
    ms: number,
  ): Promise<number>
  restwellIdempotencyRelease(key: string, marker: string): Promise<number>
}

/** The Redis store's optional peer. */
export const REDIS_STORE: Peer = {
  plugin: '@restwell/idempotency',
  option: 'store',
  needs:
    'is a Redis store, which needs the optional peer dependency ioredis: install it (npm install ioredis)',
}

/** Rejects after `ms` unless `promise` settles first: no store call may hang a request. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

const retryStrategy = (times: number): number => Math.min(times * 100, 1000)

/** Logs the first error of an outage and the recovery, not every failed reconnection. */
function watch(client: RedisClient, log: FastifyBaseLogger): void {
  let down = false
  client.on('error', (error) => {
    if (down) return
    down = true
    log.warn({ err: error }, '@restwell/idempotency: redis error')
  })
  client.on('ready', () => {
    if (!down) return
    down = false
    log.info('@restwell/idempotency: redis is back')
  })
}

/** What `redisStore` is given. */
export interface RedisStoreSettings {
  readonly redis: string | RedisClient
  readonly keyPrefix: string
  readonly timeoutMs: number
}

/**
 * Opens the Redis store: a connection of its own for a URL (commands fail at once while Redis is
 * away, and are never sent again after a reconnection: a request answered 503 claims nothing
 * later), or the app's client as it is.
 */
export async function redisStore(
  settings: RedisStoreSettings,
  log: FastifyBaseLogger,
): Promise<IdempotencyStore> {
  let client: RedisClient
  const owned = typeof settings.redis === 'string'
  if (typeof settings.redis === 'string') {
    const { Redis } = await importPeer(REDIS_STORE, 'ioredis', () => import('ioredis'))
    client = new Redis(settings.redis, {
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 1,
      connectTimeout: settings.timeoutMs,
      commandTimeout: settings.timeoutMs,
      retryStrategy,
    }) as unknown as RedisClient
  } else {
    client = settings.redis
  }
  watch(client, log)
  client.defineCommand('restwellIdempotencyClaim', { numberOfKeys: 1, lua: CLAIM })
  client.defineCommand('restwellIdempotencyComplete', { numberOfKeys: 1, lua: COMPLETE })
  client.defineCommand('restwellIdempotencyRelease', { numberOfKeys: 1, lua: RELEASE })
  const scripts = client as unknown as Scripts
  // Before the first connection a command waits for it (bounded); once up, a connection that
  // is down fails the command at once: 503 now rather than after timeoutMs.
  let first: Promise<void> | undefined =
    client.status === 'ready'
      ? undefined
      : new Promise((resolve) => {
          client.on('ready', () => {
            first = undefined
            resolve()
          })
        })
  async function ready(): Promise<void> {
    if (first !== undefined) await within(first, settings.timeoutMs)
    else if (client.status !== 'ready') {
      throw new Error(`the Redis connection is ${client.status}`)
    }
  }
  const key = (name: string): string => `${settings.keyPrefix}${name}`
  return {
    async claim(name: string, marker: Running, ms: number): Promise<StoredRecord | undefined> {
      await ready()
      const found = await within(
        scripts.restwellIdempotencyClaim(key(name), encodeRecord(marker), Math.ceil(ms)),
        settings.timeoutMs,
      )
      return found === null ? undefined : decodeRecord(found)
    },
    async complete(name: string, marker: Running, record: Completed, ms: number) {
      await ready()
      const done = scripts.restwellIdempotencyComplete(
        key(name),
        encodeRecord(marker),
        encodeRecord(record),
        Math.ceil(ms),
      )
      return (await within(done, settings.timeoutMs)) === 1
    },
    async release(name: string, marker: Running): Promise<void> {
      await ready()
      await within(
        scripts.restwellIdempotencyRelease(key(name), encodeRecord(marker)),
        settings.timeoutMs,
      )
    },
    async close(): Promise<void> {
      if (owned) client.disconnect()
    },
  }
}
