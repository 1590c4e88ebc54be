import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { type Test, test } from 'tap'
import { type JobContext, type JobsOptions, RedisJobStore, restwellJobs } from '../src/index.js'
import { toRecord } from '../src/redis-store.js'
import { type OwnRedis, ownRedis } from '../../../test/helpers/services.js'

function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

// Generous margins: CI machines are shared and slow; these wait for an outcome, not a speed.
async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 20))
  }
}

let redis: OwnRedis
let prefixes = 0

test('setup', async () => {
  redis = await ownRedis()
  await redis.start()
})

async function instance(
  options: JobsOptions,
  setup: (app: FastifyInstance) => void,
): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellJobs, { pollMs: 20, leaseMs: 2000, timeoutMs: 1500, ...options })
  setup(app)
  app.post('/exports', async (request, reply) =>
    reply.accepted(await app.jobs.enqueue('export', request.body)),
  )
  await app.ready()
  return app
}

const statusOf = async (app: FastifyInstance, id: string): Promise<number> =>
  (await app.inject({ url: `/jobs/${id}` })).statusCode

test('two instances share jobs: created on A, visible on B, completed by B', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const release = gate()
  const started = gate<JobContext>()
  const a = await instance({ store, worker: false }, (app) => {
    app.jobs.define('export', async () => 'never run on A', { estimatedTime: 45 })
  })
  const b = await instance({ store }, (app) => {
    app.jobs.define<{ n: number }>('export', async (payload, ctx) => {
      await ctx.progress(10)
      started.open(ctx)
      await release.promise
      return { doubled: payload.n * 2 }
    })
  })
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  const res = await a.inject({ method: 'POST', url: '/exports', payload: { n: 21 } })
  t.equal(res.statusCode, 202)
  t.match(res.json(), { status: 'queued', estimatedTime: 'PT45S' })
  const { jobId } = res.json()
  const ctx = await started.promise
  t.equal(ctx.jobId, jobId)
  const onA = await a.inject({ url: `/jobs/${jobId}` })
  t.match(onA.json(), { jobId, status: 'running', progress: 10, estimatedTime: 'PT45S' })
  release.open()
  await until(async () => (await statusOf(a, jobId)) === 303)
  const done = await a.inject({ url: `/jobs/${jobId}` })
  t.equal(done.headers.location, `/jobs/${jobId}/result`)
  t.same((await a.inject({ url: done.headers.location as string })).json(), { doubled: 42 })
  t.equal((await b.inject({ url: `/jobs/${jobId}` })).statusCode, 303, 'same view from B')
})

test('a job whose worker died is re-queued when its lease expires, and completed elsewhere', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const attempts: number[] = []
  const a = await instance({ store, worker: false }, (app) => {
    app.jobs.define('export', async () => 'x')
  })
  const job = await a.jobs.enqueue('export', { big: true })
  // A worker takes the job and then its instance dies: no heartbeat, no release.
  const dying = new Redis(redis.url)
  const dead = new RedisJobStore(dying, true, {
    keyPrefix: store.keyPrefix,
    leaseMs: 300,
    maxAttempts: 3,
    ttlMs: 60_000,
  })
  const claimed = await dead.claim('dead-instance', ['export'])
  t.equal(claimed?.id, job.jobId)
  t.equal(claimed?.owner, 'dead-instance:1')
  await dead.close()
  t.equal((await a.jobs.get(job.jobId))?.status, 'running')
  await a.close()

  // A new instance (the restart) picks it up once the lease has run out.
  const b = await instance({ store }, (app) => {
    app.jobs.define('export', async (_payload, ctx) => {
      attempts.push(ctx.attempt)
      return { location: '/v1/exports/9' }
    })
  })
  t.teardown(() => b.close())
  await until(async () => (await statusOf(b, job.jobId)) === 303)
  t.equal((await b.inject({ url: `/jobs/${job.jobId}` })).headers.location, '/v1/exports/9')
  t.same(attempts, [2])
})

test('a job whose workers keep dying fails after maxAttempts', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const a = await instance({ store, worker: false, maxAttempts: 1 }, (app) => {
    app.jobs.define('export', async () => 'x')
  })
  const job = await a.jobs.enqueue('export', {})
  const dead = new RedisJobStore(new Redis(redis.url), true, {
    keyPrefix: store.keyPrefix,
    leaseMs: 100,
    maxAttempts: 1,
    ttlMs: 60_000,
  })
  await dead.claim('dead', ['export'])
  await dead.close()
  const b = await instance({ store, maxAttempts: 1 }, (app) => {
    app.jobs.define('export', async () => 'y')
  })
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  await until(async () => (await a.jobs.get(job.jobId))?.status === 'failed')
  const res = await a.inject({ url: `/jobs/${job.jobId}` })
  t.equal(res.statusCode, 200)
  t.match(res.json().error, {
    statusCode: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: /interrupted too many times/,
  })
})

