#!/usr/bin/env node
// `pnpm bench`: restwell's cost, side by side with what users would pick instead.
// Each server runs in its own child process on 127.0.0.1 (port 0, reported over IPC), started
// afresh each round; autocannon generates the load from this process, on one server at a time.
// Within a round each workload runs on every server in turn (A B C, then C B A), so drift hits
// every server alike. See test/bench/README.md.
import { fork, spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import autocannon from './cannon.mjs'
import { WORKLOAD_IDS, WORKLOADS } from './data.mjs'
import { parityProblems } from './parity.mjs'
import { printProfile } from './profile.mjs'
import { probe } from './probe.mjs'
import {
  evaluateTargets,
  printAblation,
  printReport,
  renderMarkdown,
  renderSvg,
  summarize,
} from './report.mjs'
import { roundPlan } from './schedule.mjs'
import { ONLY } from './servers/limits.mjs'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PACKAGES = `${ROOT}packages`
const RESULTS = `${HERE}results`
const PROFILES = `${RESULTS}/profiles`

/** The servers, in the order they are started (and, every other time, measured). */
export const SERVERS = [
  { id: 'node', label: 'raw node:http', file: 'node' },
  { id: 'fastify', label: 'bare Fastify (response schema)', file: 'fastify' },
  {
    id: 'fastify-headers',
    label: "bare Fastify + restwell's headers",
    file: 'fastify',
    variant: 'headers',
  },
  { id: 'fastify-special', label: 'Fastify hand-specialized', file: 'fastify-special' },
  { id: 'restwell', label: 'Fastify + restwell (all on)', file: 'restwell', variant: 'all' },
  {
    id: 'restwell-optout',
    label: 'Fastify + restwell (route opts out)',
    file: 'restwell',
    variant: 'optout',
  },
  { id: 'official', label: 'Fastify + official plugins', file: 'fastify-official' },
  { id: 'express', label: 'Express 5 stack', file: 'express' },
]
const SERVER_IDS = SERVERS.map((s) => s.id)

/** The umbrella with one convention kept on an opted-out route: run only when asked for. */
export const ABLATION_SERVERS = Object.keys(ONLY).map((name) => ({
  id: `restwell-only-${name}`,
  label: `Fastify + restwell (route keeps ${name})`,
  file: 'restwell',
  variant: `only-${name}`,
}))
const KNOWN_IDS = [...SERVER_IDS, ...ABLATION_SERVERS.map((s) => s.id)]

/** `--ablation`: these servers, and these workloads unless `--workloads` names others. */
export const ABLATION = {
  servers: ['fastify', 'restwell-optout', ...ABLATION_SERVERS.map((s) => s.id), 'restwell'],
  workloads: ['get1k', 'get1k-hashed', 'page-gzip', 'patch'],
}

const HELP = `Usage: pnpm bench [-- options]   (or: node test/bench/run.mjs [options])

  --rounds=N           rounds; each starts every server afresh (default 3)
  --duration=S         seconds measured per server, workload and round (default 2)
  --warmup=S           seconds of warm-up per server, workload and round (default 1)
  --connections=N      concurrent connections (default 10)
  --only=a,b           servers: ${SERVER_IDS.join(', ')};
                       also restwell-only-<c>, c one of ${Object.keys(ONLY).join(', ')}
  --ablation           where restwell's microseconds go: bare Fastify, an opted-out route, one
                       route per convention keeping only it, all on (workloads ${ABLATION.workloads.join(', ')}
                       unless --workloads); writes ablation.* (not latest.*)
  --workloads=a,b      workloads: ${WORKLOAD_IDS.join(', ')}
  --quick              smoke run: 1 round, 1 s, 0.3 s warm-up; writes quick.* (not latest.*)
  --profile[=a,b]      run these servers (default: restwell) with --cpu-prof; profiles go to
                       test/bench/results/profiles/ (their figures are then skewed)
  --no-write           print only; write no JSON/SVG/Markdown
  --help

Exits 1 when a server fails to start, answers a workload with a status other than expected, or
writes restwell's conventions by hand (node, fastify-special) unlike restwell.`

function parseArgs(argv) {
  const opts = {
    rounds: 3,
    duration: 2,
    warmup: 1,
    connections: 10,
    only: SERVER_IDS,
    workloads: WORKLOAD_IDS,
    profile: [],
    write: true,
    quick: false,
    ablation: false,
  }
  const explicit = new Set()
  for (const arg of argv) {
    if (arg === '--') continue
    const [flag, value] = arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined]
    const list = (known) => {
      const ids = (value ?? '').split(',').filter(Boolean)
      const bad = ids.filter((id) => !known.includes(id))
      if (ids.length === 0 || bad.length > 0) {
        throw new Error(
          `${flag}: unknown ${bad.join(', ') || '(empty)'}; known: ${known.join(', ')}`,
        )
      }
      return ids
    }
    const number = () => {
      const n = Number(value)
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`)
      return n
    }
    switch (flag) {
      case '--help':
      case '-h':
        console.log(HELP)
        process.exit(0)
        break
      case '--rounds':
        opts.rounds = Math.round(number())
        explicit.add('rounds')
        break
      case '--duration':
        opts.duration = number()
        explicit.add('duration')
        break
      case '--warmup':
        opts.warmup = number()
        explicit.add('warmup')
        break
      case '--connections':
        opts.connections = Math.round(number())
        break
      case '--only':
        opts.only = list(KNOWN_IDS)
        explicit.add('only')
        break
      case '--workloads':
        opts.workloads = list(WORKLOAD_IDS)
        explicit.add('workloads')
        break
      case '--ablation':
        opts.ablation = true
        break
      case '--quick':
        opts.quick = true
        break
      case '--profile':
      case '--cpu-prof':
        opts.profile = value === undefined ? ['restwell'] : list(KNOWN_IDS)
        break
      case '--no-write':
        opts.write = false
        break
      default:
        throw new Error(`unknown option ${arg}\n\n${HELP}`)
    }
  }
  if (opts.quick) {
    if (!explicit.has('rounds')) opts.rounds = 1
    if (!explicit.has('duration')) opts.duration = 1
    if (!explicit.has('warmup')) opts.warmup = 0.3
  }
  if (opts.ablation) {
    if (!explicit.has('only')) opts.only = ABLATION.servers
    if (!explicit.has('workloads')) opts.workloads = ABLATION.workloads
  }
  for (const id of opts.profile) if (!opts.only.includes(id)) opts.only = [...opts.only, id]
  return opts
}

/** Packages whose `dist/index.mjs` is missing or older than some file of their `src/`. */
function staleBuilds() {
  const stale = []
  for (const name of readdirSync(PACKAGES)) {
    const built = statSync(`${PACKAGES}/${name}/dist/index.mjs`, { throwIfNoEntry: false })
    const src = `${PACKAGES}/${name}/src`
    const newest = Math.max(
      ...readdirSync(src, { recursive: true }).map((f) => statSync(`${src}/${f}`).mtimeMs),
    )
    if (built === undefined || newest > built.mtimeMs) stale.push(name)
  }
  return stale
}

/**
 * The restwell servers load the umbrella as a user's app does: its build (`dist/`), plain
 * JavaScript, no loader. (Through tsx, every function defined inside a function is renamed at
 * each call, ~1 µs per request on the page route: a cost users never pay.) Builds first when a
 * package's build is missing or older than its sources.
 */
function ensureBuilt() {
  const stale = staleBuilds()
  if (stale.length === 0) return
  console.log(`building the packages first (dist/ missing or older than src/: ${stale.join(', ')})`)
  const built = spawnSync('pnpm', ['build'], { cwd: ROOT, stdio: 'inherit' })
  if (built.status !== 0) {
    console.error(`pnpm build failed (${built.error?.message ?? `exit ${built.status}`})`)
    process.exit(1)
  }
}

/** Starts one server child; resolves with its `ready` message. */
function startServer(server, opts, round) {
  const execArgv = []
  let profileDir
  if (opts.profile.includes(server.id)) {
    // One folder per child, Node's own file names (…<pid>.<thread id>…) kept: the main
    // thread's profile is picked (a worker thread would write its own).
    profileDir = `${PROFILES}/${server.id}-round${round + 1}`
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`)
  }
  const args = [server.file, ...(server.variant ? [server.variant] : [])]
  const child = fork(`${HERE}server.mjs`, args, {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill()
      reject(new Error(`${server.id}: not ready within 60 s`))
    }, 60_000)
    const onExit = (code) => {
      clearTimeout(timer)
      reject(new Error(`${server.id}: exited with code ${code} before it was ready`))
    }
    child.once('exit', onExit)
    child.on('message', (message) => {
      if (message.type === 'error') {
        clearTimeout(timer)
        child.off('exit', onExit)
        reject(new Error(`${server.id} failed to start:\n${message.message}`))
      } else if (message.type === 'ready') {
        clearTimeout(timer)
        child.off('exit', onExit)
        resolve({ ...message, child, profileDir })
      }
    })
  })
}

