#!/usr/bin/env node
// `pnpm bench:instructions`: the machine instructions a server executes per request, counted by
// Valgrind's callgrind, so the figures do not swing with the machine's speed the way CPU time
// does. Each server runs under callgrind; after a warm-up, counting is switched on for a fixed
// number of requests. Every native function (V8's runtime and builtins, libuv, libc) is charged
// to the nearest JavaScript function that called it, found through node's `--perf-basic-prof`
// map, and that function to its layer (restwell, the routes, Fastify and its libraries, Node).
// The V8 compiler's work is counted apart: under callgrind it lags behind, so it would blur the
// figures. See test/bench/README.md.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from './cannon.mjs'
import { WORKLOAD_IDS, WORKLOADS } from './data.mjs'
import { probe } from './probe.mjs'
import { owner } from './profile.mjs'

const SERVERS = {
  node: ['node'],
  fastify: ['fastify'],
  'fastify-special': ['fastify-special'],
  restwell: ['restwell', 'all'],
  'restwell-optout': ['restwell', 'optout'],
  official: ['fastify-official'],
  express: ['express'],
}

/** The layers instructions are charged to, in the order they are printed. */
export const LAYERS = {
  restwell: 'restwell',
  routes: 'the routes (bench code)',
  fastify: 'Fastify, its plugins and libraries',
  node: "Node's JavaScript (http, net, streams)",
  literal: "V8's slow path for process.nextTick's tick object",
  gc: 'garbage collection',
  native: 'native, no JavaScript caller (libuv, llhttp, libc, V8)',
  compiler: 'V8 compiler (apart)',
}

/** Self cost per function (its name with callers, `'`-separated, from `--separate-callers`). */
export function parseCallgrind(text) {
  const names = new Map()
  const self = new Map()
  let current
  let inCall = false
  for (const line of text.split('\n')) {
    const named = /^(c?fn)=\((\d+)\)(?: (.*))?$/.exec(line)
    if (named) {
      if (named[3] !== undefined) names.set(named[2], named[3])
      if (named[1] === 'fn') current = named[2]
      inCall = named[1] === 'cfn'
      continue
    }
    if (!/^[0-9+*-]/.test(line) || current === undefined) continue
    const cost = Number(line.split(' ')[1])
    if (!Number.isFinite(cost)) continue
    // The cost line after `calls=` is the call's inclusive cost, not the caller's own.
    if (inCall) inCall = false
    else self.set(current, (self.get(current) ?? 0) + cost)
  }
  return [...self].map(([id, cost]) => ({ chain: (names.get(id) ?? id).split("'"), cost }))
}

/**
 * A resolver of JIT code addresses (`0x…`) to the names node's perf map gives them. V8 reuses
 * the space of code it has freed, so where entries overlap, the later one (newer code) wins.
 */
export function perfMapResolver(text) {
  const spans = []
  for (const line of text.split('\n')) {
    if (line === '') continue
    const [first, size, ...name] = line.split(' ')
    const start = Number.parseInt(first, 16)
    const end = start + Number.parseInt(size, 16)
    const from = firstEndingAfter(spans, start)
    let to = from
    while (to < spans.length && spans[to].start < end) to++
    const parts = []
    if (from < to && spans[from].start < start) parts.push({ ...spans[from], end: start })
    parts.push({ start, end, name: name.join(' ') })
    if (from < to && spans[to - 1].end > end) parts.push({ ...spans[to - 1], start: end })
    spans.splice(from, to - from, ...parts)
  }
  return (symbol) => {
    if (!/^0x[0-9a-f]+$/.test(symbol)) return undefined
    const address = Number.parseInt(symbol, 16)
    const span = spans[firstEndingAfter(spans, address)]
    return span !== undefined && span.start <= address ? span.name : undefined
  }
}

/** The index of the first span of `spans` (sorted, disjoint) that ends after `address`. */
function firstEndingAfter(spans, address) {
  let low = 0
  let high = spans.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (spans[mid].end <= address) low = mid + 1
    else high = mid
  }
  return low
}

const COMPILER = /compiler::|v8::internal::Zone|maglev/i
const GC = /Heap::|Scaveng|MarkCompact|Sweeper|Evacuat|ConcurrentMarking|MinorMC|GCTracer/

