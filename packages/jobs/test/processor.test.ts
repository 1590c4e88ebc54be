import { EventEmitter } from 'node:events'
import { httpErrors } from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { jobProcessor, PUBLIC_FAILURE_PREFIX, type ProcessorJob } from '../src/index.js'
import { failureError, failureOf } from '../src/outcome.js'
import { consoleLog } from '../src/processor.js'
import type { JobHandler } from '../src/types.js'

/** A BullMQ job as the processor sees it, recording where it was moved. */
class FakeJob implements ProcessorJob {
  moves: string[] = []
  progress: number[] = []
  attemptsMade = 0
  stalledCounter = 0
  constructor(
    readonly name: string,
    readonly data: unknown = {},
    readonly id = `id-${name}`,
  ) {}
  async updateProgress(value: number): Promise<void> {
    this.progress.push(value)
  }
  async moveToDelayed(timestamp: number): Promise<void> {
    this.moves.push(`delayed ${timestamp > Date.now() ? 'later' : 'now'}`)
  }
  async moveToWait(): Promise<number> {
    this.moves.push('wait')
    return 0
  }
}

/** A BullMQ worker as the processor sees it: lockRenewalFailed events, close(). */
class FakeWorker extends EventEmitter {
  closed = 0
  async close(): Promise<void> {
    this.closed++
  }
  async disconnect(): Promise<void> {}
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

function quietLog(lines: unknown[] = []) {
  const log = Fastify().log
  const record = (...args: unknown[]) => {
    lines.push(args)
  }
  const logger = Object.assign(Object.create(log), {
    warn: record,
    info: record,
    error: record,
    child: () => logger,
  })
  return logger
}

const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('did not reject')
}

test('results: the value, or { location } encoded; progress checked; attempt counted', async (t) => {
  const processor = jobProcessor(
    {
      value: async () => ({ rows: 3 }),
      nothing: async () => undefined,
      located: async (_payload, ctx) => {
        await ctx.progress(30)
        await t.rejects(ctx.progress(-1), RangeError)
        return { location: '/files/a b.csv', attempt: undefined } as unknown
      },
      place: async (_payload, ctx) => ({ location: `/files/a b.csv`, n: ctx.attempt }),
      only: async () => ({ location: '/files/a b.csv' }),
    },
    { log: quietLog() },
  )
  t.same(await processor(new FakeJob('value')), { rows: 3 })
  t.equal(await processor(new FakeJob('nothing')), null)
  const located = new FakeJob('located')
  t.same(await processor(located), { location: '/files/a b.csv', attempt: undefined })
  t.same(located.progress, [30])
  const again = new FakeJob('place')
  again.attemptsMade = 1
  again.stalledCounter = 1
  t.same(await processor(again), { location: '/files/a b.csv', n: 3 })
  t.same(await processor(new FakeJob('only')), { location: '/files/a%20b.csv' })
})

test('failures: an exposed HttpError carries its public failure; anything else is private', async (t) => {
  const processor = jobProcessor(
    {
      invalid: async () => {
        throw httpErrors.unprocessableEntity('Too many rows', {
          details: [{ field: 'body/rows', message: 'at most 1000' }],
        })
      },
      internal: async () => {
        throw new Error('password=hunter2')
      },
      masked: async () => {
        throw httpErrors.badGateway('upstream 10.0.0.9')
      },
      string: async () => {
        throw 'oops'
      },
      location: async () => ({ location: '/x\r\ny' }),
    },
    { log: quietLog() },
  )
  const invalid = await rejection(processor(new FakeJob('invalid')))
  t.equal(
    invalid.message,
    `${PUBLIC_FAILURE_PREFIX}{"statusCode":422,"code":"UNPROCESSABLE_ENTITY","message":"Too many rows","details":[{"field":"body/rows","message":"at most 1000"}]}`,
  )
  t.match(invalid.stack, /HttpError|Too many rows/, 'the stack of the HttpError, for the dashboard')
  t.equal((await rejection(processor(new FakeJob('internal')))).message, 'password=hunter2')
  t.equal((await rejection(processor(new FakeJob('masked')))).message, 'upstream 10.0.0.9')
  t.equal((await rejection(processor(new FakeJob('string')))).message, 'oops')
  t.match(
    (await rejection(processor(new FakeJob('location')))).message,
    /not a valid URI reference/,
  )
  t.same(JSON.parse(failureOf(invalid.message) as string), {
    statusCode: 422,
    code: 'UNPROCESSABLE_ENTITY',
    message: 'Too many rows',
    details: [{ field: 'body/rows', message: 'at most 1000' }],
  })
  t.equal(failureOf('password=hunter2'), undefined)
  t.equal(
    failureOf('job stalled more than allowable limit'),
    JSON.stringify({
      statusCode: 500,
      code: 'INTERNAL_SERVER_ERROR',
      message: 'The job was interrupted too many times',
    }),
  )
  t.equal(failureError(new TypeError('x')).name, 'TypeError', 'an Error is rejected as it is')
})

test('a job of a name without a handler here is set aside, never failed; one warning per name', async (t) => {
  const lines: unknown[] = []
  const processor = jobProcessor({ known: async () => 1 }, { log: quietLog(lines), retryMs: 50 })
  for (const name of ['report', 'report', 'toString']) {
    const job = new FakeJob(name)
    const error = await rejection(processor(job))
    t.equal(error.name, 'DelayedError', `${name}: BullMQ leaves it where restwell moved it`)
    t.same(job.moves, ['delayed later'])
  }
  t.equal(lines.length, 2, 'report and toString, each once')
  const fromMap = jobProcessor(new Map<string, JobHandler>([['known', async () => 2]]))
  t.equal(await fromMap(new FakeJob('known')), 2, 'handlers in a Map')
})