function stopServer(ready) {
  const { child } = ready
  return new Promise((resolve) => {
    let rssPeak
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    child.on('message', (message) => {
      if (message.type === 'stopped') rssPeak = message.rssPeak
    })
    child.once('exit', () => {
      clearTimeout(timer)
      resolve(rssPeak)
    })
    child.send({ type: 'stop' })
  })
}

/** The server's CPU time so far (user + system, µs), asked over IPC. */
function cpuTime(ready) {
  return new Promise((resolve) => {
    const onMessage = (message) => {
      if (message.type !== 'cpu') return
      ready.child.off('message', onMessage)
      resolve(message.usage)
    }
    ready.child.on('message', onMessage)
    ready.child.send({ type: 'cpu' })
  })
}

/** The main thread's profile of a child (thread id 0 in Node's file name). */
async function mainThreadProfile(dir, pid) {
  const files = await readdir(dir).catch(() => [])
  const main = files.find((f) => f.includes(`.${pid}.0.`)) ?? files[0]
  return main ? `${dir}/${main}` : undefined
}

const WORKLOAD_BY_ID = new Map(WORKLOADS.map((w) => [w.id, w]))

/** What this server must answer to a workload: the spec, unless the server declares otherwise. */
function expectationFor(workload, declared) {
  const own = declared[workload.id] ?? workload.absent
  return {
    status: own?.status ?? workload.spec,
    gzip: own?.gzip ?? workload.id === 'page-gzip',
    replay: own?.replay ?? workload.id === 'post-replay',
    note: own?.note,
    absent: own !== undefined && own === workload.absent,
  }
}