test('heartbeats keep a long job with one worker; a lost lease aborts the run', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const runs: number[] = []
  const stolen = gate<JobContext>()
  let sawAbort = false
  const b = await instance({ store, leaseMs: 600 }, (app) => {
    app.jobs.define('export', async (_payload, ctx) => {
      runs.push(ctx.attempt)
      await new Promise((r) => setTimeout(r, 1800))
      return 'slow but fine'
    })
    app.jobs.define('stolen', async (_payload, ctx) => {
      stolen.open(ctx)
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      sawAbort = true
      return 'too late'
    })
  })
  t.teardown(() => b.close())
  const job = await b.jobs.enqueue('export', {})
  await until(async () => (await statusOf(b, job.jobId)) === 303)
  t.same(runs, [1], 'never re-queued while its worker lives')

  const other = await b.jobs.enqueue('stolen', {})
  await stolen.promise
  const raw = new Redis(redis.url)
  t.teardown(() => raw.quit())
  await raw.hset(`${store.keyPrefix}job:${other.jobId}`, 'owner', 'someone-else:9')
  await until(async () => sawAbort)
  await new Promise((r) => setTimeout(r, 50))
  const after = await b.jobs.get(other.jobId)
  t.equal(after?.status, 'running', "the dropped run's outcome is not recorded")
})

test('graceful close gives unfinished jobs back; another instance finishes them', async (t) => {
  type Handler = (payload: unknown, ctx: { signal: AbortSignal }) => Promise<unknown>
  const handlers: Record<string, Handler> = {
    // ignores the abort and outlives closeTimeoutMs
    stubborn: async () => {
      await new Promise((r) => setTimeout(r, 400))
      return 'stubborn'
    },
    // rejects on abort, as a handler passing ctx.signal to fetch or a database driver does:
    // stopped, not failed
    'honours ctx.signal': (_payload, ctx) =>
      new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
      ),
  }
  for (const [name, handler] of Object.entries(handlers)) {
    const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
    const started = gate()
    const a = await instance({ store, closeTimeoutMs: name === 'stubborn' ? 50 : 1000 }, (app) => {
      app.jobs.define('export', async (payload, ctx) => {
        started.open()
        return handler(payload, ctx)
      })
    })
    const job = await a.jobs.enqueue('export', {})
    await started.promise
    await a.close()
    const c = await instance({ store }, (app) => {
      app.jobs.define('export', async (_payload, ctx) => ({ attempt: ctx.attempt }))
    })
    t.teardown(() => c.close())
    await until(async () => (await statusOf(c, job.jobId)) === 303)
    t.same(
      (await c.inject({ url: `/jobs/${job.jobId}/result` })).json(),
      { attempt: 1 },
      `${name}: run again elsewhere, the stopped attempt not counted`,
    )
  }
})

test('a worker never takes a job it has no handler for: it waits for an instance that has one', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const web = await instance({ store, worker: false }, (app) => {
    app.jobs.define('export', async () => 'never run here')
  })
  // An instance of another release: a worker without the 'export' handler.
  const other = await instance({ store }, (app) => {
    app.jobs.define('other', async () => 'y')
  })
  t.teardown(async () => {
    await web.close()
    await other.close()
  })
  const job = await web.jobs.enqueue('export', {})
  // Enqueued after the export job: the other worker polls past the export job, not stuck on it.
  const later = await other.jobs.enqueue('other', {})
  await until(async () => (await other.jobs.get(later.jobId))?.status === 'succeeded')
  await new Promise((r) => setTimeout(r, 200)) // ten more polls of the other worker
  t.match(await web.jobs.get(job.jobId), { status: 'queued' }, 'still queued, never failed')
  t.notOk((await web.jobs.get(job.jobId))?.error)

  const next = await instance({ store }, (app) => {
    app.jobs.define('export', async (_payload, ctx) => ({ attempt: ctx.attempt }))
  })
  t.teardown(() => next.close())
  await until(async () => (await statusOf(web, job.jobId)) === 303)
  t.same(
    (await web.inject({ url: `/jobs/${job.jobId}/result` })).json(),
    { attempt: 1 },
    'run once, by the instance that has its handler',
  )
})

