import { httpErrors, restwellErrors } from '@restwell/errors'
import { Queue, Worker } from 'bullmq'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { type Test, test } from 'tap'
import {
  type JobContext,
  type JobsOptions,
  jobProcessor,
  PUBLIC_FAILURE_PREFIX,
  type RedisStoreConfig,
  restwellJobs,
} from '../src/index.js'
import { until } from '../../../test/helpers/patience.js'
import { type OwnRedis, ownRedis } from '../../../test/helpers/services.js'

function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

/** The app's BullMQ queue, typed as bullmq's (`app.jobs.queue` is typed by a few members). */
function queueOf(app: FastifyInstance): Queue {
  return app.jobs.queue as Queue
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

let redis: OwnRedis
let queues = 0

test('setup', async () => {
  redis = await ownRedis()
  await redis.start()
})

/** A queue of its own for each test; short BullMQ lock and stalled check, so a lost worker is noticed fast. */
function store(extra: Partial<RedisStoreConfig> = {}): RedisStoreConfig & { queue: string } {
  return {
    redis: redis.url,
    queue: `q${++queues}`,
    ...extra,
    workerOptions: { lockDuration: 1000, stalledInterval: 300, ...extra.workerOptions },
  }
}

async function instance(
  options: JobsOptions,
  setup: (app: FastifyInstance) => void,
): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellJobs, { pollMs: 50, timeoutMs: 1500, ...options })
  setup(app)
  app.post('/exports', async (request, reply) =>
    reply.accepted(await app.jobs.enqueue('export', request.body)),
  )
  await app.ready()
  return app
}

/** How many jobs the app's queue holds, in any state. */
async function everyJob(app: FastifyInstance): Promise<number> {
  const counts = await queueOf(app).getJobCounts()
  return Object.values(counts).reduce((sum, n) => sum + n, 0)
}

const statusOf = async (app: FastifyInstance, id: string): Promise<number> =>
  (await app.inject({ url: `/jobs/${id}` })).statusCode

/** A raw BullMQ queue handle on a test's queue, for what a test inspects or writes itself. */
function rawQueue(t: Test, name: string): Queue {
  const connection = new Redis(redis.url)
  const queue = new Queue(name, { connection })
  t.teardown(async () => {
    await queue.close()
    connection.disconnect()
  })
  return queue
}

test('two instances share jobs: created on A, visible on B, completed by B', async (t) => {
  const shared = store()
  const release = gate()
  const started = gate<JobContext>()
  const a = await instance({ store: shared, worker: false }, (app) => {
    app.jobs.define('export', async () => 'never run on A', { estimatedTime: 45 })
  })
  const b = await instance({ store: shared }, (app) => {
    app.jobs.define<{ n: number }>(
      'export',
      async (payload, ctx) => {
        await ctx.progress(10)
        started.open(ctx)
        await release.promise
        return { doubled: payload.n * 2 }
      },
      { estimatedTime: 45 },
    )
  })
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  t.equal(queueOf(a).name, shared.queue, 'app.jobs.queue is the BullMQ queue')
  const res = await a.inject({ method: 'POST', url: '/exports', payload: { n: 21 } })
  t.equal(res.statusCode, 202)
  t.match(res.json(), { status: 'queued', estimatedTime: 'PT45S' })
  const { jobId } = res.json()
  const ctx = await started.promise
  t.equal(ctx.jobId, jobId)
  t.equal(ctx.attempt, 1)
  await t.rejects(ctx.progress(101), RangeError)
  const onA = await a.inject({ url: `/jobs/${jobId}` })
  t.match(onA.json(), { jobId, status: 'running', progress: 10, estimatedTime: 'PT45S' })
  t.equal(onA.headers['cache-control'], 'no-store')
  release.open()
  await until(async () => (await statusOf(a, jobId)) === 303)
  const done = await a.inject({ url: `/jobs/${jobId}` })
  t.equal(done.headers.location, `/jobs/${jobId}/result`)
  t.match(done.json(), { status: 'succeeded', progress: 10 })
  t.ok(done.json().updatedAt >= done.json().createdAt)
  t.same((await a.inject({ url: done.headers.location as string })).json(), { doubled: 42 })
  t.equal((await b.inject({ url: `/jobs/${jobId}` })).statusCode, 303, 'same view from B')
  const raw = await rawQueue(t, shared.queue).getJob(jobId)
  t.match(raw, { name: 'export', data: { n: 21 }, returnvalue: { doubled: 42 } }, 'a BullMQ job')
  t.match(raw?.opts, { removeOnComplete: { age: 86_400 }, removeOnFail: { age: 86_400 } })
})

