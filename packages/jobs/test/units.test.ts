import type { Job } from 'bullmq'
import fc from 'fast-check'
import { httpErrors } from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { formatDuration, isDuration, MemoryJobStore, toDuration } from '../src/index.js'
import type { JobOutcome, JobRecord, JobStore } from '../src/types.js'
import { recordOf } from '../src/bullmq.js'
import { jobError } from '../src/views.js'
import {
  INVALID_LOCATION_FAILURE,
  locationReference,
  outcomeOf,
  publicFailure,
} from '../src/outcome.js'
import { Worker } from '../src/worker.js'

test('formatDuration writes the shortest ISO 8601 duration', async (t) => {
  t.equal(formatDuration(0), 'PT0S')
  t.equal(formatDuration(30), 'PT30S')
  t.equal(formatDuration(90), 'PT1M30S')
  t.equal(formatDuration(3600), 'PT1H')
  t.equal(formatDuration(3661), 'PT1H1M1S')
  t.equal(formatDuration(86_400), 'P1D')
  t.equal(formatDuration(93_600), 'P1DT2H')
  t.equal(formatDuration(-5), 'PT0S')
  t.equal(formatDuration(29.6), 'PT30S')
})

test('isDuration accepts the D/H/M/S subset and nothing else', async (t) => {
  for (const ok of ['PT30S', 'PT1M', 'P1D', 'P1DT2H3M4.5S', 'PT0S']) t.ok(isDuration(ok), ok)
  for (const bad of ['P', 'PT', 'P1DT', '30S', 'PT1.5M', 'P1Y', 'pt30s', 'PT30S ', '']) {
    t.notOk(isDuration(bad), bad)
  }
  t.equal(toDuration('PT5S'), 'PT5S')
  t.equal(toDuration(5), 'PT5S')
  t.throws(() => toDuration(Number.NaN), /non-negative/)
  t.throws(() => toDuration(Number.POSITIVE_INFINITY), /non-negative/)
  t.throws(() => toDuration('P'), /ISO 8601/)
})

test('property: every formatted duration parses, and means the same seconds', async () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 10_000_000 }), (seconds) => {
      const text = formatDuration(seconds)
      const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(text)
      if (m === null || !isDuration(text)) return false
      const [d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0)) as [
        number,
        number,
        number,
        number,
      ]
      return d * 86_400 + h * 3600 + min * 60 + s === seconds
    }),
  )
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), (text) => typeof isDuration(text) === 'boolean'),
  )
})

test('publicFailure and outcomeOf', async (t) => {
  const generic = { statusCode: 500, code: 'INTERNAL_SERVER_ERROR', message: 'The job failed' }
  t.same(publicFailure(new Error('secret')), generic)
  t.same(publicFailure('a string'), generic)
  t.same(publicFailure(httpErrors.conflict('exists')), {
    statusCode: 409,
    code: 'CONFLICT',
    message: 'exists',
  })
  t.same(publicFailure(httpErrors.badGateway('upstream 10.1.1.1')), generic)
  t.same(outcomeOf({ location: '/a' }), { status: 'succeeded', location: '/a' })
  t.same(outcomeOf({ location: 7 }), { status: 'succeeded', result: '{"location":7}' })
  t.same(outcomeOf(null), { status: 'succeeded', result: 'null' })
  t.same(outcomeOf(undefined), { status: 'succeeded', result: 'null' })
})

