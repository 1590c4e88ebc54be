// Reads a V8 .cpuprofile and says where the server's time went: self time per function and
// per package (restwell's own packages by folder, dependencies by their node_modules name).
// Usable alone: node test/bench/profile.mjs <file.cpuprofile> [top]
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export function owner(url) {
  if (!url) return '(native / V8)'
  const workspace = /\/packages\/([^/]+)\/(?:src|dist)\//.exec(url)
  if (workspace) return workspace[1] === 'restwell' ? 'restwell' : `@restwell/${workspace[1]}`
  const dep = /node_modules\/\.pnpm\/((?:@[^+/]+\+)?[^@/]+)@/.exec(url)
  if (dep) return dep[1].replace('+', '/')
  if (url.includes('/test/bench/')) return 'bench routes'
  if (url.startsWith('node:')) {
    // node:internal/streams/writable -> node:streams, node:zlib -> node:zlib
    const parts = url.slice(5).split('/')
    return `node:${parts[0] === 'internal' && parts.length > 1 ? parts[1].replace(/\.js$/, '') : parts[0]}`
  }
  return url.split('/').slice(-2).join('/')
}

const IDLE = new Set(['(idle)', '(program)', '(garbage collector)'])

/**
 * The layer a sample's own code belongs to, so that two stacks' profiles compare line by line:
 * restwell's packages, the app's routes, Fastify with its plugins and libraries, Node's own
 * JavaScript, V8 and native work (the write syscall apart), garbage collection.
 */
export const LAYERS = [
  'restwell',
  'the routes (bench code)',
  'Fastify, its plugins and libraries',
  "Node's JavaScript (http, net, streams)",
  'V8 and native (JSON, strings, header checks)',
  'garbage collection',
  'the write syscall (wall clock: see the system CPU)',
]

/** Node's native writes to a socket: V8 charges them wall-clock time, not CPU time. */
const WRITES = new Set([
  'writev',
  'writeBuffer',
  'writeLatin1String',
  'writeUtf8String',
  'writeAsciiString',
  'writeUcs2String',
])
const isWrite = (functionName, url) => !url && WRITES.has(functionName)

function layerOf(functionName, url, pkg) {
  if (functionName === '(garbage collector)') return LAYERS[5]
  if (pkg === 'restwell' || pkg.startsWith('@restwell/')) return LAYERS[0]
  if (pkg === 'bench routes') return LAYERS[1]
  if (pkg.startsWith('node:')) return LAYERS[3]
  if (!url) return WRITES.has(functionName) ? LAYERS[6] : LAYERS[4]
  return LAYERS[2]
}