test('BullMQ states map to queued (waiting, delayed, prioritized), running, succeeded, failed', async (t) => {
  const delayed = store({ jobOptions: { delay: 60_000 } })
  const prioritized = store({ jobOptions: { priority: 5 } })
  const define = (app: FastifyInstance): void => app.jobs.define('export', async () => 1)
  const a = await instance({ store: delayed, worker: false }, define)
  const b = await instance({ store: prioritized, worker: false }, define)
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  const later = await a.jobs.enqueue('export', {})
  t.equal(await queueOf(a).getJobState(later.jobId), 'delayed')
  t.match(await a.jobs.get(later.jobId), { status: 'queued' })
  const urgent = await b.jobs.enqueue('export', {})
  t.equal(await queueOf(b).getJobState(urgent.jobId), 'prioritized')
  const status = await b.inject({ url: `/jobs/${urgent.jobId}` })
  t.equal(status.statusCode, 200)
  t.same(Object.keys(status.json()), ['jobId', 'status', 'estimatedTime', 'createdAt', 'updatedAt'])
  t.equal(status.json().status, 'queued', 'no progress until a handler reports one')
})

test('retries and backoff come from BullMQ: delayed between attempts (queued), then failed', async (t) => {
  const attempts: number[] = []
  const app = await instance(
    { store: store({ jobOptions: { attempts: 3, backoff: { type: 'fixed', delay: 300 } } }) },
    (app) => {
      app.jobs.define('export', async (_payload, ctx) => {
        attempts.push(ctx.attempt)
        throw httpErrors.unprocessableEntity('The export has too many rows', {
          details: [{ field: 'body/rows', message: 'at most 1000', code: 'MAXIMUM' }],
        })
      })
    },
  )
  t.teardown(() => app.close())
  const job = await app.jobs.enqueue('export', {})
  await until(async () => attempts.length >= 1)
  await until(async () => (await queueOf(app).getJobState(job.jobId)) === 'delayed')
  t.match(await app.jobs.get(job.jobId), { status: 'queued' }, 'waiting for its next attempt')
  await until(async () => (await app.jobs.get(job.jobId))?.status === 'failed')
  t.same(attempts, [1, 2, 3])
  const res = await app.inject({ url: `/jobs/${job.jobId}` })
  t.equal(res.statusCode, 200)
  t.same(res.json().error, {
    statusCode: 422,
    code: 'UNPROCESSABLE_ENTITY',
    message: 'The export has too many rows',
    details: [{ field: 'body/rows', message: 'at most 1000', code: 'MAXIMUM' }],
  })
  const result = await app.inject({ url: `/jobs/${job.jobId}/result` })
  t.equal(result.statusCode, 409)
  t.equal(result.json().error.message, `Job ${job.jobId} failed: The export has too many rows`)
  const raw = await queueOf(app).getJob(job.jobId)
  t.equal(raw?.failedReason.startsWith(PUBLIC_FAILURE_PREFIX), true, 'the public failure, as JSON')
})

