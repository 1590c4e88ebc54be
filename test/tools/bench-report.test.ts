/**
 * The bench's arithmetic, on made-up rounds and a made-up CPU profile: medians, ratios to bare
 * Fastify, the CPU column, each target's verdict, the per-hook charging of `--profile`, and the
 * order of a round.
 * No timing is measured here; `pnpm bench` measures.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tap, { test } from 'tap'

interface Run {
  workload: string
  rps: number
  p50: number
  p99: number
  cpuPerRequest: number
  cpuUserPerRequest: number
  cpuSystemPerRequest: number
  answered: number
  mismatched: number
  expected: { status: number; note?: string }
  bytesPerResponse: number
}
interface Target {
  id: string
  status: string
  wanted: string
  value?: number
  workload?: string
  per?: Record<string, number>
  detail?: string
}
interface Workload {
  rps: number
  cpu: number
  cpuOverFastify?: number
  vsFastify?: number
  rpsMin: number
  rpsMax: number
}
type Summary = Record<string, { workloads: Record<string, Workload> }>
interface ReportModule {
  summarize(
    rounds: unknown[],
    servers: Array<{ id: string; label: string }>,
    ids: string[],
  ): Summary
  evaluateTargets(summary: Summary): Target[]
  renderMarkdown(report: unknown): string
  printAblation(
    report: { summary: Summary; workloads: Array<{ id: string }> },
    log: (line: string) => void,
  ): void
}
interface ProfileModule {
  summarizeProfile(
    file: string,
    top?: number,
  ): {
    busyMs: number
    hooks: Array<{ name: string; ms: number }>
    layers: Array<{ name: string; ms: number }>
  }
}

// The bench is plain JavaScript outside the TypeScript project: loaded by URL, typed here.
const load = async <T>(path: string): Promise<T> =>
  (await import(new URL(path, import.meta.url).href)) as T
const { summarize, evaluateTargets, renderMarkdown, printAblation } =
  await load<ReportModule>('../bench/report.mjs')
const { summarizeProfile } = await load<ProfileModule>('../bench/profile.mjs')
interface ScheduleModule {
  roundPlan<S, W>(servers: S[], workloads: W[], round: number): Array<{ server: S; workload: W }>
}
const { roundPlan } = await load<ScheduleModule>('../bench/schedule.mjs')

const SERVERS = ['fastify', 'restwell', 'restwell-optout', 'official', 'express'].map((id) => ({
  id,
  label: id,
}))
const WORKLOADS = ['get1k', 'page-gzip', 'page-304']

/** One round of one server: req/s and CPU µs per workload, the status it was checked against. */
function round(
  server: string,
  index: number,
  figures: Record<string, [rps: number, cpu: number, status?: number, mismatched?: number]>,
) {
  return {
    server,
    round: index,
    runs: Object.entries(figures).map(([workload, [rps, cpu, status = 200, mismatched = 0]]) => ({
      workload,
      rps,
      p50: 1,
      p99: 2,
      cpuPerRequest: cpu,
      cpuUserPerRequest: cpu - 10,
      cpuSystemPerRequest: 10,
      answered: 1000,
      mismatched,
      expected: { status },
      bytesPerResponse: 100,
    })) satisfies Run[],
  }
}

function rounds() {
  return [0, 1, 2].flatMap((i) => [
    round('fastify', i, {
      get1k: [1000 + i * 100, 30],
      'page-gzip': [500, 100],
      'page-304': [500, 100],
    }),
    round('restwell', i, {
      get1k: [900, 40 + i],
      'page-gzip': [400, 120],
      'page-304': [600, 90, 304],
    }),
    round('restwell-optout', i, { get1k: [1000, 31] }),
    round('official', i, {
      get1k: [800, 35],
      'page-gzip': [100, 500],
      'page-304': [550, 110, 304],
    }),
    round('express', i, {
      get1k: [200, 250],
      'page-gzip': [150, 600],
      'page-304': [250, 300, 304],
    }),
  ])
}

