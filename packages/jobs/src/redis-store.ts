/**
 * The Redis job store, for several instances sharing one Redis: job state in hashes, one FIFO
 * list per job name, from which a worker takes, atomically, the oldest job of the names it has
 * handlers for (LMOVE into a processing list, in a Lua script that also writes the lease),
 * leases in a sorted set that any worker reaps.
 */
import type { Redis } from 'ioredis'
import type { JobOutcome, JobRecord, JobStatus, JobStore } from './types.js'

export interface RedisStoreOptions {
  /** Prefix of every key. */
  keyPrefix: string
  /** Lease length in ms: a running job whose lease is not renewed within it is re-queued. */
  leaseMs: number
  /** Runs after which a lost lease fails the job instead of re-queueing it. */
  maxAttempts: number
  /** How long a finished job stays readable, in ms. */
  ttlMs: number
}

// Every script reads the clock from Redis (TIME), so all instances share one clock.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

/** KEYS: job, queue. ARGV: id, name, payload, estimatedTime. */
const CREATE = `${NOW}
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'payload', ARGV[3],
  'estimatedTime', ARGV[4], 'status', 'queued', 'attempts', 0, 'owner', '',
  'createdAt', now, 'updatedAt', now)
redis.call('LPUSH', KEYS[2], ARGV[1])
return redis.call('HGETALL', KEYS[1])`

/**
 * KEYS: processing, leases. ARGV: job key base, queue key base, instance, leaseMs, then the job
 * names this instance has a handler for. Each name has its own queue: the oldest queued job
 * (by `createdAt`, the queue's right end; ties to the name given first) of those queues is
 * taken, a job of any other name is left where it is for an instance that defines it. The job
 * and queue keys are built here from the ids and names, so their bases must be the full keys
 * as Redis sees them: the client's own `keyPrefix` included (ioredis prefixes KEYS, never ARGV).
 */
const CLAIM = `${NOW}
local best, bestQueue, bestAt
for i = 5, #ARGV do
  local queue = ARGV[2] .. ARGV[i]
  while true do
    local id = redis.call('LINDEX', queue, -1)
    if not id then break end
    local job = redis.call('HMGET', ARGV[1] .. id, 'status', 'createdAt')
    if job[1] == 'queued' then
      local at = tonumber(job[2]) or 0
      if not best or at < bestAt then best, bestQueue, bestAt = id, queue, at end
      break
    end
    redis.call('RPOP', queue)
  end
end
if not best then return false end
redis.call('LMOVE', bestQueue, KEYS[1], 'RIGHT', 'LEFT')
local key = ARGV[1] .. best
local attempt = redis.call('HINCRBY', key, 'attempts', 1)
redis.call('HSET', key, 'status', 'running', 'owner', ARGV[3] .. ':' .. attempt, 'updatedAt', now)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), best)
return redis.call('HGETALL', key)`

const OWNED = `if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[2]
  or redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
`

/** KEYS: job, leases. ARGV: id, owner, leaseMs. */
const HEARTBEAT = `${OWNED}${NOW}
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
return 1`

/** KEYS: job. ARGV: id, owner, progress. */
const PROGRESS = `${OWNED}${NOW}
redis.call('HSET', KEYS[1], 'progress', ARGV[3], 'updatedAt', now)
return 1`

/** KEYS: job, processing, leases. ARGV: id, owner, status, field, value, ttlMs. */
const FINISH = `${OWNED}${NOW}
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'owner', '', 'updatedAt', now, ARGV[4], ARGV[5])
redis.call('LREM', KEYS[2], 1, ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1`

/** KEYS: job, processing, leases. ARGV: id, owner, queue key base (as for CLAIM). Back to the front of its name's queue. */
const RELEASE = `${OWNED}${NOW}
redis.call('HSET', KEYS[1], 'status', 'queued', 'owner', '', 'updatedAt', now)
redis.call('HINCRBY', KEYS[1], 'attempts', -1)
redis.call('LREM', KEYS[2], 1, ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('RPUSH', ARGV[3] .. (redis.call('HGET', KEYS[1], 'name') or ''), ARGV[1])
return 1`

/**
 * KEYS: legacy queue, processing, leases. ARGV: job key base, queue key base (as for CLAIM),
 * maxAttempts, ttlMs, failure JSON. An expired job goes back to the front of its name's queue.
 * The one queue of every name that earlier versions used (`<p>queue`) is emptied into the
 * queues by name, up to 100 jobs a call, older jobs in front: nothing an earlier version
 * enqueued, released or reaped during a rolling upgrade is left where no worker looks.
 */
