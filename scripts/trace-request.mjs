/**
 * The way of one request through restwell's code: every call of a function of a restwell package
 * (or of the app) that one request makes, in order, recorded with the inspector, then counted as
 * files, packages and switches between packages.
 *
 *   node --conditions=restwell-source --import tsx scripts/trace-request.mjs [get-304|patch-if-match|all] [--calls] [--json]
 *
 * The request is made of the bookshelf (examples/bookshelf, on an in-memory PGlite), after a
 * warm-up, with `app.inject`: what a socket adds is Node's and Fastify's code, not restwell's.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/**
 * The recording side, in a worker: it sets a breakpoint at the entry of every function of
 * restwell's packages and of the app (their ranges from V8's precise coverage), records each one
 * hit while armed, and resumes at once.
 */
const RECORDER = String.raw`
const { Session } = require('node:inspector')
const { parentPort } = require('node:worker_threads')
const session = new Session()
session.connectToMainThread()
const post = (method, params = {}) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  )
const urls = new Map()
let hits = []
let breakpoints = []
session.on('Debugger.scriptParsed', (m) => urls.set(m.params.scriptId, m.params.url))
session.on('Debugger.paused', (m) => {
  const frame = m.params.callFrames[0]
  hits.push({ url: urls.get(frame.location.scriptId) ?? '', name: frame.functionName, line: frame.location.lineNumber + 1 })
  session.post('Debugger.resume')
})
const WANTED = /\/(packages|examples)\/[^/]+\/src\//
function locator(source) {
  const starts = [0]
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') starts.push(i + 1)
  return (offset) => {
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid] <= offset) lo = mid
      else hi = mid - 1
    }
    return { lineNumber: lo, columnNumber: offset - starts[lo] }
  }
}
// Every function seen so far, by script: a coverage take reports those run since the last one.
const functions = new Map()
async function arm() {
  const { result } = await post('Profiler.takePreciseCoverage')
  for (const script of result) {
    if (!script.url.startsWith('file:') || script.url.includes('/node_modules/') || !WANTED.test(script.url)) continue
    const starts = functions.get(script.scriptId) ?? new Set()
    for (const fn of script.functions) starts.add(fn.ranges[0].startOffset)
    functions.set(script.scriptId, starts)
  }
  for (const [scriptId, starts] of functions) {
    const { scriptSource } = await post('Debugger.getScriptSource', { scriptId })
    const at = locator(scriptSource)
    for (const start of starts) {
      if (start === 0) continue
      try {
        const { breakpointId } = await post('Debugger.setBreakpoint', { location: { scriptId, ...at(start) } })
        breakpoints.push(breakpointId)
      } catch {}
    }
  }
  hits = []
}
async function disarm() {
  for (const breakpointId of breakpoints) await post('Debugger.removeBreakpoint', { breakpointId })
  breakpoints = []
  const recorded = hits
  hits = []
  return recorded
}
parentPort.on('message', async (command) => {
  if (command === 'arm') {
    await arm()
    parentPort.postMessage('armed')
  } else {
    parentPort.postMessage({ hits: await disarm() })
  }
})
;(async () => {
  await post('Debugger.enable')
  await post('Profiler.enable')
  await post('Profiler.startPreciseCoverage', { callCount: false, detailed: false })
  parentPort.postMessage('ready')
})()
`

/**
 * Where a function lives: `{ pkg, file }` for a restwell package (`packages/<pkg>/src/…`) or the
 * app (`examples/<app>/src/…`, pkg `app`), undefined for anything else.
 */
