import { test } from 'tap'
import type { Operation } from '../src/parse.js'
import { type Outcome, repeats, type ScheduleOptions, schedule } from '../src/schedule.js'

const op = (id: string, dependsOn: number[] = [], extra: Partial<Operation> = {}): Operation => ({
  id,
  method: 'GET',
  url: `/things/${id}`,
  headers: {},
  dependsOn,
  ...extra,
})

/** Options whose `execute` answers `status(op)` after a turn of the event loop, and logs starts. */
function harness(
  status: (operation: Operation) => number,
  more: Partial<ScheduleOptions> = {},
): { options: ScheduleOptions; started: string[]; peak: () => number } {
  const started: string[] = []
  let running = 0
  let peak = 0
  return {
    started,
    peak: () => peak,
    options: {
      concurrency: 10,
      stopOnFailure: false,
      sameAs: [],
      execute: async (operation) => {
        started.push(operation.id)
        running++
        peak = Math.max(peak, running)
        await new Promise((resolve) => setImmediate(resolve))
        running--
        return { status: status(operation), headers: {} }
      },
      failedDependency: (_operation, failed): Outcome => ({
        status: 424,
        headers: {},
        body: failed,
      }),
      ...more,
    },
  }
}

test('schedule runs independent operations at most `concurrency` at once, answers in request order', async (t) => {
  const operations = Array.from({ length: 25 }, (_, i) => op(`${i}`))
  const { options, peak } = harness(() => 200, { concurrency: 4 })
  const results = await schedule(operations, options)
  t.equal(peak(), 4)
  t.same(
    results.map((r) => r.outcome.status),
    operations.map(() => 200),
  )
  t.ok(results.every((r) => r.ran && !r.failed))
})

test('schedule: dependencies first; a failed one is a 424 without running, for its dependents too', async (t) => {
  const operations = [op('c', [1]), op('b', [2]), op('a'), op('x'), op('y', [3]), op('z', [4, 0])]
  const { options, started } = harness((o) => (o.id === 'x' ? 404 : 200))
  const results = await schedule(operations, options)
  t.same(started, ['a', 'x', 'b', 'c'], 'a chain in its order; y and z never run')
  t.same(
    results.map((r) => [r.outcome.status, r.failed, r.ran]),
    [
      [200, false, true],
      [200, false, true],
      [200, false, true],
      [404, true, true],
      [424, true, false],
      [424, true, false],
    ],
  )
  t.same(results[4]?.outcome.body, ['x'])
  t.same(results[5]?.outcome.body, ['y'], 'only the dependencies that failed are named')
})

test('schedule: a repeat is 208 with sameAs once its original settled, and fails like it', async (t) => {
  const operations = [
    op('a'),
    op('b', [], { url: '/things/a' }),
    op('c', [1]),
    op('x'),
    op('y', [], { url: '/things/x' }),
    op('w', [4]),
  ]
  const sameAs = repeats(operations)
  t.same(sameAs, [undefined, 0, undefined, undefined, 3, undefined])
  const { options, started } = harness((o) => (o.id === 'x' ? 500 : 200), { sameAs })
  const results = await schedule(operations, options)
  t.same(started, ['a', 'x', 'c'])
  t.same(results[1]?.outcome, { status: 208, headers: {}, sameAs: 'a' })
  t.equal(results[2]?.outcome.status, 200, 'a dependent of a repeat of a success runs')
  t.same(results[4]?.outcome, { status: 208, headers: {}, sameAs: 'x' })
  t.equal(results[5]?.outcome.status, 424, 'a dependent of a repeat of a failure does not')
})

test('repeats: only safe operations with the same method, url, headers and dependencies', async (t) => {
  const operations = [
    op('a', [], { headers: { accept: 'a', x: 'b' } }),
    op('b', [], { url: '/things/a', headers: { x: 'b', accept: 'a' } }),
    op('c', [], { headers: { accept: 'b' } }),
    op('d', [], { method: 'HEAD', url: '/things/a', headers: { accept: 'a', x: 'b' } }),
    op('e', [], { method: 'HEAD', url: '/things/a', headers: { accept: 'a', x: 'b' } }),
    op('p', [], { method: 'POST', url: '/things' }),
    op('q', [], { method: 'POST', url: '/things' }),
    op('f', [5], { url: '/things/a', headers: { accept: 'a', x: 'b' } }),
    op('g', [6, 5], { url: '/things/a', headers: { accept: 'a', x: 'b' } }),
    op('h', [5, 6], { url: '/things/a', headers: { accept: 'a', x: 'b' } }),
  ]
  t.same(repeats(operations), [
    undefined,
    0,
    undefined,
    undefined,
    3,
    undefined,
    undefined,
    undefined,
    undefined,
    8,
  ])
})

test('schedule with stopOnFailure runs nothing after the first failure', async (t) => {
  const operations = [op('a'), op('b'), op('c'), op('d', [2])]
  const { options, started } = harness((o) => (o.id === 'b' ? 409 : 200), {
    concurrency: 1,
    stopOnFailure: true,
  })
  const results = await schedule(operations, options)
  t.same(started, ['a', 'b'])
  t.same(
    results.map((r) => [r.outcome.status, r.outcome.body]),
    [
      [200, undefined],
      [409, undefined],
      [424, []],
      [424, ['c']],
    ],
  )
})

test('schedule rejects when an operation cannot be executed', async (t) => {
  const { options } = harness(() => 200, {
    execute: () => Promise.reject(new Error('injection failed')),
  })
  await t.rejects(schedule([op('a')], options), { message: 'injection failed' })
})

test('schedule starts ready operations in request order', async (t) => {
  const operations = [op('a'), op('b', [0]), op('c'), op('d')]
  const { options, started } = harness(() => 200, { concurrency: 1 })
  await schedule(operations, options)
  t.same(started, ['a', 'b', 'c', 'd'], 'b, ready after a, goes before c and d')
})

test('repeats: a QUERY repeats an earlier one with the same url, headers and body only', async (t) => {
  const query = (id: string, body: unknown, headers = {}): Operation =>
    op(id, [], { method: 'QUERY', url: '/things', headers, body })
  const operations = [
    query('a', { q: 1 }),
    query('b', { q: 2 }),
    query('c', { q: 1 }),
    query('d', { q: 1 }, { accept: 'application/xml' }),
    query('e', '{"q":1}'),
    op('f', [], { method: 'GET', url: '/things' }),
  ]
  t.same(repeats(operations), [undefined, undefined, 0, undefined, undefined, undefined])
})