test('medians over rounds, ratios to bare Fastify, and the CPU column', async (t) => {
  const summary = summarize(rounds(), SERVERS, WORKLOADS)
  const bare = summary.fastify?.workloads.get1k as Workload
  t.equal(bare.rps, 1100, 'the median of 1000, 1100, 1200')
  t.same([bare.rpsMin, bare.rpsMax], [1000, 1200])
  const mine = summary.restwell?.workloads.get1k as Workload
  t.equal(mine.cpu, 41, 'the median of 40, 41, 42 µs')
  t.equal(mine.cpuOverFastify, 11, 'µs over bare Fastify on the same workload')
  t.equal(mine.vsFastify, 900 / 1100)

  const markdown = renderMarkdown({
    date: '2026-11-22T18:00:00.000Z',
    seconds: 1,
    machine: {
      cpus: 2,
      cpuModel: 'x',
      node: 'v20',
      loadAverageBefore: ['0'],
      loadAverageAfter: ['0'],
    },
    options: { rounds: 3, duration: 2, warmup: 1, connections: 10 },
    servers: SERVERS,
    workloads: WORKLOADS.map((id) => ({ id, title: id, method: 'GET', path: '/', spec: 200 })),
    summary,
    targets: evaluateTargets(summary),
  })
  t.match(
    markdown,
    /\| get1k \| restwell \| 900 \| ±0% \| 1\.00 \| 2\.00 \| 41\.0 \(31\.0 \+ 10\.0\) \| \+11\.0 \| 0\.82x \|/,
  )
})

/** Server CPU µs per request, one figure per workload, or [cpu, status, mismatched]. */
type CpuFigures = Record<string, Record<string, number | [number, number, number?]>>

/** Three rounds with the same CPU figures (the targets read medians of CPU µs only). */
function cpuRounds(figures: CpuFigures) {
  return [0, 1, 2].flatMap((i) =>
    Object.entries(figures).map(([server, workloads]) =>
      round(
        server,
        i,
        Object.fromEntries(
          Object.entries(workloads).map(([workload, f]) => {
            const [cpu, status = 200, mismatched = 0] = Array.isArray(f) ? f : [f]
            return [workload, [1000, cpu, status, mismatched]]
          }),
        ) as Record<string, [number, number, number, number]>,
      ),
    ),
  )
}

const ALL_SERVERS = [
  'node',
  'fastify',
  'fastify-special',
  'restwell',
  'restwell-optout',
  'official',
  'express',
].map((id) => ({ id, label: id }))
const ALL_WORKLOADS = [
  'get1k',
  'get1k-hashed',
  'get1k-hashed-304',
  'page-gzip',
  'page-304',
  'patch',
  '405',
  'override',
]

function targetsOf(figures: CpuFigures) {
  const summary = summarize(cpuRounds(figures), ALL_SERVERS, ALL_WORKLOADS)
  return Object.fromEntries(evaluateTargets(summary).map((x) => [x.id, x]))
}

/** restwell (all on): CPU µs per request on each workload. */
const RESTWELL = {
  get1k: 20,
  'get1k-hashed': 22,
  'get1k-hashed-304': [16, 304],
  'page-gzip': 40,
  'page-304': [30, 304],
  patch: 30,
  405: [25, 405],
  override: 35,
} satisfies CpuFigures[string]

test('the five targets, their wording and what they are wanted at', async (t) => {
  const targets = evaluateTargets(summarize([], ALL_SERVERS, ALL_WORKLOADS))
  t.same(
    targets.map((x) => [x.id, x.wanted]),
    [
      ['vs-node', '>= 1x'],
      ['vs-official', '>= 1x'],
      ['vs-special', '>= 0.9x'],
      ['optout', '<= +1 µs'],
      ['vs-express', '>= 3x'],
    ],
  )
  t.ok(
    targets.every((x) => x.status === 'n/a'),
    'nothing run: every target n/a',
  )
})

