#!/usr/bin/env node
// `pnpm bench:footprint`: what installing and loading restwell costs a new app.
// Packs every workspace package with `pnpm pack` (as published: no `workspace:` specifiers),
// installs `fastify` + `restwell` with npm into a fresh temporary project (the @restwell/*
// packages come from the tarballs through `overrides`), then, in child processes run in that
// project, measures the import of Fastify alone and of Fastify + restwell, and the resident
// memory of a ready app of each kind. Exits 1 when a target is missed. See test/bench/README.md.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PACKAGES = join(ROOT, 'packages')

/** The targets. */
export const TARGETS = { packages: 75, importRatio: 1.5, rssOverMB: 20 }

const HELP = `Usage: pnpm bench:footprint [-- options]

  --runs=N     child processes per measure; the median is kept (default 9)
  --no-build   pack the packages' current dist/ without building them first
  --keep       keep the temporary project (its path is printed)
  --json       print the result as JSON
  --help
`

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** The packages an install holds: the entries of npm's hidden lockfile, the project left out. */
export function countInstalled(hiddenLockfile) {
  return Object.keys(hiddenLockfile.packages ?? {}).filter((key) => key !== '').length
}

/** Whether each figure meets its target. */
export function evaluate(result, targets = TARGETS) {
  return {
    packages: result.packages <= targets.packages,
    importRatio: result.importMs.restwell <= targets.importRatio * result.importMs.fastify,
    rss: result.rssMB.restwell <= result.rssMB.fastify + targets.rssOverMB,
  }
}

/** Packs every package under packages/ into `dir`; answers { name: tarball path }. */
function packAll(dir) {
  const tarballs = {}
  for (const entry of readdirSync(PACKAGES)) {
    const cwd = join(PACKAGES, entry)
    const { name } = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'))
    const before = new Set(readdirSync(dir))
    execFileSync('pnpm', ['pack', '--pack-destination', dir], {
      cwd,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const made = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.tgz') && !before.has(f)),
    )
    const files = execFileSync('tar', ['-tzf', made], { encoding: 'utf8' }).split('\n')
    if (!files.includes('package/dist/index.mjs')) {
      throw new Error(`${name} was packed without dist/index.mjs: build it first (pnpm build)`)
    }
    tarballs[name] = made
  }
  return tarballs
}

/** A fresh project depending on fastify and restwell, installed with npm. */
function install(dir, tarballs) {
  const { restwell, ...scoped } = tarballs
  const fastifyRange = JSON.parse(readFileSync(join(PACKAGES, 'restwell/package.json'), 'utf8'))
    .peerDependencies.fastify
  const manifest = {
    name: 'footprint-app',
    private: true,
    type: 'module',
    dependencies: { fastify: fastifyRange, restwell: `file:${restwell}` },
    overrides: Object.fromEntries(
      Object.entries(scoped).map(([name, file]) => [name, `file:${file}`]),
    ),
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  execFileSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const lock = JSON.parse(readFileSync(join(dir, 'node_modules/.package-lock.json'), 'utf8'))
  const du = spawnSync('du', ['-sk', join(dir, 'node_modules')], { encoding: 'utf8' })
  return { packages: countInstalled(lock), sizeMB: Number.parseInt(du.stdout, 10) / 1024 }
}

/** The child programs: `import` times the imports; `ready` answers the RSS of a ready app. */
const PROGRAMS = {
  import: (withRestwell) => `
    const start = performance.now()
    await import('fastify')
    ${withRestwell ? "await import('restwell')" : ''}
    process.stdout.write(String(performance.now() - start))`,
  ready: (withRestwell) => `
    const { default: Fastify } = await import('fastify')
    const app = Fastify()
    ${withRestwell ? "await app.register((await import('restwell')).default)" : ''}
    app.get('/books', async () => [{ id: 1, title: 'Dune' }])
    await app.ready()
    globalThis.gc()
    await new Promise((resolve) => setImmediate(resolve))
    process.stdout.write(String(process.memoryUsage().rss / 1024 / 1024))
    await app.close()`,
}

/** Runs one child program in the project; answers the number it prints. */
function measure(cwd, program, withRestwell) {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--input-type=module', '-e', PROGRAMS[program](withRestwell)],
    { cwd, encoding: 'utf8' },
  )
  if (child.status !== 0) throw new Error(`${program} child failed:\n${child.stderr}`)
  return Number(child.stdout)
}

/** Medians of `runs` children per figure, Fastify alone and with restwell taking turns. */
function measureAll(cwd, runs) {
  const samples = { import: { fastify: [], restwell: [] }, ready: { fastify: [], restwell: [] } }
  for (let i = 0; i < runs; i++) {
    for (const program of ['import', 'ready']) {
      const order = i % 2 ? [true, false] : [false, true]
      for (const withRestwell of order) {
        samples[program][withRestwell ? 'restwell' : 'fastify'].push(
          measure(cwd, program, withRestwell),
        )
      }
    }
  }
  const medians = (pair) => ({ fastify: median(pair.fastify), restwell: median(pair.restwell) })
  return { importMs: medians(samples.import), rssMB: medians(samples.ready) }
}

/** Prints the figures next to their targets. */
function print(result, met) {
  const mark = (ok) => (ok ? 'met' : 'MISSED')
  const { importMs, rssMB } = result
  console.log(`footprint of fastify + restwell (median of ${result.runs} runs)`)
  console.log(
    `  installed packages   ${result.packages} (${result.sizeMB.toFixed(1)} MB)` +
      `   target ≤ ${TARGETS.packages}: ${mark(met.packages)}`,
  )
  console.log(
    `  import               fastify ${importMs.fastify.toFixed(0)} ms, + restwell ` +
      `${importMs.restwell.toFixed(0)} ms (${(importMs.restwell / importMs.fastify).toFixed(2)}×)` +
      `   target ≤ ${TARGETS.importRatio}×: ${mark(met.importRatio)}`,
  )
  console.log(
    `  ready-state RSS      fastify ${rssMB.fastify.toFixed(1)} MB, + restwell ` +
      `${rssMB.restwell.toFixed(1)} MB (+${(rssMB.restwell - rssMB.fastify).toFixed(1)} MB)` +
      `   target ≤ +${TARGETS.rssOverMB} MB: ${mark(met.rss)}`,
  )
}

/** The whole measure; `args` as on the command line. Answers the exit code. */
export function main(args) {
  if (args.includes('--help')) {
    console.log(HELP)
    return 0
  }
  const runsArg = args.find((a) => a.startsWith('--runs='))
  const runs = runsArg ? Number.parseInt(runsArg.slice('--runs='.length), 10) : 9
  if (!(runs >= 1)) throw new Error(`--runs must be a whole number ≥ 1 (got ${runsArg})`)
  if (!args.includes('--no-build')) {
    execFileSync('pnpm', ['-r', '--filter', './packages/*', 'build'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
  }
  const dir = mkdtempSync(join(tmpdir(), 'restwell-footprint-'))
  try {
    const packs = join(dir, 'packs')
    const app = join(dir, 'app')
    for (const d of [packs, app]) execFileSync('mkdir', ['-p', d])
    const installed = install(app, packAll(packs))
    const result = { ...installed, ...measureAll(app, runs), runs }
    const met = evaluate(result)
    if (args.includes('--json')) console.log(JSON.stringify({ ...result, met }, null, 2))
    else print(result, met)
    return Object.values(met).every(Boolean) ? 0 : 1
  } finally {
    if (args.includes('--keep')) console.log(`project kept in ${dir}/app`)
    else rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2))
}