test('in Redis too, a location is stored encoded, or its job failed with a public error', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const app = await instance({ store }, (app) => {
    app.jobs.define<{ location: string }>('export', async (payload) => ({
      location: payload.location,
    }))
  })
  t.teardown(() => app.close())
  const good = await app.jobs.enqueue('export', { location: '/files/отчёт 1.csv' })
  const bad = await app.jobs.enqueue('export', { location: '/files/x\r\nSet-Cookie: a=b' })
  await until(async () => (await statusOf(app, good.jobId)) === 303)
  t.equal(
    (await app.inject({ url: `/jobs/${good.jobId}/result` })).headers.location,
    '/files/%D0%BE%D1%82%D1%87%D1%91%D1%82%201.csv',
  )
  await until(async () => (await app.jobs.get(bad.jobId))?.status === 'failed')
  t.match((await app.inject({ url: `/jobs/${bad.jobId}` })).json().error, {
    statusCode: 500,
    message: "The location of the job's result is not a valid URI reference",
  })
})

test('rolling deploy: old workers run only the job names they know, nothing fails', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const ran: string[] = []
  const kinds = (release: string, names: string[]) => (app: FastifyInstance) => {
    for (const name of names) {
      app.jobs.define(name, async () => {
        ran.push(`${release} ${name}`)
        return { name }
      })
    }
  }
  const old = await instance({ store }, kinds('old', ['export']))
  const fresh = await instance({ store }, kinds('new', ['export', 'report']))
  const web = await instance({ store, worker: false }, kinds('web', ['export', 'report']))
  t.teardown(async () => {
    await old.close()
    await fresh.close()
    await web.close()
  })
  const jobs = []
  for (let i = 0; i < 10; i++) {
    jobs.push(await web.jobs.enqueue('report', { i }), await web.jobs.enqueue('export', { i }))
  }
  for (const job of jobs) await until(async () => (await statusOf(web, job.jobId)) === 303)
  t.equal(ran.length, 20, 'every job ran once')
  t.notOk(ran.includes('old report'), 'no old worker took a report')
  t.notOk(ran.includes('web report') || ran.includes('web export'), 'the web tier ran nothing')
})

/** A Redis store of its own (a fresh key prefix) and a raw client on the same server. */
async function ownStore(t: Test): Promise<{ raw: Redis; p: string; store: RedisJobStore }> {
  const raw = new Redis(redis.url)
  const p = `t${++prefixes}:`
  const store = new RedisJobStore(new Redis(redis.url), true, {
    keyPrefix: p,
    leaseMs: 60_000,
    maxAttempts: 3,
    ttlMs: 60_000,
  })
  t.teardown(async () => {
    await store.close()
    await raw.quit()
  })
  return { raw, p, store }
}

test('the Redis store claims by name: oldest first across names, others left in place', async (t) => {
  const { raw, p, store } = await ownStore(t)
  const ids = ['1', '2', '3', '4'].map((n) => `00000000-0000-4000-8000-00000000000${n}`)
  const [r1, e1, r2, gone] = ids as [string, string, string, string]
  const create = async (id: string, name: string): Promise<void> => {
    await store.create({ id, name, payload: '{}', estimatedTime: 'PT1S' })
    await new Promise((r) => setTimeout(r, 3)) // distinct createdAt (ms)
  }
  await create(gone, 'export')
  await create(r1, 'report')
  await create(e1, 'export')
  await create(r2, 'report')
  await raw.del(`${p}job:${gone}`) // expired or deleted while queued
  t.equal(await store.claim('w', []), undefined, 'no names: nothing')
  t.equal(await store.claim('w', ['import']), undefined, 'no job of that name')
  t.match(await store.claim('w', ['export']), { id: e1, status: 'running', owner: 'w:1' })
  t.equal(
    await raw.llen(`${p}queue:export`),
    0,
    'the entry of a vanished job is dropped on the way',
  )
  t.equal(await store.claim('w', ['export']), undefined, 'the older reports are not taken')
  t.match(await store.claim('w', ['export', 'report']), { id: r1, owner: 'w:1' })
  t.equal(await store.release(r1, 'w:1'), true)
  t.match(
    await store.claim('w', ['report', 'export']),
    { id: r1, owner: 'w:1', attempts: 1 },
    'a job given back is the next one taken',
  )
  t.match(await store.claim('w', ['export', 'report']), { id: r2 })
  t.equal(await store.claim('w', ['export', 'report']), undefined)
})