test('target 1: restwell costs no more than raw node on every workload both ran', async (t) => {
  const pass = targetsOf({
    restwell: RESTWELL,
    node: {
      get1k: 25,
      'get1k-hashed': 33,
      'get1k-hashed-304': [24, 304],
      'page-gzip': 60,
      'page-304': [45, 304],
      patch: 30, // the same CPU as restwell: exactly 1x passes
      405: [50, 405],
      override: 70,
    },
  })['vs-node']
  t.equal(pass?.status, 'pass')
  t.equal(pass?.per?.get1k, 25 / 20, "raw node's CPU over restwell's")
  t.equal(pass?.per?.['get1k-hashed'], 33 / 22)
  t.equal(pass?.per?.['get1k-hashed-304'], 24 / 16, 'the hashed route is judged too')
  t.equal(Object.keys(pass?.per ?? {}).length, 8, 'every workload')
  t.equal(pass?.value, 1, 'the lowest ratio')
  t.equal(pass?.workload, 'patch', 'and where it is')

  // One workload over raw node's CPU fails the target, however far ahead the others are.
  const fail = targetsOf({
    restwell: RESTWELL,
    node: { ...RESTWELL, get1k: 200, 'get1k-hashed-304': [15, 304] },
  })['vs-node']
  t.equal(fail?.status, 'fail')
  t.equal(fail?.value, 15 / 16)
  t.equal(fail?.workload, 'get1k-hashed-304')
  t.match(fail?.detail, /get1k 10\.00x, get1k-hashed 1\.00x, get1k-hashed-304 0\.94x/)

  // Only workloads both ran count: raw node without patch is judged on the rest.
  const { patch: _patch, ...nodeWithoutPatch } = RESTWELL
  const partial = targetsOf({
    restwell: { ...RESTWELL, patch: 1000 },
    node: nodeWithoutPatch,
  })['vs-node']
  t.equal(partial?.status, 'pass', 'patch, which raw node did not run, is not judged')
  t.notOk(partial?.per && 'patch' in partial.per)

  t.equal(targetsOf({ restwell: RESTWELL })['vs-node']?.status, 'n/a', 'no raw node: n/a')
  t.match(targetsOf({ restwell: RESTWELL })['vs-node']?.detail, /needs restwell and node/)
  t.equal(targetsOf({ node: RESTWELL })['vs-node']?.status, 'n/a', 'no restwell: n/a')
  t.equal(
    targetsOf({ restwell: { get1k: 20 }, node: { patch: 20 } })['vs-node']?.status,
    'n/a',
    'no workload run by both: n/a',
  )
  const wrong = targetsOf({
    restwell: { ...RESTWELL, get1k: [20, 200, 3] },
    node: RESTWELL,
  })['vs-node']
  t.equal(wrong?.status, 'invalid', 'wrong statuses answered: no verdict')
  t.match(wrong?.detail, /get1k/)
})

test('target 2: restwell vs the official plugins on the like-for-like workloads', async (t) => {
  // The official stack answers 405 and override with a bare 404: cheaper, and not judged.
  const official: CpuFigures[string] = { ...RESTWELL, 405: [5, 404], override: [5, 404] }
  const pass = targetsOf({ restwell: RESTWELL, official })['vs-official']
  t.equal(pass?.status, 'pass', '405 and override (0.2x and 0.14x) are left out')
  t.same(Object.keys(pass?.per ?? {}), [
    'get1k',
    'get1k-hashed',
    'get1k-hashed-304',
    'page-gzip',
    'page-304',
    'patch',
  ])
  t.equal(pass?.value, 1)

  const fail = targetsOf({
    restwell: RESTWELL,
    official: { ...official, 'get1k-hashed': 20, patch: 45 },
  })['vs-official']
  t.equal(fail?.status, 'fail', 'the hashed route at 20 / 22 µs')
  t.equal(fail?.value, 20 / 22)
  t.equal(fail?.workload, 'get1k-hashed')
  t.equal(fail?.per?.patch, 45 / 30)

  t.equal(
    targetsOf({ restwell: RESTWELL, express: RESTWELL })['vs-official']?.status,
    'n/a',
    'no official plugins: n/a',
  )
  const offList = targetsOf({
    restwell: { 405: [25, 405] },
    official: { 405: [5, 404] },
  })['vs-official']
  t.equal(offList?.status, 'n/a', 'only workloads outside the like-for-like list: n/a')
  t.match(offList?.detail, /needs restwell and official on get1k, get1k-hashed/)
  t.equal(
    targetsOf({ restwell: RESTWELL, official: { ...official, patch: [30, 200, 1] } })['vs-official']
      ?.status,
    'invalid',
  )
})