test("BullMQ's own cancellation fails the job; a lost lock stops it without an outcome", async (t) => {
  const started = gate()
  const processor = jobProcessor(
    {
      wait: async (_payload, ctx) => {
        started.open()
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        throw new Error(`aborted: ${String(ctx.signal.reason)}`)
      },
    },
    { log: quietLog() },
  )
  const worker = new FakeWorker()
  t.equal(processor.attach(worker), worker)
  const cancel = new AbortController()
  const cancelled = processor(new FakeJob('wait'), 'token', cancel.signal)
  await started.promise
  cancel.abort('cancelled by an operator')
  const error = await rejection(cancelled)
  t.equal(error.message, 'aborted: cancelled by an operator', 'a failure, as BullMQ documents')

  const lost = new FakeJob('wait', {}, 'lost-one')
  const other = new FakeJob('wait', {}, 'other-one')
  const running = processor(lost)
  const untouched = new AbortController()
  const kept = processor(other, 'token', untouched.signal)
  await new Promise((r) => setTimeout(r, 10))
  worker.emit('lockRenewalFailed', ['unknown-id', 'lost-one'])
  worker.emit('lockRenewalFailed', ['lost-one'])
  const stopped = await rejection(running)
  t.equal(stopped.name, 'WaitingError', 'nothing recorded: the stalled check re-queues it')
  t.same(lost.moves, [], 'not moved by this worker')
  untouched.abort('done with it')
  t.equal((await rejection(kept)).message, 'aborted: done with it', 'the other job kept running')
})

test('close: handlers aborted, the unfinished given back, new jobs refused, workers closed', async (t) => {
  const lines: unknown[] = []
  const honoursStarted = gate()
  const stubbornStarted = gate()
  const late = gate()
  const processor = jobProcessor(
    {
      honours: async (_payload, ctx) => {
        honoursStarted.open()
        await new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        )
      },
      stubborn: async () => {
        stubbornStarted.open()
        await late.promise
        return 'too late'
      },
      failsLate: async () => {
        await late.promise
        throw new Error('too late as well')
      },
      finishes: async (_payload, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        return 'finished on close'
      },
    },
    { log: quietLog(lines), closeTimeoutMs: 100 },
  )
  const worker = processor.attach(new FakeWorker())
  const honours = new FakeJob('honours')
  const stubborn = new FakeJob('stubborn')
  const failsLate = new FakeJob('failsLate')
  const finishes = new FakeJob('finishes')
  const runs = [honours, stubborn, failsLate, finishes].map((job) =>
    processor(job).then(
      (value) => ({ value }),
      (error: Error) => ({ error: error.name }),
    ),
  )
  await honoursStarted.promise
  await stubbornStarted.promise
  await processor.close()
  t.same(await Promise.all(runs), [
    { error: 'WaitingError' },
    { error: 'WaitingError' },
    { error: 'WaitingError' },
    { value: 'finished on close' },
  ])
  t.same(honours.moves, ['wait'], 'a handler that honours ctx.signal: given back')
  t.same(stubborn.moves, ['wait'], 'one that ignores it: given back after closeTimeoutMs')
  t.same(finishes.moves, [], 'one that finishes: its result kept')
  t.equal(worker.closed, 1)
  late.open()
  await new Promise((r) => setTimeout(r, 10))
  t.equal(
    lines.filter((line) => /given back on close; outcome dropped/.test(String(line))).length,
    1,
    'the late outcome is dropped',
  )
  const afterwards = new FakeJob('finishes')
  t.equal((await rejection(processor(afterwards))).name, 'WaitingError')
  t.same(afterwards.moves, ['wait'], 'a job taken while closing is given back, not run')
})

test('close does not wait past closeTimeoutMs for a worker that cannot close (Redis gone)', async (t) => {
  const processor = jobProcessor({}, { closeTimeoutMs: 50 })
  let disconnected = 0
  const stuck = Object.assign(new EventEmitter(), {
    close: () => new Promise<void>(() => {}),
    disconnect: async () => {
      disconnected++
      throw new Error('already gone')
    },
  })
  processor.attach(stuck)
  const before = Date.now()
  await processor.close()
  t.ok(Date.now() - before < 1000)
  t.equal(disconnected, 1, 'its connections dropped')
})

test('without a logger: warnings and errors to the console', async (t) => {
  const warned: unknown[] = []
  const errored: unknown[] = []
  const { warn, error } = console
  console.warn = (...args: unknown[]) => warned.push(args)
  console.error = (...args: unknown[]) => errored.push(args)
  t.teardown(() => {
    console.warn = warn
    console.error = error
  })
  const processor = jobProcessor({})
  await rejection(processor(new FakeJob('anything')))
  t.match(warned, [[{ job: 'anything' }, /no handler for this job name/]])
  t.equal(consoleLog.child({}), consoleLog)
  consoleLog.error('shown')
  consoleLog.fatal('shown too')
  t.same(errored, [['shown'], ['shown too']])
  consoleLog.info('not shown')
  consoleLog.debug('not shown')
  t.equal(consoleLog.level, 'warn')
})