test('a location is stored as a URI-reference: encoded, or the job fails', async (t) => {
  const cases: [string, string | undefined][] = [
    ['/v1/exports/9', '/v1/exports/9'],
    ['/files/отчёт.csv', '/files/%D0%BE%D1%82%D1%87%D1%91%D1%82.csv'],
    ['/files/résumé.csv', '/files/r%C3%A9sum%C3%A9.csv'],
    ['/files/a b.csv', '/files/a%20b.csv'],
    ['/files/a%20b.csv', '/files/a%20b.csv'], // a valid escape is kept, not encoded twice
    ['/files/100%.csv', '/files/100%25.csv'],
    ['/files/😀"<>', '/files/%F0%9F%98%80%22%3C%3E'],
    ['/x?q=a b&r=é#part 2#3', '/x?q=a%20b&r=%C3%A9#part%202%233'], // the first # starts the fragment
    ['https://[::1]:8080/a[b] c', 'https://[::1]:8080/a%5Bb%5D%20c'], // IP-literal brackets kept
    ['https://u@[v1.x]/é', 'https://u@[v1.x]/%C3%A9'],
    ['https://exämple.com/f', 'https://ex%C3%A4mple.com/f'],
    ['//cdn.example/f ile', '//cdn.example/f%20ile'],
    ['/files/x\r\nSet-Cookie: a=b', undefined],
    ['/files/a\nb', undefined],
    ['/a\tb', undefined],
    ['/a\u007fb', undefined],
    ['/a\u0085b', undefined],
    ['', undefined],
  ]
  for (const [given, expected] of cases) t.equal(locationReference(given), expected, given)
  t.same(outcomeOf({ location: '/files/a b.csv' }), {
    status: 'succeeded',
    location: '/files/a%20b.csv',
  })
  const thrown = (location: string): Error => {
    try {
      outcomeOf({ location })
    } catch (error) {
      return error as Error
    }
    throw new Error('outcomeOf did not throw')
  }
  const injected = thrown('/x\r\nSet-Cookie: a=b')
  t.same(publicFailure(injected), {
    statusCode: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: INVALID_LOCATION_FAILURE,
  })
  t.match(injected.cause, { message: /"\/x\\r\\nSet-Cookie: a=b".*cannot be a URI-reference/ })
  t.match(thrown(`${'x'.repeat(300)}\n`).cause, { message: /"x{200}\.\.\."/ }, 'cut in the log')
})

test('jobError reads stored failures, old and foreign ones included', async (t) => {
  const record = (error?: string): JobRecord => ({
    id: 'a',
    name: 'n',
    status: 'failed',
    payload: '1',
    estimatedTime: 'PT1S',
    attempts: 1,
    owner: '',
    createdAt: 0,
    updatedAt: 0,
    ...(error === undefined ? {} : { error }),
  })
  const generic = {
    statusCode: 500,
    code: 'INTERNAL_SERVER_ERROR',
    message: 'The job failed',
    details: [],
  }
  t.same(jobError(record()), generic)
  t.same(jobError(record('{}')), generic)
  t.same(jobError(record('{"statusCode":200,"code":7,"message":null,"details":"x"}')), generic)
  t.same(jobError(record('{"statusCode":409.5}')), generic)
  t.same(jobError(record('{"statusCode":422,"message":"Too many rows"}')), {
    statusCode: 422,
    code: 'UNPROCESSABLE_ENTITY',
    message: 'Too many rows',
    details: [],
  })
  t.same(
    jobError(
      record(
        '{"statusCode":409,"code":"EXPORT_EXISTS","message":"m","details":[{"field":"f","message":"d"}]}',
      ),
    ),
    {
      statusCode: 409,
      code: 'EXPORT_EXISTS',
      message: 'm',
      details: [{ field: 'f', message: 'd' }],
    },
  )
})

test('MemoryJobStore keeps ownership', async (t) => {
  const store = new MemoryJobStore({ ttlMs: 60_000 })
  t.teardown(() => store.close())
  const created = await store.create({ id: 'a', name: 'n', payload: '1', estimatedTime: 'PT1S' })
  t.match(created, { status: 'queued', attempts: 0, owner: '' })
  t.equal(await store.get('missing'), undefined)
  const claimed = (await store.claim('i', ['n'])) as JobRecord
  t.equal(claimed.owner, 'i:1')
  t.equal(await store.claim('i', ['n']), undefined, 'nothing else queued')
  t.equal(await store.heartbeat('a', 'i:1'), true)
  t.equal(await store.heartbeat('a', 'other:1'), false)
  t.equal(await store.progress('a', 'other:1', 5), false)
  t.equal(await store.release('a', 'other:1'), false)
  t.equal(await store.release('a', 'i:1'), true)
  t.match(await store.get('a'), { status: 'queued', attempts: 0, owner: '' })
  const again = (await store.claim('j', ['n'])) as JobRecord
  t.equal(again.owner, 'j:1')
  t.equal(await store.finish('a', 'i:1', { status: 'succeeded', result: '1' }), false)
  t.equal(
    await store.finish('a', 'j:1', { status: 'failed', error: { statusCode: 500, message: 'x' } }),
    true,
  )
  t.match(await store.get('a'), { status: 'failed', error: '{"statusCode":500,"message":"x"}' })
  t.equal(await store.heartbeat('a', 'j:1'), false, 'finished jobs are no one’s')
  t.equal(await store.reap(), 0)
})