/** The layer of a JIT code name (`JS:*fn url:line:col`); undefined for regular expressions. */
function layerOfCode(name) {
  if (!name.startsWith('JS:')) return undefined
  const url = /\s(\S+?)(?::\d+:\d+)?$/.exec(name)?.[1] ?? ''
  const pkg = owner(url.replace(/^file:\/\//, ''))
  if (pkg === 'restwell' || pkg.startsWith('@restwell/')) return LAYERS.restwell
  if (pkg === 'bench routes') return LAYERS.routes
  if (pkg.startsWith('node:')) return LAYERS.node
  return LAYERS.fastify
}

/**
 * Whether a chain is V8's slow path for the tick object: the literal defined in the runtime,
 * called from `process.nextTick` (or from no JavaScript frame the chain reaches). The same path
 * taken from another function is that function's.
 */
function isTickLiteral(chain, resolve) {
  if (!chain.some((f) => f.includes('Runtime_DefineKeyedOwnPropertyInLiteral'))) return false
  for (const frame of chain) {
    const name = resolve(frame)
    if (name?.startsWith('JS:')) {
      return /^JS:\S*nextTick node:internal\/process\/task_queues:/.test(name)
    }
  }
  return true
}

/** Instructions per request by layer, and the heaviest JavaScript functions with what they called. */
export function chargeByLayer(functions, resolve, requests) {
  const layers = new Map()
  const byFunction = new Map()
  const add = (map, key, cost) => map.set(key, (map.get(key) ?? 0) + cost / requests)
  for (const { chain, cost } of functions) {
    let layer
    if (COMPILER.test(chain[0])) layer = LAYERS.compiler
    else if (isTickLiteral(chain, resolve)) layer = LAYERS.literal
    else if (chain.some((f) => GC.test(f))) layer = LAYERS.gc
    else {
      for (const frame of chain) {
        const name = resolve(frame)
        const found = name === undefined ? undefined : layerOfCode(name)
        if (found !== undefined) {
          layer = found
          add(byFunction, name, cost)
          break
        }
      }
      layer ??= LAYERS.native
    }
    add(layers, layer, cost)
  }
  const counted = [...layers].filter(([name]) => name !== LAYERS.compiler)
  const total = counted.reduce((sum, [, cost]) => sum + cost, 0)
  const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 12)
  return { total, layers: Object.fromEntries(layers), top }
}

const HELP = `Usage: pnpm bench:instructions [-- options]   (needs valgrind: apt install valgrind)

  --only=a,b        servers: ${Object.keys(SERVERS).join(', ')} (default node,fastify,restwell,restwell-optout)
  --workloads=a,b   ${WORKLOAD_IDS.join(', ')} (default get1k)
  --warmup=N        requests before counting (default 8000)
  --requests=N      requests counted (default 1500)
  --keep            keep the callgrind files and perf maps (their folder is printed)
  --help
`

function parseArgs(argv) {
  const opts = {
    only: ['node', 'fastify', 'restwell', 'restwell-optout'],
    workloads: ['get1k'],
    warmup: 8000,
    requests: 1500,
    keep: false,
  }
  for (const arg of argv) {
    if (arg === '--') continue
    const [flag, value = ''] = arg.split(/=(.*)/s, 2)
    if (flag === '--help') {
      console.log(HELP)
      process.exit(0)
    } else if (flag === '--only' || flag === '--workloads') {
      const known = flag === '--only' ? Object.keys(SERVERS) : WORKLOAD_IDS
      const ids = value.split(',').filter(Boolean)
      const bad = ids.filter((id) => !known.includes(id))
      if (ids.length === 0 || bad.length > 0)
        throw new Error(
          `${flag}: unknown ${bad.join(', ') || '(empty)'}; known: ${known.join(', ')}`,
        )
      opts[flag.slice(2)] = ids
    } else if (flag === '--keep') {
      opts.keep = true
    } else if (flag === '--warmup' || flag === '--requests') {
      const n = Number(value)
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} needs a positive integer`)
      opts[flag.slice(2)] = n
    } else throw new Error(`unknown option ${arg}; --help lists them`)
  }
  return opts
}

/** Runs one server under callgrind for one workload; its counts land in `dir`. */
async function count(serverId, workload, opts, dir) {
  const byId = new Map(WORKLOADS.map((w) => [w.id, w]))
  const out = join(dir, `${serverId}-${workload.id}`)
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      '--separate-callers=6',
      `--callgrind-out-file=${out}.%p`,
      'node',
      '--perf-basic-prof',
      // `--perf-basic-prof` turns V8's log on: keep its file out of the working directory.
      `--logfile=${join(dir, 'v8.log')}`,
      '--no-logfile-per-isolate',
      fileURLToPath(new URL('./server.mjs', import.meta.url)),
      ...SERVERS[serverId],
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, RESTWELL_BENCH_COUNTING: '1' } },
  )
  const ready = await new Promise((resolve, reject) => {
    child.stdout.once('data', (data) => resolve(JSON.parse(String(data))))
    child.once('exit', (code) =>
      reject(new Error(`${serverId} exited (${code}) before it was ready`)),
    )
  })
  try {
    const base = `http://127.0.0.1:${ready.port}`
    const headers = { ...workload.headers }
    if (workload.setup) {
      const tag = (await probe(ready.port, byId.get(workload.setup.etagFrom))).headers.etag
      headers[workload.setup.header] = tag ?? '"no-etag-from-server"'
    }
    // The first request of a workload that repeats it (a POST whose key stores its answer).
    if (workload.prime) await probe(ready.port, workload, headers)
    const load = {
      url: base + workload.path,
      method: workload.method,
      headers,
      body: workload.body,
      connections: 10,
      timeout: 120,
    }
    await autocannon({ ...load, amount: opts.warmup })
    execFileSync('callgrind_control', ['-i', 'on', String(ready.pid)], { stdio: 'ignore' })
    const result = await autocannon({ ...load, amount: opts.requests })
    execFileSync('callgrind_control', ['-i', 'off', String(ready.pid)], { stdio: 'ignore' })
    const statuses = Object.keys(result.statusCodeStats ?? {}).join('/')
    // One workload, one answer: a second status (a 503 of overload, a 500) would blur the count.
    if (statuses.includes('/'))
      throw new Error(`${serverId} ${workload.id}: mixed statuses ${statuses}`)
    return { statuses, requests: result.requests.total, pid: ready.pid }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

const fmt = (n) => Math.round(n).toLocaleString('en-US')
/** A perf map name without the checkout's path: `packages/…`, `fastify/lib/…`, `test/bench/…`. */
const shortName = (name) =>
  name.replace(
    /(?:file:\/\/)?\/\S*?\/(?:node_modules\/\.pnpm\/[^/]+\/node_modules\/|(?=packages\/|test\/bench\/))/,
    '',
  )

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const dir = mkdtempSync(join(tmpdir(), 'restwell-instructions-'))
  try {
    for (const id of opts.workloads) {
      const workload = WORKLOADS.find((w) => w.id === id)
      const rows = []
      for (const serverId of opts.only) {
        const run = await count(serverId, workload, opts, dir)
        const file = readdirSync(dir).find((f) => f.startsWith(`${serverId}-${id}.`))
        const functions = parseCallgrind(readFileSync(join(dir, file), 'utf8'))
        const resolve = perfMapResolver(readFileSync(`/tmp/perf-${run.pid}.map`, 'utf8'))
        if (opts.keep) renameSync(`/tmp/perf-${run.pid}.map`, join(dir, `${serverId}-${id}.map`))
        else rmSync(`/tmp/perf-${run.pid}.map`, { force: true })
        rows.push({ serverId, run, ...chargeByLayer(functions, resolve, run.requests) })
      }
      console.log(
        `\n${id}: instructions per request (${opts.requests} counted after ${opts.warmup})`,
      )
      const names = Object.values(LAYERS)
      console.log(`  ${'layer'.padEnd(58)}${rows.map((r) => r.serverId.padStart(17)).join('')}`)
      for (const name of names) {
        if (rows.every((r) => !r.layers[name])) continue
        console.log(
          `  ${name.padEnd(58)}${rows.map((r) => fmt(r.layers[name] ?? 0).padStart(17)).join('')}`,
        )
      }
      console.log(
        `  ${'total, the compiler apart'.padEnd(58)}${rows.map((r) => fmt(r.total).padStart(17)).join('')}`,
      )
      console.log(
        `  ${'statuses'.padEnd(58)}${rows.map((r) => r.run.statuses.padStart(17)).join('')}`,
      )
      for (const r of rows) {
        console.log(`  heaviest JavaScript of ${r.serverId} (own work and the natives it called):`)
        for (const [name, cost] of r.top)
          console.log(`    ${fmt(cost).padStart(8)}  ${shortName(name)}`)
      }
    }
  } finally {
    if (opts.keep) console.log(`\ncallgrind files and perf maps kept in ${dir}`)
    else rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(2)
  })
}