const REAP = `${NOW}
for _ = 1, 100 do
  local id = redis.call('LPOP', KEYS[1])
  if not id then break end
  local name = redis.call('HGET', ARGV[1] .. id, 'name')
  if name then redis.call('RPUSH', ARGV[2] .. name, id) end
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[3], id)
  redis.call('LREM', KEYS[2], 1, id)
  local key = ARGV[1] .. id
  if redis.call('HGET', key, 'status') == 'running' then
    if tonumber(redis.call('HGET', key, 'attempts')) >= tonumber(ARGV[3]) then
      redis.call('HSET', key, 'status', 'failed', 'owner', '', 'updatedAt', now, 'error', ARGV[5])
      redis.call('PEXPIRE', key, ARGV[4])
    else
      redis.call('HSET', key, 'status', 'queued', 'owner', '', 'updatedAt', now)
      redis.call('RPUSH', ARGV[2] .. (redis.call('HGET', key, 'name') or ''), id)
    end
  end
end
return #ids`

/** The failure recorded when a job's worker vanished too many times. */
export const INTERRUPTED_FAILURE: string = JSON.stringify({
  statusCode: 500,
  message: 'The job was interrupted too many times',
})

type Reply = string[] | null
interface Scripts {
  rwJobCreate(job: string, queue: string, ...argv: string[]): Promise<Reply>
  rwJobClaimByName(processing: string, leases: string, ...argv: string[]): Promise<Reply>
  rwJobHeartbeat(job: string, leases: string, ...argv: string[]): Promise<number>
  rwJobProgress(job: string, ...argv: string[]): Promise<number>
  rwJobFinish(job: string, processing: string, leases: string, ...argv: string[]): Promise<number>
  rwJobReleaseByName(
    job: string,
    processing: string,
    leases: string,
    ...argv: string[]
  ): Promise<number>
  rwJobReapByName(
    legacyQueue: string,
    processing: string,
    leases: string,
    ...argv: string[]
  ): Promise<number>
}

// A script whose keys or arguments change gets a new name: a connection shared with another
// copy of this package keeps the definition it was given first (\`name in redis\` below).
const SCRIPTS: ReadonlyArray<[keyof Scripts, number, string]> = [
  ['rwJobCreate', 2, CREATE],
  ['rwJobClaimByName', 2, CLAIM],
  ['rwJobHeartbeat', 2, HEARTBEAT],
  ['rwJobProgress', 1, PROGRESS],
  ['rwJobFinish', 3, FINISH],
  ['rwJobReleaseByName', 3, RELEASE],
  ['rwJobReapByName', 3, REAP],
]

const STATUSES: ReadonlySet<string> = new Set(['queued', 'running', 'succeeded', 'failed'])

/** HGETALL's flat [field, value, ...] array → a record; undefined for an empty or foreign hash. */
export function toRecord(flat: readonly string[] | null): JobRecord | undefined {
  if (flat === null || flat.length === 0) return undefined
  const h: Record<string, string> = {}
  for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i] as string] = flat[i + 1] as string
  if (h.id === undefined || h.status === undefined || !STATUSES.has(h.status)) return undefined
  const record: JobRecord = {
    id: h.id,
    name: h.name ?? '',
    status: h.status as JobStatus,
    payload: h.payload ?? 'null',
    estimatedTime: h.estimatedTime ?? 'PT0S',
    attempts: Number(h.attempts ?? 0),
    owner: h.owner ?? '',
    createdAt: Number(h.createdAt ?? 0),
    updatedAt: Number(h.updatedAt ?? 0),
  }
  if (h.progress !== undefined) record.progress = Number(h.progress)
  if (h.result !== undefined) record.result = h.result
  if (h.location !== undefined) record.location = h.location
  if (h.error !== undefined) record.error = h.error
  return record
}

/** Jobs in Redis, shared by every instance that uses the same Redis and key prefix. */
export class RedisJobStore implements JobStore {
  readonly #redis: Redis & Scripts
  readonly #owned: boolean
  readonly #options: RedisStoreOptions
  /** The queue of one job name is \`#queueBase\` + name. */
  readonly #queueBase: string
  /** The one queue of every name that earlier versions used; emptied into \`#queueBase\` + name by \`reap\`. */
  readonly #legacyQueue: string
  readonly #processing: string
  readonly #leases: string
  readonly #jobBase: string
  /** `#jobBase` as Redis sees it, for the scripts that build job keys themselves. */
  readonly #scriptJobBase: string
  /** `#queueBase` as Redis sees it, likewise. */
  readonly #scriptQueueBase: string