test("jobs on the single queue of earlier versions are moved to their name's queue by reap", async (t) => {
  const { raw, p, store } = await ownStore(t)
  // What an instance of the earlier version writes: the job hash, its id on `<p>queue`.
  const legacy = async (id: string, name: string, createdAt: number): Promise<void> => {
    await raw.hset(`${p}job:${id}`, {
      id,
      name,
      payload: '{}',
      estimatedTime: 'PT1S',
      status: 'queued',
      attempts: 0,
      owner: '',
      createdAt,
      updatedAt: createdAt,
    })
    await raw.lpush(`${p}queue`, id)
  }
  const old1 = '10000000-0000-4000-8000-000000000001'
  const old2 = '10000000-0000-4000-8000-000000000002'
  await legacy(old1, 'export', 1000)
  await raw.lpush(`${p}queue`, '10000000-0000-4000-8000-00000000dead') // no hash any more
  await legacy(old2, 'export', 2000)
  t.equal(await store.claim('w', ['export']), undefined, 'not on a queue by name yet')
  t.equal(await store.reap(), 0, 'no lease expired')
  t.equal(await raw.llen(`${p}queue`), 0, 'the earlier queue is emptied')
  t.match(await store.claim('w', ['export']), { id: old1 }, 'oldest first')
  t.match(await store.claim('w', ['export']), { id: old2 })
  t.equal(await store.claim('w', ['export']), undefined)
})

test('an ioredis instance given by the user is used and left open', async (t) => {
  const client = new Redis(redis.url)
  t.teardown(() => client.quit())
  const keyPrefix = `t${++prefixes}:`
  const app = await instance({ store: { redis: client, keyPrefix } }, (app) => {
    app.jobs.define('export', async () => 7)
  })
  const job = await app.jobs.enqueue('export', {})
  await until(async () => (await statusOf(app, job.jobId)) === 303)
  await app.close()
  t.equal(client.status, 'ready')
  t.equal(await client.hget(`${keyPrefix}job:${job.jobId}`, 'status'), 'succeeded')
  t.ok((await client.pttl(`${keyPrefix}job:${job.jobId}`)) > 0, 'finished jobs expire')
  t.equal(toRecord(['id', 'x', 'status', 'weird']), undefined)
  t.equal(toRecord(null), undefined)
  t.same(toRecord(['id', 'x', 'status', 'queued']), {
    id: 'x',
    name: '',
    status: 'queued',
    payload: 'null',
    estimatedTime: 'PT0S',
    attempts: 0,
    owner: '',
    createdAt: 0,
    updatedAt: 0,
  })
  t.equal(toRecord(['name', 'x']), undefined)
})

test('the default key prefix, and a failed job written by a foreign writer', async (t) => {
  const app = await instance({ store: { redis: redis.url } }, (app) => {
    app.jobs.define('export', async () => 1)
  })
  t.teardown(() => app.close())
  const job = await app.jobs.enqueue('export', {})
  const raw = new Redis(redis.url)
  t.teardown(() => raw.quit())
  t.equal(await raw.hget(`restwell:jobs:job:${job.jobId}`, 'id'), job.jobId)
  const id = '11111111-2222-4333-8444-555555555555'
  await raw.hset(`restwell:jobs:job:${id}`, { id, status: 'failed', createdAt: 0, updatedAt: 0 })
  const generic = {
    statusCode: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: 'The job failed',
    details: [],
  }
  const res = await app.inject({ url: `/jobs/${id}` })
  t.equal(res.statusCode, 200)
  t.same(res.json().error, generic)
  await raw.hset(`restwell:jobs:job:${id}`, { error: '{"statusCode":422,"message":"old record"}' })
  t.same((await app.inject({ url: `/jobs/${id}` })).json().error, {
    ...generic,
    statusCode: 422,
    code: 'UNPROCESSABLE_ENTITY',
    message: 'old record',
  })
  const bare = '11111111-2222-4333-8444-666666666666'
  await raw.hset(`restwell:jobs:job:${bare}`, { id: bare, status: 'succeeded' })
  const result = await app.inject({ url: `/jobs/${bare}/result` })
  t.equal(result.statusCode, 200, 'a succeeded record without a result: null')
  t.equal(result.body, 'null')
})

