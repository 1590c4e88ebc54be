import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { test } from 'tap'
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
  const claimed = await dead.claim('dead-instance')
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
  await dead.claim('dead')
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

test('a job with no handler on the worker fails', async (t) => {
  const store = { redis: redis.url, keyPrefix: `t${++prefixes}:` }
  const a = await instance({ store, worker: false }, (app) => {
    app.jobs.define('export', async () => 'x')
  })
  const b = await instance({ store }, (app) => {
    app.jobs.define('other', async () => 'y')
  })
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  const job = await a.jobs.enqueue('export', {})
  await until(async () => (await a.jobs.get(job.jobId))?.status === 'failed')
  const body = (await a.inject({ url: `/jobs/${job.jobId}` })).json()
  t.equal(body.error.message, 'The job failed')
  const result = await a.inject({ url: `/jobs/${job.jobId}/result` })
  t.equal(result.statusCode, 409)
  t.equal(result.json().error.message, `Job ${job.jobId} failed: The job failed`)
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
  const claimed = await store.claim('dead')
  t.match(claimed, { id, status: 'running', owner: 'dead:1', attempts: 1 }, 'claimed')
  t.match(await store.get(id), { status: 'running', owner: 'dead:1' })
  // The claiming instance died: no heartbeat. Its lease (50 ms) runs out and a reap re-queues.
  await until(async () => (await store.reap()) > 0)
  t.match(await store.get(id), { status: 'queued', owner: '' }, 'reaped: queued again')
  t.match(await store.claim('next'), { id, owner: 'next:2', attempts: 2 })

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