test('a failure that is not an exposed HttpError: generic for clients, the real reason for operators', async (t) => {
  const app = await instance({ store: store() }, (app) => {
    app.jobs.define('export', async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2')
    })
    app.jobs.define('thrown-string', async () => {
      throw 'a string'
    })
  })
  t.teardown(() => app.close())
  for (const name of ['export', 'thrown-string']) {
    const job = await app.jobs.enqueue(name, {})
    await until(async () => (await app.jobs.get(job.jobId))?.status === 'failed')
    const res = await app.inject({ url: `/jobs/${job.jobId}` })
    t.same(res.json().error, {
      statusCode: 500,
      code: 'INTERNAL_SERVER_ERROR',
      message: 'The job failed',
      details: [],
    })
    t.notMatch(res.body, /hunter2|ECONNREFUSED|a string|at /)
    const raw = await queueOf(app).getJob(job.jobId)
    t.match(raw?.failedReason, name === 'export' ? /hunter2/ : /a string/, 'kept in BullMQ')
  }
})

test('a job whose worker died is taken back by the stalled check and completed elsewhere', async (t) => {
  const shared = store()
  const web = await instance({ store: shared, worker: false }, (app) => {
    app.jobs.define('export', async () => 'x')
  })
  t.teardown(() => web.close())
  const job = await web.jobs.enqueue('export', { big: true })
  // A worker takes the job and its process dies: no lock renewal, no outcome.
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null })
  const dying = new Worker(shared.queue, null, { connection, lockDuration: 300, autorun: false })
  const taken = await dying.getNextJob('dead-token')
  t.equal(taken?.id, job.jobId)
  await dying.close(true)
  connection.disconnect()
  t.equal((await web.jobs.get(job.jobId))?.status, 'running')

  const attempts: number[] = []
  const next = await instance({ store: shared }, (app) => {
    app.jobs.define('export', async (_payload, ctx) => {
      attempts.push(ctx.attempt)
      return { location: '/v1/exports/9' }
    })
  })
  t.teardown(() => next.close())
  await until(async () => (await statusOf(web, job.jobId)) === 303)
  t.equal((await web.inject({ url: `/jobs/${job.jobId}` })).headers.location, '/v1/exports/9')
  t.same(attempts, [2], 'its second attempt')
})

test('a job whose workers keep dying fails after maxStalledCount', async (t) => {
  const shared = store({ workerOptions: { maxStalledCount: 0 } })
  const web = await instance({ store: shared, worker: false }, (app) => {
    app.jobs.define('export', async () => 'x')
  })
  const job = await web.jobs.enqueue('export', {})
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null })
  const dying = new Worker(shared.queue, null, { connection, lockDuration: 200, autorun: false })
  await dying.getNextJob('dead-token')
  await dying.close(true)
  connection.disconnect()
  const next = await instance({ store: shared }, (app) => {
    app.jobs.define('export', async () => 'y')
  })
  t.teardown(async () => {
    await web.close()
    await next.close()
  })
  await until(async () => (await web.jobs.get(job.jobId))?.status === 'failed')
  const res = await web.inject({ url: `/jobs/${job.jobId}` })
  t.equal(res.statusCode, 200)
  t.same(res.json().error, {
    statusCode: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: 'The job was interrupted too many times',
    details: [],
  })
})

test('a lost lock aborts ctx.signal; the stalled check runs the job again', async (t) => {
  const shared = store()
  const runs: number[] = []
  const first = gate()
  let sawAbort = false
  const app = await instance({ store: shared }, (app) => {
    app.jobs.define('export', async (_payload, ctx) => {
      runs.push(ctx.attempt)
      if (runs.length > 1) return 'second run'
      first.open()
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      sawAbort = true
      throw ctx.signal.reason
    })
  })
  t.teardown(() => app.close())
  const job = await app.jobs.enqueue('export', {})
  await first.promise
  const raw = new Redis(redis.url)
  t.teardown(() => raw.quit())
  await raw.del(`bull:${shared.queue}:${job.jobId}:lock`) // another worker's stalled check took it
  await until(async () => sawAbort)
  await until(async () => (await statusOf(app, job.jobId)) === 303)
  t.same(runs, [1, 2], 'the stopped run recorded nothing; the next one finished')
})