test('target 3: restwell at 0.9x Fastify hand-specialized at least, on every workload both ran', async (t) => {
  // The hand-specialized server answers every workload as restwell does: none is left out.
  const special = Object.fromEntries(
    Object.entries(RESTWELL).map(([w, f]) => {
      const [cpu, status] = Array.isArray(f) ? f : [f, 200]
      return [w, [cpu * 0.9, status] as [number, number]]
    }),
  )
  const pass = targetsOf({ restwell: RESTWELL, 'fastify-special': special })['vs-special']
  t.equal(pass?.status, 'pass', 'exactly 0.9x passes')
  t.equal(Object.keys(pass?.per ?? {}).length, 8, 'every workload')
  t.ok(Math.abs((pass?.value ?? 0) - 0.9) < 1e-9)

  const fail = targetsOf({
    restwell: RESTWELL,
    'fastify-special': { ...special, 'page-304': [24, 304] },
  })['vs-special']
  t.equal(fail?.status, 'fail', 'restwell spends 30 µs where the ceiling spends 24: 0.8x')
  t.equal(fail?.workload, 'page-304')
  t.equal(fail?.value, 24 / 30)
  t.equal(targetsOf({ restwell: RESTWELL })['vs-special']?.status, 'n/a', 'not run: n/a')
  t.match(
    targetsOf({ restwell: RESTWELL })['vs-special']?.detail,
    /needs restwell and fastify-special/,
  )
  t.equal(
    targetsOf({ restwell: RESTWELL, 'fastify-special': { ...special, get1k: [18, 200, 4] } })[
      'vs-special'
    ]?.status,
    'invalid',
    'wrong statuses answered: no verdict',
  )
})

test('target 4: a route opted out of everything, in µs over bare Fastify on get1k', async (t) => {
  const pass = targetsOf({
    fastify: { get1k: 17.3, patch: 18 },
    // patch keeps @restwell/patch even opted out: not the workload judged
    'restwell-optout': { get1k: 18.1, patch: 30 },
  }).optout
  t.equal(pass?.status, 'pass')
  t.equal(pass?.workload, 'get1k')
  t.ok(Math.abs((pass?.value ?? 0) - 0.8) < 1e-9, '+0.8 µs')

  const edge = targetsOf({ fastify: { get1k: 15.1 }, 'restwell-optout': { get1k: 16.1 } }).optout
  t.equal(edge?.status, 'pass', 'exactly +1.0 µs passes (16.1 - 15.1 is 1.0000000000000018)')

  const fail = targetsOf({ fastify: { get1k: 17.3 }, 'restwell-optout': { get1k: 18.4 } }).optout
  t.equal(fail?.status, 'fail', '+1.1 µs')
  const faster = targetsOf({ fastify: { get1k: 20 }, 'restwell-optout': { get1k: 19 } }).optout
  t.equal(faster?.value, -1, 'a cheaper route is a negative difference')
  t.equal(faster?.status, 'pass')

  t.equal(targetsOf({ fastify: { get1k: 17 } }).optout?.status, 'n/a', 'no opted-out server')
  t.equal(
    targetsOf({ fastify: { patch: 17 }, 'restwell-optout': { patch: 17 } }).optout?.status,
    'n/a',
    'no get1k',
  )
  t.equal(
    targetsOf({ fastify: { get1k: 17 }, 'restwell-optout': { get1k: [17, 200, 2] } }).optout
      ?.status,
    'invalid',
  )
})