export function placeOf(url) {
  if (!url.startsWith('file:')) return undefined
  const file = relative(ROOT, fileURLToPath(url)).replace(/\\/g, '/')
  const pkg = /^packages\/([^/]+)\/src\//.exec(file)
  if (pkg !== null) return { pkg: pkg[1], file }
  if (/^examples\/[^/]+\/src\//.test(file)) return { pkg: 'app', file }
  return undefined
}

/**
 * Counts a trace: the restwell files and packages it ran, in the order first reached, and the
 * switches between restwell packages (a call in another package than the last restwell call's;
 * calls of the app between them do not count as a package).
 */
export function summarize(trace) {
  const files = []
  const packages = []
  const visits = {}
  let switches = 0
  let last
  let appCalls = 0
  let calls = 0
  for (const call of trace) {
    const place = placeOf(call.url)
    if (place === undefined) continue
    if (place.pkg === 'app') {
      appCalls++
      continue
    }
    calls++
    if (!files.includes(place.file)) files.push(place.file)
    if (!packages.includes(place.pkg)) packages.push(place.pkg)
    if (place.pkg !== last) {
      if (last !== undefined) switches++
      visits[place.pkg] = (visits[place.pkg] ?? 0) + 1
      last = place.pkg
    }
  }
  return { files, packages, switches, visits, calls, appCalls }
}

/** The requests traced, each of the bookshelf with the write token. */
export const SCENARIOS = {
  'get-304': {
    title: 'GET /v1/books/1 with If-None-Match: its ETag → 304',
    async request(app, auth) {
      const first = await app.inject({ url: '/v1/books/1', headers: { authorization: auth } })
      const etag = first.headers.etag
      return { url: '/v1/books/1', headers: { authorization: auth, 'if-none-match': etag } }
    },
    status: 304,
  },
  'patch-if-match': {
    title: 'PATCH /v1/books/1, merge patch, If-Match: its ETag → 200',
    async request(app, auth) {
      const first = await app.inject({ url: '/v1/books/1', headers: { authorization: auth } })
      return {
        method: 'PATCH',
        url: '/v1/books/1',
        headers: {
          authorization: auth,
          'if-match': first.headers.etag,
          'content-type': 'application/merge-patch+json',
        },
        payload: JSON.stringify({ title: `Traced ${Date.now()}` }),
      }
    },
    status: 200,
  },
}

/** Builds the bookshelf on a fresh PGlite folder; returns it with the write token and a cleanup. */
async function bookshelf() {
  const dir = mkdtempSync(join(tmpdir(), 'restwell-trace-'))
  const { buildApp, prepareDatabase } = await import('../examples/bookshelf/src/app.ts')
  const { DEV_TOKENS } = await import('../examples/bookshelf/src/config.ts')
  const { openDatabase } = await import('../examples/bookshelf/src/db.ts')
  const db = await openDatabase({ dataDir: dir })
  await prepareDatabase(db)
  const app = await buildApp({
    db,
    tokens: DEV_TOKENS,
    maxEventLoopDelay: 0,
    healthCheckInterval: 3_600_000,
  })
  await app.ready()
  return {
    app,
    auth: `Bearer ${DEV_TOKENS.write}`,
    async close() {
      await app.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Traces each scenario of `names` once (after a warm-up of the same request); returns the steps. */
export async function trace(names) {
  const { app, auth, close } = await bookshelf()
  const worker = new Worker(RECORDER, { eval: true })
  try {
    await new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    const traces = {}
    const ask = (command) =>
      new Promise((resolve) => {
        worker.once('message', resolve)
        worker.postMessage(command)
      })
    for (const name of names) {
      const scenario = SCENARIOS[name]
      for (let i = 0; i < 20; i++) await app.inject(await scenario.request(app, auth))
      const request = await scenario.request(app, auth)
      await ask('arm')
      const response = await app.inject(request)
      const { hits } = await ask('disarm')
      if (response.statusCode !== scenario.status) {
        throw new Error(`${name}: answered ${response.statusCode}, not ${scenario.status}`)
      }
      traces[name] = hits
    }
    return traces
  } finally {
    await worker.terminate()
    await close()
  }
}

function print(name, summary, calls, withCalls) {
  const { title } = SCENARIOS[name]
  console.log(`## ${name}: ${title}`)
  console.log(
    `${summary.files.length} files in ${summary.packages.length} packages, ${summary.switches} switches between packages; ${summary.calls} calls of restwell functions, ${summary.appCalls} of the app's`,
  )
  console.log(
    `packages (visits): ${summary.packages.map((p) => `${p} (${summary.visits[p]})`).join(', ')}`,
  )
  for (const file of summary.files) console.log(`  ${file}`)
  if (withCalls) {
    for (const call of calls) {
      const place = placeOf(call.url)
      if (place !== undefined)
        console.log(`    ${place.file}:${call.line} ${call.name || '(anonymous)'}`)
    }
  }
  console.log('')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const which = args.find((a) => !a.startsWith('--')) ?? 'all'
  const names = which === 'all' ? Object.keys(SCENARIOS) : [which]
  for (const name of names) {
    if (!(name in SCENARIOS)) {
      console.error(`unknown scenario ${name}; one of: ${Object.keys(SCENARIOS).join(', ')}, all`)
      process.exit(2)
    }
  }
  const traces = await trace(names)
  if (args.includes('--json')) {
    const out = {}
    for (const name of names) out[name] = summarize(traces[name])
    console.log(JSON.stringify(out))
    process.exit(0)
  }
  for (const name of names) {
    print(name, summarize(traces[name]), traces[name], args.includes('--calls'))
  }
}