test('graceful close gives unfinished jobs back; another instance finishes them', async (t) => {
  type Handler = (payload: unknown, ctx: { signal: AbortSignal }) => Promise<unknown>
  const handlers: Record<string, Handler> = {
    // ignores the abort and outlives closeTimeoutMs
    stubborn: async () => {
      await sleep(400)
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
    const shared = store()
    const started = gate()
    const a = await instance(
      { store: shared, closeTimeoutMs: name === 'stubborn' ? 50 : 1000 },
      (app) => {
        app.jobs.define('export', async (payload, ctx) => {
          started.open()
          return handler(payload, ctx)
        })
      },
    )
    const job = await a.jobs.enqueue('export', {})
    await started.promise
    await a.close()
    t.equal(
      await rawQueue(t, shared.queue).getJobState(job.jobId),
      'waiting',
      `${name}: given back`,
    )
    const c = await instance({ store: shared }, (app) => {
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

test('a worker never fails a job it has no handler for: it waits for an instance that has one', async (t) => {
  const shared = store()
  const lines: string[] = []
  const web = await instance({ store: shared, worker: false }, (app) => {
    app.jobs.define('export', { estimatedTime: 30 })
  })
  // An instance of another release: a worker without the 'export' handler.
  const other = Fastify({
    logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } },
  })
  await other.register(restwellJobs, { store: shared, pollMs: 100 })
  other.jobs.define('other', async () => 'y')
  await other.ready()
  t.teardown(async () => {
    await web.close()
    await other.close()
  })
  const job = await web.jobs.enqueue('export', {})
  t.equal(job.estimatedTime, 'PT30S', "the definition's estimate, without a handler")
  const later = await other.jobs.enqueue('other', {})
  await until(async () => (await other.jobs.get(later.jobId))?.status === 'succeeded')
  // Set aside again and again: queued, or running for the instant a worker holds it; never failed.
  const seen = new Set<string | undefined>()
  for (let i = 0; i < 10; i++) {
    seen.add((await web.jobs.get(job.jobId))?.status)
    await sleep(30)
  }
  t.ok(
    [...seen].every((status) => status === 'queued' || status === 'running'),
    [...seen].join(),
  )
  t.equal(
    lines.filter((line) => /no handler for this job name/.test(line)).length,
    1,
    'one warning per name',
  )

  const next = await instance({ store: shared }, (app) => {
    app.jobs.define('export', async (_payload, ctx) => ({ attempt: ctx.attempt }))
  })
  t.teardown(() => next.close())
  await until(async () => (await statusOf(web, job.jobId)) === 303)
  t.same(
    (await web.inject({ url: `/jobs/${job.jobId}/result` })).json(),
    { attempt: 1 },
    'run once, by the instance that has its handler; the set-asides not counted',
  )
})

test('rolling deploy: old workers run only the job names they know, nothing fails', async (t) => {
  const shared = store()
  const ran: string[] = []
  const kinds = (release: string, names: string[]) => (app: FastifyInstance) => {
    for (const name of names) {
      app.jobs.define(name, async () => {
        ran.push(`${release} ${name}`)
        return { name }
      })
    }
  }
  const old = await instance({ store: shared }, kinds('old', ['export']))
  const fresh = await instance({ store: shared }, kinds('new', ['export', 'report']))
  const web = await instance({ store: shared, worker: false }, kinds('web', ['export', 'report']))
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
  t.notOk(ran.includes('old report'), 'no old worker ran a report')
  t.notOk(ran.includes('web report') || ran.includes('web export'), 'the web tier ran nothing')
})

test('a location is stored encoded, or its job failed with a public error', async (t) => {
  const app = await instance({ store: store() }, (app) => {
    app.jobs.define<{ location: string }>('export', async (payload) => ({
      location: payload.location,
    }))
    app.jobs.define('nothing', async () => undefined)
    app.jobs.define('text', async () => 'done')
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
  const nothing = await app.jobs.enqueue('nothing', undefined)
  await until(async () => (await statusOf(app, nothing.jobId)) === 303)
  t.equal((await app.inject({ url: `/jobs/${nothing.jobId}/result` })).body, 'null')
  t.equal((await queueOf(app).getJob(nothing.jobId))?.data, null, 'an undefined payload is null')
  const text = await app.jobs.enqueue('text', {})
  await until(async () => (await statusOf(app, text.jobId)) === 303)
  const res = await app.inject({ url: `/jobs/${text.jobId}/result` })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, '"done"')
})

test('jobs of a worker in another code base: plain BullMQ results and failures', async (t) => {
  const shared = store()
  const web = await instance({ store: shared, worker: false }, (app) => {
    for (const name of ['plain', 'located', 'bad-location', 'public', 'private'])
      app.jobs.define(name, { estimatedTime: 5 })
  })
  t.teardown(() => web.close())
  // A worker written without restwell: returns values, throws errors.
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null })
  const foreign = new Worker(
    shared.queue,
    async (job) => {
      if (job.name === 'plain') return { rows: 3 }
      if (job.name === 'located') return { location: '/files/a b.csv' }
      if (job.name === 'bad-location') return { location: '' }
      if (job.name === 'public')
        throw new Error(`${PUBLIC_FAILURE_PREFIX}{"statusCode":409,"message":"Export exists"}`)
      throw new Error('private details')
    },
    { connection },
  )
  t.teardown(async () => {
    await foreign.close()
    connection.disconnect()
  })
  const ids: Record<string, string> = {}
  for (const name of ['plain', 'located', 'bad-location', 'public', 'private'])
    ids[name] = (await web.jobs.enqueue(name, {})).jobId
  const settled = async (name: string): Promise<void> =>
    until(async () => {
      const status = (await web.jobs.get(ids[name] as string))?.status
      return status === 'succeeded' || status === 'failed'
    })
  for (const name of Object.keys(ids)) await settled(name)
  const view = async (name: string) => web.inject({ url: `/jobs/${ids[name]}` })
  t.same((await web.inject({ url: `/jobs/${ids.plain}/result` })).json(), { rows: 3 })
  t.equal((await view('located')).headers.location, '/files/a%20b.csv', 'encoded when read')
  t.match((await view('bad-location')).json(), {
    status: 'failed',
    estimatedTime: 'PT5S',
    error: {
      statusCode: 500,
      message: "The location of the job's result is not a valid URI reference",
    },
  })
  t.same((await view('public')).json().error, {
    statusCode: 409,
    code: 'CONFLICT',
    message: 'Export exists',
    details: [],
  })
  t.match((await view('private')).json().error, { statusCode: 500, message: 'The job failed' })
  // A job another app enqueued with a UUID id, of a name this instance does not define.
  const id = '6f1c8a8e-5b6b-4c1e-9a3e-2f4b7c9d0e1f'
  await rawQueue(t, shared.queue).add('elsewhere', {}, { jobId: id, delay: 60_000 })
  t.match(
    (await web.inject({ url: `/jobs/${id}` })).json(),
    {
      status: 'queued',
      estimatedTime: 'PT1M',
    },
    "the plugin's default estimate",
  )
})

test('jobProcessor runs restwell handlers in a plain BullMQ worker (a process without Fastify)', async (t) => {
  const shared = store()
  const web = await instance({ store: shared, worker: false }, (app) => {
    app.jobs.define('export', { estimatedTime: 5 })
    app.jobs.define('slow', { estimatedTime: 5 })
  })
  t.teardown(() => web.close())
  const started = gate()
  const processor = jobProcessor(
    {
      export: async (payload: unknown, ctx) => {
        await ctx.progress(50)
        return { echoed: payload, attempt: ctx.attempt }
      },
      slow: async (_payload, ctx) => {
        started.open()
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        throw new Error('stopped')
      },
    },
    { closeTimeoutMs: 1000 },
  )
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null })
  const worker = processor.attach(new Worker(shared.queue, processor, { connection }))
  t.teardown(() => connection.disconnect())
  const job = await web.jobs.enqueue('export', { n: 1 })
  await until(async () => (await statusOf(web, job.jobId)) === 303)
  t.same((await web.inject({ url: `/jobs/${job.jobId}/result` })).json(), {
    echoed: { n: 1 },
    attempt: 1,
  })
  t.equal((await web.jobs.get(job.jobId))?.progress, 50)
  const slow = await web.jobs.enqueue('slow', {})
  await started.promise
  await processor.close()
  t.equal(worker.closing !== undefined, true, 'the attached worker is closed')
  t.equal(await queueOf(web).getJobState(slow.jobId), 'waiting', 'given back on close')
})

test('an ioredis client given by the user is used for the queue and left open', async (t) => {
  const client = new Redis(redis.url)
  t.teardown(() => client.quit())
  const shared = store({ redis: client, keyPrefix: 'app:jobs:' })
  const app = await instance({ store: shared }, (app) => {
    app.jobs.define('export', async () => 7)
  })
  const job = await app.jobs.enqueue('export', {})
  await until(async () => (await statusOf(app, job.jobId)) === 303)
  await app.close()
  t.equal(client.status, 'ready')
  t.equal(
    await client.hget(`app:jobs:${shared.queue}:${job.jobId}`, 'returnvalue'),
    '7',
    'keys under the prefix, its trailing colon dropped',
  )
  const prefixed = new Redis(redis.url, { keyPrefix: 'app:' })
  t.teardown(() => prefixed.quit())
  await t.rejects(
    instance({ store: { redis: prefixed } }, () => undefined),
    /option "store.redis" is an ioredis client with a keyPrefix \("app:"\), which BullMQ refuses/,
  )
})

test('an instance without handlers starts no worker; the default queue and prefix', async (t) => {
  const app = await instance({ store: { redis: redis.url } }, (app) => {
    app.jobs.define('export', { estimatedTime: 5 })
  })
  t.teardown(() => app.close())
  const job = await app.jobs.enqueue('export', {})
  t.equal(queueOf(app).name, 'restwell-jobs')
  const raw = new Redis(redis.url)
  t.teardown(() => raw.quit())
  t.equal(await raw.exists(`bull:restwell-jobs:${job.jobId}`), 1)
  await sleep(200)
  t.match(await app.jobs.get(job.jobId), { status: 'queued' }, 'nobody runs it here')
  t.same(await queueOf(app).getWorkers(), [], 'no BullMQ worker')
  // Removed between the two reads of a status request (its state, then its data): unknown.
  await raw.del(`bull:restwell-jobs:${job.jobId}`)
  t.equal(await queueOf(app).getJobState(job.jobId), 'waiting')
  t.equal(await app.jobs.get(job.jobId), undefined)
  t.equal((await app.inject({ url: '/jobs/00000000-0000-4000-8000-000000000000' })).statusCode, 404)
})

test('options: BullMQ settings restwell needs are checked, naming the option', async (t) => {
  const bad: [JobsOptions, RegExp][] = [
    [{ store: { redis: redis.url, queue: 'a:b' } }, /option "store.queue"/],
    [{ store: { redis: redis.url, keyPrefix: ':' } }, /option "store.keyPrefix"/],
    [
      { store: { redis: redis.url, jobOptions: { removeOnComplete: true } } },
      /option "store.jobOptions.removeOnComplete" must be false, an integer ≥ 1 or an object/,
    ],
    [
      { store: { redis: redis.url, jobOptions: { removeOnFail: { age: 0 } } } },
      /option "store.jobOptions.removeOnFail.age" must be an integer ≥ 1/,
    ],
    [
      { store: { redis: redis.url, jobOptions: { attempts: 0 } } },
      /option "store.jobOptions.attempts"/,
    ],
    [
      { store: { redis: redis.url, jobOptions: { jobId: 'x' } as never } },
      /option "store.jobOptions.jobId" is set by @restwell\/jobs/,
    ],
    [
      { store: { redis: redis.url, jobOptions: { repeat: { every: 1000 } } as never } },
      /option "store.jobOptions.repeat" is not supported/,
    ],
    [
      { store: { redis: redis.url, workerOptions: { connection: {} } as never } },
      /option "store.workerOptions.connection" is set by @restwell\/jobs/,
    ],
    [
      { store: { redis: redis.url, workerOptions: { concurrency: 0 } } },
      /option "store.workerOptions.concurrency"/,
    ],
    [{ leaseMs: 1000 } as never, /option "leaseMs" was removed: .*lockDuration/],
    [{ maxAttempts: 3 } as never, /option "maxAttempts" was removed: .*maxStalledCount/],
  ]
  for (const [options, message] of bad) {
    await t.rejects(async () => Fastify().register(restwellJobs, options), message)
  }
})

test('Redis down: 503 with Retry-After at once, never a late enqueue; then recovery', async (t) => {
  const shared = store()
  const started = gate()
  const app = await instance({ store: shared, retryAfter: 7 }, (app) => {
    app.jobs.define('export', async () => {
      started.open()
      await sleep(400)
      return 'done'
    })
  })
  t.teardown(() => app.close())
  const running = await app.jobs.enqueue('export', {})
  await started.promise
  await redis.kill()
  const before = Date.now()
  const res = await app.inject({ method: 'POST', url: '/exports', payload: {} })
  t.ok(Date.now() - before < 1000, 'answers at once: no wait for the command timeout')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '7')
  t.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
  const status = await app.inject({ url: `/jobs/${running.jobId}` })
  t.equal(status.statusCode, 503)
  await sleep(300)
  await redis.start()
  await until(async () => {
    const again = await app.inject({ method: 'POST', url: '/exports', payload: {} })
    return again.statusCode === 202
  })
  // The restarted Redis of this test keeps nothing: only the job enqueued after it exists.
  t.equal(await everyJob(app), 1, 'the refused request enqueued nothing later')
})