test('target 5: at least 3x the Express stack on every workload', async (t) => {
  const express = Object.fromEntries(
    Object.entries(RESTWELL).map(([w, f]) => {
      const [cpu, status] = Array.isArray(f) ? f : [f, 200]
      // Express has no 405: its 404 is judged all the same (as before).
      return [w, [cpu * 4, w === '405' ? 404 : status] as [number, number]]
    }),
  )
  const pass = targetsOf({ restwell: RESTWELL, express })['vs-express']
  t.equal(pass?.status, 'pass')
  t.equal(pass?.value, 4)
  t.equal(Object.keys(pass?.per ?? {}).length, 8, 'every workload')

  const fail = targetsOf({ restwell: RESTWELL, express: { ...express, override: 100 } })[
    'vs-express'
  ]
  t.equal(fail?.status, 'fail')
  t.equal(fail?.value, 100 / 35)
  t.equal(fail?.workload, 'override')
  t.equal(targetsOf({ restwell: RESTWELL })['vs-express']?.status, 'n/a', 'no Express: n/a')
})

test('the targets in the Markdown table: wanted, the figure with three decimals, the verdict', async (t) => {
  const figures = {
    restwell: RESTWELL,
    node: { ...RESTWELL, get1k: 19.96 },
    fastify: { get1k: 17.3 },
    'restwell-optout': { get1k: 18.8 },
  }
  const summary = summarize(cpuRounds(figures), ALL_SERVERS, ALL_WORKLOADS)
  const markdown = renderMarkdown({
    date: '2026-11-22T18:00:00.000Z',
    seconds: 1,
    machine: {
      cpus: 2,
      cpuModel: 'x',
      node: 'v20',
      loadAverageBefore: ['0'],
      loadAverageAfter: ['0'],
    },
    options: { rounds: 3, duration: 2, warmup: 1, connections: 10 },
    servers: ALL_SERVERS,
    workloads: ALL_WORKLOADS.map((id) => ({ id, title: id, method: 'GET', path: '/', spec: 200 })),
    summary,
    targets: evaluateTargets(summary),
  })
  // 19.96 / 20 = 0.998x: never a rounded 1.00x next to FAIL.
  t.match(
    markdown,
    /\| restwell \(all on\) vs raw node:http writing the conventions by hand, every workload \| >= 1x \| 0\.998x \(get1k\) \| FAIL \(405 1\.00x, get1k 1\.00x, /,
  )
  t.match(
    markdown,
    /\| a route opted out of everything, over bare Fastify \(get1k\) \| <= \+1 µs \| \+1\.500 µs \| FAIL \(18\.8 against 17\.3 µs\) \|/,
  )
  t.match(
    markdown,
    /\| restwell \(all on\) vs the Express 5 stack, every workload \| >= 3x \| - \| N\/A \(needs restwell and express\) \|/,
  )
})

test('--profile charges each sample to the hook Fastify called, with what it called', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'restwell-profile-'))
  tap.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
    id,
    callFrame: { functionName, url, lineNumber: 0, columnNumber: 0, scriptId: '0' },
    children,
  })
  const runner = 'file:///app/node_modules/.pnpm/fastify@5.0.0/node_modules/fastify/lib/hooks.js'
  const plugin = 'file:///app/packages/negotiation/src/plugin.ts'
  const profile = {
    nodes: [
      frame(1, '(root)', '', [2, 6, 7, 9]),
      frame(2, 'next', runner, [3]),
      frame(3, 'negotiationOnSend', plugin, [4, 5]),
      frame(4, 'appendVary', 'file:///app/packages/errors/src/vary.ts'),
      // the next hook, called from the first one's done(): charged to itself, not to it
      frame(5, 'next', runner, [8]),
      frame(6, 'parserOnIncoming', 'node:_http_server'),
      frame(7, '(idle)', ''),
      // the bench loads the packages' builds: a dist/ file belongs to its package too
      frame(8, 'cacheControlOnSend', 'file:///app/packages/cache-control/dist/index.mjs', [10]),
      // the write syscall, wherever it is called from: a bucket of its own
      frame(9, 'writev', ''),
      frame(10, 'writeLatin1String', ''),
    ],
    samples: [3, 4, 4, 8, 6, 7, 9, 10],
    timeDeltas: [1000, 1000, 1000, 2000, 5000, 9000, 4000, 3000],
    startTime: 0,
    endTime: 26000,
  }
  const file = join(dir, 'p.cpuprofile')
  writeFileSync(file, JSON.stringify(profile))
  const summary = summarizeProfile(file)
  t.equal(summary.busyMs, 17, 'idle time is not busy time')
  const hooks = Object.fromEntries(summary.hooks.map((h) => [h.name.split(' ')[0], h.ms]))
  t.equal(hooks.negotiationOnSend, 3, 'its own sample and the two of appendVary under it')
  t.equal(hooks.cacheControlOnSend, 2, 'the hook it handed over to keeps its own')
  t.equal(hooks['(under'], 5, 'parsing, under no hook')
  t.equal(
    hooks['(the'],
    7,
    'the write syscall (writev, a string written), under a hook or not, apart',
  )
  const layers = Object.fromEntries(summary.layers.map((l) => [l.name, l.ms]))
  t.same(
    layers,
    {
      restwell: 5,
      'the routes (bench code)': 0,
      'Fastify, its plugins and libraries': 0,
      "Node's JavaScript (http, net, streams)": 5,
      'V8 and native (JSON, strings, header checks)': 0,
      'garbage collection': 0,
      'the write syscall (wall clock: see the system CPU)': 7,
    },
    'every busy sample in one layer: restwell (negotiation, errors, cache-control), node:, writev',
  )
  t.match(
    summary.hooks.find((h) => h.name.startsWith('cacheControlOnSend'))?.name,
    /^cacheControlOnSend @restwell\/cache-control:/,
  )
})