export function summarizeProfile(file, top = 15) {
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map()
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  }
  // Node core and native frames are charged to the nearest calling package frame too, so
  // `charged` says what each package costs with the runtime work it causes.
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const chargedOwner = new Map()
  const ownerOf = (id) => {
    if (chargedOwner.has(id)) return chargedOwner.get(id)
    const { url } = byId.get(id).callFrame
    const own = owner(url)
    const isRuntime = !url || own.startsWith('node:')
    const up = parent.get(id)
    const result = isRuntime ? (up === undefined ? own : ownerOf(up)) : own
    chargedOwner.set(id, result === '(root)' ? own : result)
    return chargedOwner.get(id)
  }
  // Each sample is also charged to the Fastify hook (or handler) it ran under: the nearest frame
  // that Fastify's hook runner (fastify/lib/hooks.js) called. A hook's time so excludes the hooks
  // it hands over to (they run from its `done()`), and includes the library and Node work it
  // causes. What runs under no hook (parsing, routing, writing the answer) is Fastify's and Node's.
  const hookOf = new Map()
  const isRunner = (id) => /\/fastify\/lib\/hooks\.js$/.test(byId.get(id).callFrame.url)
  const hookAbove = (id) => {
    if (hookOf.has(id)) return hookOf.get(id)
    const up = parent.get(id)
    let result = OUTSIDE_HOOKS
    if (up !== undefined) {
      if (isRunner(up) && !isRunner(id)) {
        const { functionName, url, lineNumber } = byId.get(id).callFrame
        result = `${functionName || '(anonymous)'} ${owner(url)}${url ? `:${lineNumber + 1}` : ''}`
      } else result = hookAbove(up)
    }
    hookOf.set(id, result)
    return result
  }
  const hooks = new Map()
  const functions = new Map()
  const packages = new Map()
  const charged = new Map()
  const layers = new Map(LAYERS.map((name) => [name, 0]))
  let busy = 0
  let idle = 0
  let gc = 0
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame
    if (functionName === '(garbage collector)') gc += micros
    if (IDLE.has(functionName) && functionName !== '(garbage collector)') {
      idle += micros
      continue
    }
    busy += micros
    const pkg = functionName === '(garbage collector)' ? '(garbage collector)' : owner(url)
    const key = `${functionName || '(anonymous)'} ${pkg}${url ? `:${lineNumber + 1}` : ''}`
    functions.set(key, (functions.get(key) ?? 0) + micros)
    packages.set(pkg, (packages.get(pkg) ?? 0) + micros)
    const layer = layerOf(functionName, url, pkg)
    layers.set(layer, layers.get(layer) + micros)
    const payer = functionName === '(garbage collector)' ? pkg : ownerOf(id)
    charged.set(payer, (charged.get(payer) ?? 0) + micros)
    // V8 charges the write syscall with wall-clock time (its CPU is the system time): kept
    // apart, so each hook's figure is what the hook computes.
    const hook = isWrite(functionName, url) ? WRITE : hookAbove(id)
    hooks.set(hook, (hooks.get(hook) ?? 0) + micros)
  }
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({ name, ms: micros / 1000, share: busy ? micros / busy : 0 }))
  return {
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    gcMs: gc / 1000,
    packages: rank(packages),
    charged: rank(charged),
    functions: rank(functions),
    layers: [...layers.entries()].map(([name, micros]) => ({
      name,
      ms: micros / 1000,
      share: busy ? micros / busy : 0,
    })),
    hooks: [...hooks.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name, micros]) => ({ name, ms: micros / 1000, share: busy ? micros / busy : 0 })),
  }
}

const OUTSIDE_HOOKS = '(under no hook: start-up, parsing, routing, writing, the kernel)'
const WRITE = '(the write syscall: wall-clock time, see the system CPU instead)'

/**
 * Prints a profile's summary. With `requests` (how many the profiled server answered), the hooks
 * are also shown in µs per request: what each hook of each plugin costs, ranked.
 */
export function printProfile(file, log, top = 12, requests = undefined) {
  const s = summarizeProfile(file, top)
  const line = (r) =>
    `    ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(6)} ms  ${r.name}`
  log(`  ${file}`)
  log(
    `    busy ${s.busyMs.toFixed(0)} ms (gc ${s.gcMs.toFixed(0)} ms), idle ${s.idleMs.toFixed(0)} ms`,
  )
  log('    self time by package:')
  for (const r of s.packages) log(line(r))
  log('    time by package, node core and native work charged to the calling package:')
  for (const r of s.charged) log(line(r))
  log('    self time by function:')
  for (const r of s.functions) log(line(r))
  if (requests > 0) {
    log('    time per request by layer (self time):')
    for (const r of s.layers)
      log(`    ${((r.ms * 1000) / requests).toFixed(2).padStart(7)} µs  ${r.name}`)
    log(`    time per request by Fastify hook (${requests.toLocaleString('en-US')} requests):`)
    for (const r of s.hooks.slice(0, top * 2)) {
      const us = (r.ms * 1000) / requests
      log(`    ${us.toFixed(2).padStart(7)} µs  ${r.name}`)
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top, requests] = process.argv.slice(2)
  if (!file) {
    console.error('usage: node test/bench/profile.mjs <file.cpuprofile> [top] [requests]')
    process.exit(2)
  }
  printProfile(file, console.log, Number(top) || 15, Number(requests) || undefined)
}
