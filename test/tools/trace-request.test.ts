/**
 * `scripts/trace-request.mjs`: the way of one request through restwell's packages, counted from
 * the function calls the inspector records. The trace runs in a process of its own (it takes V8
 * coverage, which would reset the coverage tap collects of this one).
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { test } from 'tap'
// @ts-expect-error: a plain .mjs script, without declarations
import { placeOf, summarize } from '../../scripts/trace-request.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const url = (path: string): string => new URL(path, `file://${root}`).href

test('placeOf: a restwell package, the app, or nothing', async (t) => {
  t.same(placeOf(url('packages/conditional/src/etag.ts')), {
    pkg: 'conditional',
    file: 'packages/conditional/src/etag.ts',
  })
  t.same(placeOf(url('examples/bookshelf/src/db.ts')), {
    pkg: 'app',
    file: 'examples/bookshelf/src/db.ts',
  })
  t.equal(placeOf(url('node_modules/fastify/fastify.js')), undefined)
  t.equal(placeOf('node:internal/process/task_queues'), undefined)
})

test('summarize: files and packages in order, switches between packages, the app apart', async (t) => {
  const calls = [
    'packages/errors/src/plugin.ts',
    'packages/core/src/plan.ts',
    'examples/bookshelf/src/db.ts',
    'packages/core/src/plan.ts',
    'packages/conditional/src/plugin.ts',
    'node:internal/timers',
    'packages/core/src/plan.ts',
  ].map((path) => ({ url: path.startsWith('node:') ? path : url(path), name: 'f', line: 1 }))
  const summary = summarize(calls)
  t.same(summary.files, [
    'packages/errors/src/plugin.ts',
    'packages/core/src/plan.ts',
    'packages/conditional/src/plugin.ts',
  ])
  t.same(summary.packages, ['errors', 'core', 'conditional'])
  t.equal(
    summary.switches,
    3,
    'errors → core → conditional → core; the app between two core calls is none',
  )
  t.same(summary.visits, { errors: 1, core: 2, conditional: 1 })
  t.equal(summary.calls, 5)
  t.equal(summary.appCalls, 1)
})

test('a traced 304 of the bookshelf passes conditional, after the request steps', async (t) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--conditions=restwell-source',
      '--import',
      'tsx',
      'scripts/trace-request.mjs',
      'get-304',
      '--json',
    ],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  )
  const { 'get-304': summary } = JSON.parse(stdout) as {
    'get-304': { packages: string[]; files: string[]; switches: number }
  }
  t.ok(summary.packages.includes('conditional'), 'the 304 is decided by conditional')
  t.ok(summary.packages.includes('errors'), 'the request id step runs')
  t.ok(summary.files.includes('packages/conditional/src/preconditions.ts'))
  t.ok(summary.switches >= summary.packages.length - 1)
})