test('Redis down with a client of the user: 503 after timeoutMs at most, then recovery', async (t) => {
  const client = new Redis(redis.url)
  client.on('error', () => undefined)
  t.teardown(() => client.disconnect())
  const app = await instance({ store: store({ redis: client }), timeoutMs: 300 }, (app) => {
    app.jobs.define('export', async () => 'done')
  })
  t.teardown(() => app.close())
  await redis.kill()
  const res = await app.inject({ method: 'POST', url: '/exports', payload: {} })
  t.equal(res.statusCode, 503)
  await redis.start()
  await until(async () => {
    const again = await app.inject({ method: 'POST', url: '/exports', payload: {} })
    return again.statusCode === 202
  })
  t.pass('enqueue works again once Redis is back')
})

test('Redis away at start: requests wait up to timeoutMs for the first connection, then 503; none enqueues later', async (t) => {
  const late = await ownRedis()
  t.teardown(() => late.kill())
  const app = await instance(
    { store: { redis: late.url, queue: 'late' }, timeoutMs: 1000 },
    (app) => {
      app.jobs.define('export', async () => 'done')
    },
  )
  t.teardown(() => app.close())
  const refused = await app.inject({ method: 'POST', url: '/exports', payload: {} })
  t.equal(refused.statusCode, 503)
  t.equal((await app.inject({ url: '/jobs/6f1c8a8e-5b6b-4c1e-9a3e-2f4b7c9d0e1f' })).statusCode, 503)
  await late.start()
  // BullMQ connects by itself once Redis is there; the request it kept waiting was answered.
  await until(async () => {
    try {
      await queueOf(app).waitUntilReady()
      return true
    } catch {
      return false
    }
  })
  await sleep(300)
  t.equal(await everyJob(app), 0, 'the refused request enqueued nothing once Redis was there')
  let accepted = ''
  await until(async () => {
    const again = await app.inject({ method: 'POST', url: '/exports', payload: {} })
    accepted = again.headers.location as string
    return again.statusCode === 202
  })
  await until(async () => (await app.inject({ url: accepted })).statusCode === 303)
  t.pass('and jobs are accepted and run')
})

test('teardown', async () => {
  await redis.kill()
})