test('MemoryJobStore claims only the names given, oldest first, the others left in place', async (t) => {
  const store = new MemoryJobStore({ ttlMs: 60_000 })
  t.teardown(() => store.close())
  for (const [id, name] of [
    ['r1', 'report'],
    ['e1', 'export'],
    ['r2', 'report'],
  ] as const) {
    await store.create({ id, name, payload: '1', estimatedTime: 'PT1S' })
  }
  t.equal(await store.claim('w', []), undefined, 'no names: nothing')
  t.match(await store.claim('w', ['export']), { id: 'e1', owner: 'w:1' }, 'past the older report')
  t.equal(await store.claim('w', ['export']), undefined)
  t.match(await store.get('r1'), { status: 'queued', attempts: 0 }, 'the report is untouched')
  t.match(await store.claim('w', ['export', 'report']), { id: 'r1' })
  t.equal(await store.release('r1', 'w:1'), true)
  t.match(await store.claim('w', ['report']), { id: 'r1' }, 'given back: next one taken')
  t.match(await store.claim('w', ['report']), { id: 'r2' })
})

test('a job the store hands over without its handler is given back, never failed', async (t) => {
  // A custom store that ignores the names it is given (as one written for earlier versions).
  class AnyNameStore extends MemoryJobStore {
    override claim(instance: string): Promise<JobRecord | undefined> {
      return super.claim(instance, ['report'])
    }
  }
  const store = new AnyNameStore({ ttlMs: 60_000 })
  t.teardown(() => store.close())
  const warnings: unknown[] = []
  const log = Fastify().log
  let ran = false
  const worker = new Worker(
    store,
    new Map([
      [
        'export',
        async () => {
          ran = true
        },
      ],
    ]),
    { instance: 'w', concurrency: 1, leaseMs: 1000, pollMs: 5, closeTimeoutMs: 100 },
    Object.assign(Object.create(log), { warn: (...args: unknown[]) => warnings.push(args) }),
  )
  await store.create({ id: 'r', name: 'report', payload: 'null', estimatedTime: 'PT1S' })
  worker.start()
  // Given back, then handed over again after pollMs: two warnings (a bounded wait).
  for (let i = 0; i < 400 && warnings.length < 2; i++) await new Promise((r) => setTimeout(r, 5))
  await worker.close()
  t.match(warnings[0], [{ jobId: 'r', job: 'report' }, /no handler for; given back/])
  t.match(await store.get('r'), { status: 'queued', attempts: 0, owner: '' }, 'still queued')
  t.equal(ran, false)
})

/** A store whose claim waits until the test lets it answer. */
class SlowStore implements JobStore {
  released: string[] = []
  claimed = 0
  answer: ((record: JobRecord | undefined) => void) | undefined
  async create(): Promise<JobRecord> {
    throw new Error('unused')
  }
  async get(): Promise<JobRecord | undefined> {
    return undefined
  }
  claim(): Promise<JobRecord | undefined> {
    this.claimed++
    return new Promise((resolve) => {
      this.answer = resolve
    })
  }
  async heartbeat(): Promise<boolean> {
    return true
  }
  async progress(): Promise<boolean> {
    return true
  }
  async finish(_id: string, _owner: string, _outcome: JobOutcome): Promise<boolean> {
    return true
  }
  async release(id: string): Promise<boolean> {
    this.released.push(id)
    return true
  }
  async reap(): Promise<number> {
    return 0
  }
  async close(): Promise<void> {}
}