test('--ablation: what the opted-out route and each convention kept alone add, per workload', async (t) => {
  const ids = [
    'fastify',
    'restwell-optout',
    'restwell-only-cors',
    'restwell-only-compress',
    'restwell',
  ]
  const cpu: Record<string, [number, number]> = {
    fastify: [30, 40],
    'restwell-optout': [33, 50],
    'restwell-only-cors': [36.5, 49],
    'restwell-only-compress': [33, 0],
    restwell: [50, 70],
  }
  const figures = ids.map((id, i) => {
    const [get, patch] = cpu[id] as [number, number]
    return round(
      id,
      i,
      patch === 0 ? { get1k: [1000, get] } : { get1k: [1000, get], patch: [900, patch] },
    )
  })
  const summary = summarize(
    figures,
    ids.map((id) => ({ id, label: id })),
    ['get1k', 'patch'],
  )
  const lines: string[] = []
  printAblation({ summary, workloads: [{ id: 'get1k' }, { id: 'patch' }] }, (l) => lines.push(l))
  const table = lines.filter((l) => l.startsWith('|'))
  t.equal(
    table[0],
    '| workload | bare Fastify | opted out | cors | compress | all on, over opted out | all on |',
  )
  t.equal(table[2], '| get1k | 30.0 | +3.0 | +3.5 | +0.0 | +17.0 | 50.0 |')
  t.equal(table[3], '| patch | 40.0 | +10.0 | -1.0 | - | +20.0 | 70.0 |', 'a missing figure: -')
})

test('a round runs each workload on every server in turn, the order reversing each time', async (t) => {
  const show = (round: number) =>
    roundPlan(['A', 'B', 'C'], ['get1k', 'patch', '405'], round)
      .map(({ server, workload }) => `${workload}:${server}`)
      .join(' ')
  t.equal(show(0), 'get1k:A get1k:B get1k:C patch:C patch:B patch:A 405:A 405:B 405:C')
  t.equal(show(1), 'get1k:C get1k:B get1k:A patch:A patch:B patch:C 405:C 405:B 405:A')
  // Over two rounds each server runs first as often as last, for every workload.
  for (const workload of ['get1k', 'patch', '405']) {
    const firsts = [0, 1].map((round) => roundPlan(['A', 'B', 'C'], [workload], round)[0]?.server)
    t.same(firsts, ['A', 'C'], `${workload}: first A, then C`)
  }
})