  /** `owned`: this store created the connection and closes it. */
  constructor(redis: Redis, owned: boolean, options: RedisStoreOptions) {
    for (const [name, numberOfKeys, lua] of SCRIPTS) {
      if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua })
    }
    this.#redis = redis as Redis & Scripts
    this.#owned = owned
    this.#options = options
    const p = options.keyPrefix
    this.#queueBase = `${p}queue:`
    this.#legacyQueue = `${p}queue`
    this.#processing = `${p}processing`
    this.#leases = `${p}leases`
    this.#jobBase = `${p}job:`
    // ioredis adds its `keyPrefix` to key arguments (KEYS of the scripts, HGETALL's key) but
    // not to ARGV: the key a script builds from ARGV needs it added here, or it names another
    // hash than the one `create` wrote. (`join` reads an absent prefix as '': ioredis defaults
    // it to '' but the type allows undefined.)
    this.#scriptJobBase = [redis.options.keyPrefix, this.#jobBase].join('')
    this.#scriptQueueBase = [redis.options.keyPrefix, this.#queueBase].join('')
  }

  #key(id: string): string {
    return this.#jobBase + id
  }

  async create(job: {
    id: string
    name: string
    payload: string
    estimatedTime: string
  }): Promise<JobRecord> {
    const flat = await this.#redis.rwJobCreate(
      this.#key(job.id),
      this.#queueBase + job.name,
      job.id,
      job.name,
      job.payload,
      job.estimatedTime,
    )
    return toRecord(flat) as JobRecord
  }

  async get(id: string): Promise<JobRecord | undefined> {
    return toRecord(await this.#redis.hgetall(this.#key(id)).then(flatten))
  }

  async claim(instance: string, names: readonly string[]): Promise<JobRecord | undefined> {
    const flat = await this.#redis.rwJobClaimByName(
      this.#processing,
      this.#leases,
      this.#scriptJobBase,
      this.#scriptQueueBase,
      instance,
      String(this.#options.leaseMs),
      ...names,
    )
    return toRecord(flat)
  }

  async heartbeat(id: string, owner: string): Promise<boolean> {
    const done = await this.#redis.rwJobHeartbeat(
      this.#key(id),
      this.#leases,
      id,
      owner,
      String(this.#options.leaseMs),
    )
    return done === 1
  }

  async progress(id: string, owner: string, value: number): Promise<boolean> {
    return (await this.#redis.rwJobProgress(this.#key(id), id, owner, String(value))) === 1
  }

  async finish(id: string, owner: string, outcome: JobOutcome): Promise<boolean> {
    const [field, value] =
      'result' in outcome
        ? ['result', outcome.result]
        : 'location' in outcome
          ? ['location', outcome.location]
          : ['error', JSON.stringify(outcome.error)]
    const done = await this.#redis.rwJobFinish(
      this.#key(id),
      this.#processing,
      this.#leases,
      id,
      owner,
      outcome.status,
      field,
      value,
      String(this.#options.ttlMs),
    )
    return done === 1
  }

  async release(id: string, owner: string): Promise<boolean> {
    const done = await this.#redis.rwJobReleaseByName(
      this.#key(id),
      this.#processing,
      this.#leases,
      id,
      owner,
      this.#scriptQueueBase,
    )
    return done === 1
  }

  async reap(): Promise<number> {
    return this.#redis.rwJobReapByName(
      this.#legacyQueue,
      this.#processing,
      this.#leases,
      this.#scriptJobBase,
      this.#scriptQueueBase,
      String(this.#options.maxAttempts),
      String(this.#options.ttlMs),
      INTERRUPTED_FAILURE,
    )
  }

  /** Disconnects a connection this store created (the worker is stopped by then: nothing is pending). */
  async close(): Promise<void> {
    if (this.#owned) this.#redis.disconnect()
  }
}

/** HGETALL in ioredis answers an object; the scripts answer the flat array. */
function flatten(hash: Record<string, string>): string[] {
  const flat: string[] = []
  for (const [field, value] of Object.entries(hash)) flat.push(field, value)
  return flat
}