test('a job claimed while the worker closes is given back, not run', async (t) => {
  const store = new SlowStore()
  let ran = false
  const handlers = new Map([
    [
      'n',
      async () => {
        ran = true
      },
    ],
  ])
  const worker = new Worker(
    store,
    handlers,
    { instance: 'w', concurrency: 1, leaseMs: 1000, pollMs: 10, closeTimeoutMs: 100 },
    Fastify().log,
  )
  worker.start()
  worker.start()
  await new Promise((r) => setTimeout(r, 20))
  t.equal(store.claimed, 1, 'start twice runs one loop')
  const closing = worker.close()
  store.answer?.({
    id: 'late',
    name: 'n',
    status: 'running',
    payload: 'null',
    estimatedTime: 'PT1S',
    attempts: 1,
    owner: 'w:1',
    createdAt: 0,
    updatedAt: 0,
  })
  await closing
  t.same(store.released, ['late'])
  t.equal(ran, false)
})

test('a store that fails to claim is logged and tried again after pollMs', async (t) => {
  class FlakyStore extends SlowStore {
    failures = 0
    override claim(): Promise<JobRecord | undefined> {
      if (this.failures === 0) {
        this.failures++
        return Promise.reject(new Error('store down'))
      }
      return super.claim()
    }
  }
  const store = new FlakyStore()
  const warnings: unknown[] = []
  const log = Fastify().log
  const worker = new Worker(
    store,
    new Map(),
    { instance: 'w', concurrency: 1, leaseMs: 1000, pollMs: 5, closeTimeoutMs: 100 },
    Object.assign(Object.create(log), { warn: (...args: unknown[]) => warnings.push(args) }),
  )
  worker.start()
  while (store.claimed === 0) await new Promise((r) => setTimeout(r, 5))
  t.equal(store.failures, 1)
  t.match(warnings[0], [{ err: { message: 'store down' } }, /unavailable/])
  const closing = worker.close()
  store.answer?.(undefined)
  await closing
})

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

/** The memory store, counting the store calls a worker makes. */
class CountingStore extends MemoryJobStore {
  calls: string[] = []
  override async heartbeat(id: string, owner: string): Promise<boolean> {
    this.calls.push('heartbeat')
    return super.heartbeat(id, owner)
  }
  override async finish(id: string, owner: string, outcome: JobOutcome): Promise<boolean> {
    this.calls.push('finish')
    return super.finish(id, owner, outcome)
  }
}

test('close() stops the heartbeat of a job whose handler ignores ctx.signal', async (t) => {
  for (const ending of ['never ends', 'ends after close']) {
    const store = new CountingStore({ ttlMs: 60_000 })
    t.teardown(() => store.close())
    const started = gate()
    const late = gate()
    const warnings: unknown[] = []
    const log = Fastify().log
    const worker = new Worker(
      store,
      new Map([
        [
          'stuck',
          async () => {
            started.open()
            // Ignores the abort, as a library call without a signal does.
            await (ending === 'never ends' ? new Promise(() => {}) : late.promise)
            return 'too late'
          },
        ],
      ]),
      // heartbeat every 10 ms
      { instance: 'w', concurrency: 1, leaseMs: 30, pollMs: 5, closeTimeoutMs: 20 },
      Object.assign(Object.create(log), {
        child: () =>
          Object.assign(Object.create(log), { warn: (msg: unknown) => warnings.push(msg) }),
      }),
    )
    await store.create({ id: 'a', name: 'stuck', payload: 'null', estimatedTime: 'PT1S' })
    worker.start()
    await started.promise
    while (!store.calls.includes('heartbeat')) await new Promise((r) => setTimeout(r, 5))
    await worker.close()
    t.match(await store.get('a'), { status: 'queued', owner: '' }, `${ending}: given back`)
    const atClose = store.calls.length
    late.open()
    // Ten heartbeat periods: an interval still running would have fired by now (an interval
    // due earlier fires before this later timeout, however slow the machine).
    await new Promise((r) => setTimeout(r, 100))
    t.same(store.calls.slice(atClose), [], `${ending}: no heartbeat, no finish after close`)
    t.match(await store.get('a'), { status: 'queued', owner: '' }, `${ending}: still queued`)
    if (ending === 'ends after close') t.match(warnings, [/given back on close; outcome dropped/])
    else t.same(warnings, [])
  }
})

