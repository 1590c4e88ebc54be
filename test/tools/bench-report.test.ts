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
  answered: number
  mismatched: number
  expected: { status: number; note?: string }
  bytesPerResponse: number
}
interface Target {
  id: string
  status: string
  value?: number
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
}
interface ProfileModule {
  summarizeProfile(
    file: string,
    top?: number,
  ): { busyMs: number; hooks: Array<{ name: string; ms: number }> }
}

// The bench is plain JavaScript outside the TypeScript project: loaded by URL, typed here.
const load = async <T>(path: string): Promise<T> =>
  (await import(new URL(path, import.meta.url).href)) as T
const { summarize, evaluateTargets, renderMarkdown } =
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
      answered: 1000,
      mismatched,
      expected: { status },
      bytesPerResponse: 100,
    })) satisfies Run[],
  }
}

function rounds(restwell304 = 304, restwellMismatch = 0) {
  return [0, 1, 2].flatMap((i) => [
    round('fastify', i, {
      get1k: [1000 + i * 100, 30],
      'page-gzip': [500, 100],
      'page-304': [500, 100],
    }),
    round('restwell', i, {
      get1k: [900, 40 + i, 200, restwellMismatch],
      'page-gzip': [400, 120],
      'page-304': [600, 90, restwell304],
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
})

test('each target: pass, fail, the lowest workload, n/a and invalid', async (t) => {
  const byId = (targets: Target[]) => Object.fromEntries(targets.map((x) => [x.id, x]))
  const targets = byId(evaluateTargets(summarize(rounds(), SERVERS, WORKLOADS)))
  t.equal(targets['umbrella-get1k']?.status, 'fail', '0.82x is under 0.85x')
  t.equal(targets['umbrella-get1k']?.value, 900 / 1100)
  t.equal(targets['optout-get1k']?.status, 'fail', '1000 / 1100 = 0.91x is under 0.95x')
  t.equal(targets['vs-express']?.status, 'fail')
  t.equal(targets['vs-express']?.value, 600 / 250, 'the lowest ratio over the workloads (page-304)')
  t.equal(targets['vs-express']?.per?.get1k, 900 / 200)
  t.equal(targets['vs-official']?.status, 'pass', 'at least 1x on each workload')
  t.equal(targets['vs-official']?.value, 600 / 550)
  t.equal(targets['page-304']?.status, 'pass', '600 / 400 = 1.5x')

  const without304 = byId(evaluateTargets(summarize(rounds(200), SERVERS, WORKLOADS)))
  t.equal(without304['page-304']?.status, 'n/a', 'no 304 path: not judged')
  const wrong = byId(evaluateTargets(summarize(rounds(304, 3), SERVERS, WORKLOADS)))
  t.equal(wrong['umbrella-get1k']?.status, 'invalid', 'wrong statuses answered: no verdict')
  const alone = byId(evaluateTargets(summarize(rounds(), SERVERS.slice(0, 2), WORKLOADS)))
  t.equal(alone['vs-express']?.status, 'not run')

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
    summary: summarize(rounds(), SERVERS, WORKLOADS),
    targets: evaluateTargets(summarize(rounds(), SERVERS, WORKLOADS)),
  })
  t.match(
    markdown,
    /\| get1k \| restwell \| 900 \| ±0% \| 1\.00 \| 2\.00 \| 41\.0 \| \+11\.0 \| 0\.82x \|/,
  )
  // A target's figure keeps three decimals: 0.818x, never a rounded 0.82x next to FAIL, nor a
  // 1.20x FAIL for a 1.195x just under the line.
  t.match(
    markdown,
    /\| restwell \(all on\) vs bare Fastify, 1 KB GET \| >= 0\.85x \| 0\.818x \| FAIL \|/,
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
      frame(1, '(root)', '', [2, 6, 7]),
      frame(2, 'next', runner, [3]),
      frame(3, 'negotiationOnSend', plugin, [4, 5]),
      frame(4, 'appendVary', 'file:///app/packages/errors/src/vary.ts'),
      // the next hook, called from the first one's done(): charged to itself, not to it
      frame(5, 'next', runner, [8]),
      frame(6, 'parserOnIncoming', 'node:_http_server'),
      frame(7, '(idle)', ''),
      // the bench loads the packages' builds: a dist/ file belongs to its package too
      frame(8, 'cacheControlOnSend', 'file:///app/packages/cache-control/dist/index.mjs'),
    ],
    samples: [3, 4, 4, 8, 6, 7],
    timeDeltas: [1000, 1000, 1000, 2000, 5000, 9000],
    startTime: 0,
    endTime: 19000,
  }
  const file = join(dir, 'p.cpuprofile')
  writeFileSync(file, JSON.stringify(profile))
  const summary = summarizeProfile(file)
  t.equal(summary.busyMs, 10, 'idle time is not busy time')
  const hooks = Object.fromEntries(summary.hooks.map((h) => [h.name.split(' ')[0], h.ms]))
  t.equal(hooks.negotiationOnSend, 3, 'its own sample and the two of appendVary under it')
  t.equal(hooks.cacheControlOnSend, 2, 'the hook it handed over to keeps its own')
  t.equal(hooks['(under'], 5, 'parsing, under no hook')
  t.match(
    summary.hooks.find((h) => h.name.startsWith('cacheControlOnSend'))?.name,
    /^cacheControlOnSend @restwell\/cache-control:/,
  )
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