/** Checks one probe response beyond its status: the headers the convention promises. */
function probeProblems(workload, expected, response) {
  const problems = []
  if (response.status !== expected.status) {
    const body = response.headers['content-encoding'] ? '' : response.bytes.toString('utf8', 0, 300)
    problems.push(
      `status ${response.status}, expected ${expected.status}${body ? `: ${body}` : ''}`,
    )
  }
  const encoding = response.headers['content-encoding']
  if (expected.gzip && encoding !== 'gzip')
    problems.push(`content-encoding ${encoding ?? 'none'}, expected gzip`)
  if (!expected.gzip && encoding === 'gzip' && workload.id === 'page-gzip') {
    problems.push('gzip sent although the server declared no compression')
  }
  if (expected.status === 405 && !response.headers.allow) problems.push('405 without Allow')
  if (expected.status === 304 && !response.headers.etag) problems.push('304 without ETag')
  if (expected.replay && response.headers['idempotent-replayed'] !== 'true') {
    problems.push('not a replay: no Idempotent-Replayed: true')
  }
  return problems
}

/**
 * One autocannon run. Latencies are collected from its `response` events (float ms): its own
 * histogram keeps whole milliseconds, too coarse for sub-millisecond answers.
 */
function runCannon(port, workload, headers, seconds, connections) {
  return new Promise((resolve, reject) => {
    const latencies = []
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}${workload.path}`,
        method: workload.method,
        headers,
        body: workload.body,
        connections,
        pipelining: 1,
        duration: seconds,
      },
      (error, result) => {
        if (error) return reject(error)
        latencies.sort((a, b) => a - b)
        const at = (q) =>
          latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]
        resolve({ ...result, p50: at(0.5), p99: at(0.99) })
      },
    )
    instance.on('response', (_client, _status, _bytes, responseTime) =>
      latencies.push(responseTime),
    )
    instance.on('error', () => {})
  })
}

function countMismatches(result, status) {
  let answered = 0
  let matching = 0
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
    answered += stats.count
    if (Number(code) === status) matching += stats.count
  }
  return { answered, mismatched: answered - matching + result.errors + result.timeouts }
}

/**
 * Starts one server for a round and reads what its workloads need: an ETag from one request
 * (If-None-Match, If-Match), the first request of a workload that repeats it (`prime`: a POST
 * whose answer its key stores), then one probe per workload, checked against what the server
 * declares it answers.
 */
async function prepareServer(server, opts, round) {
  const ready = await startServer(server, opts, round)
  const etags = {}
  const needed = new Set()
  for (const id of opts.workloads) {
    const from = WORKLOAD_BY_ID.get(id).setup?.etagFrom
    if (from) needed.add(from)
  }
  try {
    for (const id of needed) {
      const res = await probe(ready.port, WORKLOAD_BY_ID.get(id))
      etags[id] = res.headers.etag
    }
    const plans = new Map()
    const problems = []
    for (const id of opts.workloads) {
      const workload = WORKLOAD_BY_ID.get(id)
      const headers = { ...workload.headers }
      if (workload.setup) {
        // A server without ETags gets a tag that cannot match; its expectation says 200.
        headers[workload.setup.header] = etags[workload.setup.etagFrom] ?? '"no-etag-from-server"'
      }
      const expected = expectationFor(workload, ready.expect)
      if (workload.prime) await probe(ready.port, workload, headers)
      const response = await probe(ready.port, workload, headers)
      const found = probeProblems(workload, expected, response)
      for (const p of found) problems.push(`${server.id} ${id}: ${p}`)
      plans.set(id, {
        workload,
        headers,
        expected,
        bytes: response.bytes.length,
        found,
        status: response.status,
        responseHeaders: response.headers,
      })
    }
    return { server, ready, plans, problems, runs: [] }
  } catch (error) {
    await stopServer(ready)
    throw error
  }
}

/** One workload on one started server: a warm-up, then the measured run with its CPU time. */
async function measure(entry, id, opts, log) {
  const { server, ready } = entry
  const { workload, headers, expected, bytes, found } = entry.plans.get(id)
  const warm = await runCannon(ready.port, workload, headers, opts.warmup, opts.connections)
  const cpuBefore = await cpuTime(ready)
  const result = await runCannon(ready.port, workload, headers, opts.duration, opts.connections)
  const cpuAfter = await cpuTime(ready)
  const warmCheck = countMismatches(warm, expected.status)
  const check = countMismatches(result, expected.status)
  const perAnswer = (micros) => (check.answered > 0 ? micros / check.answered : undefined)
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]),
  )
  entry.runs.push({
    workload: id,
    expected,
    rps: result.requests.average,
    p50: result.p50,
    p99: result.p99,
    // Server CPU µs per answered request over the measured window: what the stack costs,
    // whether or not the load generator keeps the server busy.
    cpuPerRequest: perAnswer(cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system),
    // The split: user is the JavaScript and Node's own work; system is the kernel's, mostly the
    // one writev per answer, whose cost on loopback includes waking the load generator.
    cpuUserPerRequest: perAnswer(cpuAfter.user - cpuBefore.user),
    cpuSystemPerRequest: perAnswer(cpuAfter.system - cpuBefore.system),
    // A batch answers several operations per request: its CPU per operation compares with one GET.
    operations: expected.status === workload.spec ? (workload.operations ?? 1) : 1,
    answered: check.answered,
    warmAnswered: warmCheck.answered,
    mismatched: check.mismatched + warmCheck.mismatched,
    statuses,
    bytesPerResponse: bytes,
    probeProblems: found,
  })
  log(
    `  ${server.id.padEnd(16)} ${id.padEnd(16)} ${Math.round(result.requests.average)
      .toString()
      .padStart(7)} req/s  p99 ${result.p99?.toFixed(2)} ms${
      check.mismatched + warmCheck.mismatched > 0
        ? `  MISMATCHED ${check.mismatched + warmCheck.mismatched} (got ${JSON.stringify(statuses)})`
        : ''
    }`,
  )
}

/** Stops a round's server and returns its round record (what `summarize` reads). */
async function finishServer(entry, round) {
  const { server, ready } = entry
  ready.rssPeak = await stopServer(ready)
  return {
    server: server.id,
    round,
    port: ready.port,
    rssReady: ready.rssReady,
    rssPeak: ready.rssPeak,
    info: ready.info,
    profile: ready.profileDir ? await mainThreadProfile(ready.profileDir, ready.pid) : undefined,
    runs: entry.runs,
    problems: entry.problems,
  }
}

/**
 * One round: every server is started afresh in its own process (one at a time; a fresh process
 * samples JIT variance too), then each workload is run on each server in turn, so the servers'
 * figures for one workload are seconds apart and machine drift hits them alike. Only one
 * server is under load at any moment; the others wait idle. Then every server is stopped.
 */
async function runRound(servers, opts, round, log) {
  const entries = []
  const failures = []
  for (const server of servers) {
    try {
      entries.push(await prepareServer(server, opts, round))
    } catch (error) {
      failures.push(error.message)
      console.error(`  ${server.id}: ${error.message}`)
    }
  }
  failures.push(...parityProblems(entries))
  const records = []
  try {
    for (const { server: entry, workload: id } of roundPlan(entries, opts.workloads, round)) {
      if (entry.failed) continue
      try {
        await measure(entry, id, opts, log)
      } catch (error) {
        // A server that breaks under load sits out the rest of the round.
        entry.failed = true
        failures.push(`${entry.server.id} ${id}: ${error.message}`)
        console.error(`  ${entry.server.id} ${id}: ${error.message}`)
      }
    }
  } finally {
    for (const entry of entries) records.push(await finishServer(entry, round))
  }
  for (const record of records) {
    failures.push(...record.problems)
    for (const run of record.runs) {
      if (run.mismatched > 0) {
        failures.push(
          `${record.server} ${run.workload}: ${run.mismatched} responses not ${run.expected.status} (${JSON.stringify(run.statuses)})`,
        )
      }
    }
  }
  return { records, failures }
}

async function main() {
  let opts
  try {
    opts = parseArgs(process.argv.slice(2))
  } catch (error) {
    console.error(error.message)
    process.exit(2)
  }
  const servers = [...SERVERS, ...ABLATION_SERVERS].filter((s) => opts.only.includes(s.id))
  const perRound = servers.length * opts.workloads.length * (opts.duration + opts.warmup)
  const estimate = Math.round(opts.rounds * (perRound + servers.length * 2))
  const started = new Date()
  const load = loadavg().map((n) => n.toFixed(2))
  console.log(
    `restwell bench: ${servers.length} servers x ${opts.workloads.length} workloads x ${opts.rounds} rounds, ` +
      `${opts.duration} s each (+${opts.warmup} s warm-up), ${opts.connections} connections; ` +
      `about ${estimate} s. ${cpus().length} CPUs, load average ${load.join(' ')}`,
  )
  if (servers.some((s) => s.file === 'restwell')) ensureBuilt()
  if (opts.profile.length > 0) await mkdir(PROFILES, { recursive: true })

  const rounds = []
  const failures = []
  for (let round = 0; round < opts.rounds; round++) {
    console.log(`round ${round + 1}/${opts.rounds}`)
    const done = await runRound(servers, opts, round, console.log)
    rounds.push(...done.records)
    failures.push(...done.failures)
  }

  const summary = summarize(rounds, servers, opts.workloads)
  const targets = evaluateTargets(summary)
  const finished = new Date()
  const report = {
    date: started.toISOString(),
    seconds: Math.round((finished - started) / 1000),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      node: process.version,
      loadAverageBefore: load,
      loadAverageAfter: loadavg().map((n) => n.toFixed(2)),
    },
    options: {
      rounds: opts.rounds,
      duration: opts.duration,
      warmup: opts.warmup,
      connections: opts.connections,
      profile: opts.profile,
    },
    servers: servers.map((s) => ({ id: s.id, label: s.label })),
    workloads: WORKLOADS.filter((w) => opts.workloads.includes(w.id)).map(
      ({ id, title, method, path, spec }) => ({ id, title, method, path, spec }),
    ),
    summary,
    targets,
    failures,
    rounds,
  }
  printReport(report, console.log)
  if (opts.ablation) printAblation(report, console.log)

  if (opts.write) {
    await mkdir(RESULTS, { recursive: true })
    const stamp = started.toISOString().replace(/[:.]/g, '-')
    const json = `${JSON.stringify(report, null, 2)}\n`
    // A --quick smoke run does not replace the figures of the last full run.
    const name = opts.ablation ? 'ablation' : opts.quick ? 'quick' : 'latest'
    await writeFile(`${RESULTS}/bench-${stamp}.json`, json)
    await writeFile(`${RESULTS}/${name}.json`, json)
    await writeFile(`${RESULTS}/${name}.svg`, renderSvg(report))
    await writeFile(`${RESULTS}/${name}.md`, renderMarkdown(report))
    console.log(
      `\nwrote test/bench/results/${name}.json, ${name}.svg, ${name}.md and bench-${stamp}.json`,
    )
  }
  const profiled = rounds.filter((r) => r.profile)
  if (profiled.length > 0) {
    console.log('\nCPU profiles (open in Chrome DevTools > Performance, or speedscope.app):')
    for (const r of profiled) {
      // Every request the profiled process answered: warm-up and measurement (probes aside).
      const requests = r.runs.reduce((n, run) => n + run.answered + run.warmAnswered, 0)
      printProfile(r.profile, console.log, 12, requests)
    }
  }
  if (failures.length > 0) {
    console.error(`\n${failures.length} failure(s):`)
    for (const f of failures) console.error(`  - ${f}`)
    process.exitCode = 1
  }
}

await main()