test('in memory: a handler that rejects once close() aborts it has not failed; it is given back', async (t) => {
  const store = new MemoryJobStore({ ttlMs: 60_000 })
  t.teardown(() => store.close())
  const started = gate()
  const worker = new Worker(
    store,
    new Map([
      [
        'n',
        (_payload: unknown, ctx: { signal: AbortSignal }) =>
          new Promise((_resolve, reject) => {
            started.open()
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))
          }),
      ],
    ]),
    { instance: 'w', concurrency: 1, leaseMs: 1000, pollMs: 5, closeTimeoutMs: 1000 },
    Fastify().log,
  )
  await store.create({ id: 'a', name: 'n', payload: 'null', estimatedTime: 'PT1S' })
  worker.start()
  await started.promise
  await worker.close()
  t.match(await store.get('a'), { status: 'queued', attempts: 0, owner: '' })
})

test('in memory: an outcome the store cannot record is logged (the job runs again)', async (t) => {
  class BrokenFinish extends MemoryJobStore {
    override async finish(): Promise<boolean> {
      throw new Error('store down')
    }
  }
  const store = new BrokenFinish({ ttlMs: 60_000 })
  t.teardown(() => store.close())
  const errors: unknown[] = []
  const log = Fastify().log
  const worker = new Worker(
    store,
    new Map([['n', async () => 1]]),
    { instance: 'w', concurrency: 1, leaseMs: 1000, pollMs: 5, closeTimeoutMs: 100 },
    Object.assign(Object.create(log), {
      child: () =>
        Object.assign(Object.create(log), { error: (...args: unknown[]) => errors.push(args) }),
    }),
  )
  await store.create({ id: 'a', name: 'n', payload: 'null', estimatedTime: 'PT1S' })
  worker.start()
  for (let i = 0; i < 200 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 5))
  await worker.close()
  t.match(errors, [[{ err: { message: 'store down' } }, /could not record the outcome/]])
})

test('in memory: what a store may say of leases is heeded (re-queued, lost, taken over)', async (t) => {
  /** A store that says what the memory store never has to: leases expire, jobs are taken over. */
  class LeasingStore extends MemoryJobStore {
    reaped = 1
    beats: boolean[] = [false]
    override async reap(): Promise<number> {
      const reaped = this.reaped
      this.reaped = 0
      return reaped
    }
    override async heartbeat(): Promise<boolean> {
      const next = this.beats.shift()
      if (next === undefined) throw new Error('store down')
      return next
    }
    override async finish(): Promise<boolean> {
      return false
    }
  }
  const store = new LeasingStore({ ttlMs: 60_000 })
  t.teardown(() => store.close())
  const warnings: unknown[] = []
  const log = Fastify().log
  const warnLog = Object.assign(Object.create(log), {
    warn: (...args: unknown[]) => warnings.push(args),
    info: () => undefined,
  })
  warnLog.child = () => warnLog
  const aborted = gate()
  const worker = new Worker(
    store,
    new Map([
      [
        'n',
        async (_payload: unknown, ctx: { signal: AbortSignal; attempt: number }) => {
          if (ctx.attempt > 1) return 'second'
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
          aborted.open()
          return 'after the lease was lost'
        },
      ],
    ]),
    // heartbeat every 10 ms
    { instance: 'w', concurrency: 1, leaseMs: 30, pollMs: 5, closeTimeoutMs: 100 },
    warnLog,
  )
  await store.create({ id: 'a', name: 'n', payload: 'null', estimatedTime: 'PT1S' })
  worker.start()
  await aborted.promise
  for (let i = 0; i < 100 && warnings.length < 3; i++) await new Promise((r) => setTimeout(r, 5))
  await worker.close()
  const messages = warnings.map((args) => String((args as unknown[]).at(-1)))
  t.ok(
    messages.some((m) => /re-queued jobs whose lease expired/.test(m)),
    'a reap is logged',
  )
  t.ok(
    messages.some((m) => /taken over by another worker/.test(m)),
    'a lost outcome is logged',
  )
})

test("BullMQ states of other versions (v5's paused) read as queued", async (t) => {
  const job = {
    id: 'a',
    name: 'n',
    data: {},
    progress: 0,
    timestamp: 1000,
    attemptsMade: 0,
    stalledCounter: 0,
  } as unknown as Job
  t.match(recordOf(job, 'paused', 'PT1S'), {
    status: 'queued',
    createdAt: 1000,
    updatedAt: 1000,
    estimatedTime: 'PT1S',
  })
})