test('Redis down: 503 with Retry-After, no hang; then recovery', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const started = gate()
  const app = await instance({ store, retryAfter: 7 }, (app) => {
    app.jobs.define('export', async () => {
      started.open()
      await new Promise((r) => setTimeout(r, 400))
      return 'done'
    })
  })
  t.teardown(() => app.close())
  const running = await app.jobs.enqueue('export', {})
  await started.promise
  await redis.kill()
  const before = Date.now()
  const res = await app.inject({ method: 'POST', url: '/exports', payload: {} })
  t.ok(
    Date.now() - before < 1500 + 3000,
    'answers once the command timeout (1.5 s) is over: no hang',
  )
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '7')
  t.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
  const status = await app.inject({ url: `/jobs/${running.jobId}` })
  t.equal(status.statusCode, 503)
  await new Promise((r) => setTimeout(r, 500))
  await redis.start()
  await until(async () => {
    const again = await app.inject({ method: 'POST', url: '/exports', payload: {} })
    return again.statusCode === 202
  }, 8000)
  t.pass('enqueue works again once Redis is back')
})

test('an ioredis client with its own keyPrefix: jobs are claimed, run and reaped', async (t) => {
  // ioredis prefixes the KEYS of a script, never its ARGV: the job keys the claim and reap
  // scripts build from the id must carry the client's prefix too.
  const client = new Redis(redis.url, { keyPrefix: 'app:' })
  const raw = new Redis(redis.url)
  t.teardown(async () => {
    await client.quit()
    await raw.quit()
  })
  const keyPrefix = `t${++prefixes}:`
  const store = new RedisJobStore(client, false, {
    keyPrefix,
    leaseMs: 50,
    maxAttempts: 3,
    ttlMs: 60_000,
  })
  const id = '22222222-3333-4444-8555-666666666666'
  await store.create({ id, name: 'export', payload: '{}', estimatedTime: 'PT1S' })
  t.equal(await raw.hget(`app:${keyPrefix}job:${id}`, 'status'), 'queued', 'under both prefixes')
  const claimed = await store.claim('dead', ['export'])
  t.match(claimed, { id, status: 'running', owner: 'dead:1', attempts: 1 }, 'claimed')
  t.match(await store.get(id), { status: 'running', owner: 'dead:1' })
  // The claiming instance died: no heartbeat. Its lease (50 ms) runs out and a reap re-queues.
  await until(async () => (await store.reap()) > 0)
  t.match(await store.get(id), { status: 'queued', owner: '' }, 'reaped: queued again')
  t.match(await store.claim('next', ['export']), { id, owner: 'next:2', attempts: 2 })

  const app = await instance({ store: { redis: client, keyPrefix } }, (app) => {
    app.jobs.define('export', async () => ({ rows: 3 }))
  })
  t.teardown(() => app.close())
  const job = await app.jobs.enqueue('export', {})
  await until(async () => (await statusOf(app, job.jobId)) === 303)
  t.same((await app.inject({ url: `/jobs/${job.jobId}/result` })).json(), { rows: 3 })
  t.equal(await raw.hget(`app:${keyPrefix}job:${job.jobId}`, 'status'), 'succeeded')
})

test('close with a handler that ignores ctx.signal: no heartbeat against the closed connection', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const lines: string[] = []
  const app = Fastify({
    logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } },
  })
  await app.register(restwellErrors)
  // heartbeat every 50 ms
  await app.register(restwellJobs, { store, pollMs: 20, leaseMs: 150, closeTimeoutMs: 50 })
  const started = gate()
  app.jobs.define('export', async () => {
    started.open()
    await new Promise(() => {}) // ignores the abort, and never ends
  })
  await app.ready()
  const job = await app.jobs.enqueue('export', {})
  await started.promise
  const raw = new Redis(redis.url)
  t.teardown(() => raw.quit())
  const leases = `${store.keyPrefix}leases`
  const first = Number(await raw.zscore(leases, job.jobId))
  // A heartbeat has renewed the lease: the interval runs before close.
  await until(async () => Number(await raw.zscore(leases, job.jobId)) > first)
  await app.close()
  t.match(await raw.hgetall(`${store.keyPrefix}job:${job.jobId}`), { status: 'queued', owner: '' })
  // Ten heartbeat periods: an interval still running would have fired (and failed) by now.
  await new Promise((r) => setTimeout(r, 500))
  t.same(
    lines.filter((line) => /heartbeat/.test(line)),
    [],
    'no heartbeat after close',
  )
  t.equal(
    await raw.zscore(leases, job.jobId),
    null,
    'no lease renewed after the job was given back',
  )
})

test('teardown', async () => {
  await redis.kill()
})
