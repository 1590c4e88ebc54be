/**
 * The declarations restwell ships type-check in an app that installed only what a user of
 * `import restwell from 'restwell'` installs: fastify and restwell, no optional peer (bullmq,
 * ioredis), under `tsc --strict --skipLibCheck false`. The declarations are emitted from the
 * sources by tsc into a temporary folder laid out as installed packages.
 */
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PACKAGES = join(ROOT, 'packages')
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc')

interface Manifest {
  name: string
  exports?: Record<string, string | { 'restwell-source'?: string }>
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

/** Runs tsc; resolves with its output and whether it passed. */
function tsc(project: string): { ok: boolean; output: string } {
  try {
    execFileSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8', stdio: 'pipe' })
    return { ok: true, output: '' }
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    return { ok: false, output: `${stdout}${stderr}` }
  }
}

function link(modules: string, name: string, target: string): void {
  const at = join(modules, name)
  if (existsSync(at)) return
  mkdirSync(dirname(at), { recursive: true })
  symlinkSync(target, at, 'dir')
}

function manifestOf(dir: string): Manifest {
  return JSON.parse(readFileSync(join(PACKAGES, dir, 'package.json'), 'utf8')) as Manifest
}

/** Each entry point of a package (`.`, `./internal`) and its source file (`./src/index.ts`). */
function entriesOf(manifest: Manifest): [entry: string, source: string][] {
  return Object.entries(manifest.exports ?? {}).flatMap(([entry, target]) => {
    const source = typeof target === 'object' ? target['restwell-source'] : undefined
    return source === undefined ? [] : [[entry, source] as [string, string]]
  })
}

/**
 * An app folder whose node_modules holds each workspace package's emitted declarations (as its
 * `types`), and links to the packages they depend on, optional peers left out.
 */
function installedApp(work: string): string {
  const emitted = join(work, 'declarations')
  const dirs = readdirSync(PACKAGES).filter((dir) =>
    existsSync(join(PACKAGES, dir, 'src/index.ts')),
  )
  writeFileSync(
    join(work, 'emit.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.base.json'),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        // The sources are type-checked by `pnpm typecheck`; here only their declarations matter.
        noCheck: true,
        outDir: emitted,
        rootDir: PACKAGES,
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      files: dirs.flatMap((dir) =>
        entriesOf(manifestOf(dir)).map(([, source]) => join(PACKAGES, dir, source)),
      ),
    }),
  )
  const emit = tsc(join(work, 'emit.json'))
  if (!emit.ok) throw new Error(`declarations not emitted:\n${emit.output}`)

  const app = join(work, 'app')
  const modules = join(app, 'node_modules')
  for (const dir of dirs) {
    const manifest = manifestOf(dir)
    const at = join(modules, manifest.name)
    cpSync(join(emitted, dir, 'src'), join(at, 'src'), { recursive: true })
    writeFileSync(
      join(at, 'package.json'),
      JSON.stringify({
        name: manifest.name,
        type: 'module',
        exports: Object.fromEntries(
          entriesOf(manifest).map(([entry, source]) => [
            entry,
            { types: source.replace(/\.ts$/, '.d.ts') },
          ]),
        ),
      }),
    )
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter(
      (name) => manifest.peerDependenciesMeta?.[name]?.optional !== true,
    )
    for (const name of [...Object.keys(manifest.dependencies ?? {}), ...peers]) {
      if (manifest.dependencies?.[name]?.startsWith('workspace:')) continue
      link(modules, name, realpathSync(join(PACKAGES, dir, 'node_modules', name)))
    }
  }
  link(modules, '@types/node', realpathSync(join(ROOT, 'node_modules/@types/node')))
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', type: 'module' }))
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: ['node'],
        noEmit: true,
        // The second run below checks one more file, not the installed declarations again.
        incremental: true,
        tsBuildInfoFile: join(work, 'app.tsbuildinfo'),
      },
      include: ['*.ts'],
    }),
  )
  return app
}

test('an app with fastify and restwell (and a convention of its own), without bullmq or ioredis, passes tsc --strict --skipLibCheck false', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'restwell-declarations-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  const app = installedApp(work)
  t.notOk(existsSync(join(app, 'node_modules/bullmq')), 'bullmq is not installed')
  t.notOk(existsSync(join(app, 'node_modules/ioredis')), 'ioredis is not installed')
  writeFileSync(
    join(app, 'index.ts'),
    [
      "import Fastify from 'fastify'",
      "import restwell from 'restwell'",
      "import { restwellJobs } from '@restwell/jobs'",
      "import { conventionPlugin, defineConvention, mediaTypeOf } from '@restwell/core'",
      'const typed = defineConvention({',
      "  name: 'typed',",
      "  plugin: '@acme/typed',",
      "  phases: ['send'],",
      '  options: (raw: { value?: string } = {}) => raw,',
      '  setup: () => ({}),',
      '  route: () => ({',
      "    send: (request, reply) => void reply.header('x-type', mediaTypeOf(request) ?? 'json'),",
      '  }),',
      '})',
      'const app = Fastify()',
      "await app.register(conventionPlugin(typed), { value: 'a' })",
      "await app.register(restwell, { jobs: { basePath: '/operations' } })",
      "app.get('/books', { config: { pagination: true } }, async () => [])",
      'await Fastify().register(restwellJobs)',
      'await app.ready()',
      '',
    ].join('\n'),
  )
  const clean = tsc(join(app, 'tsconfig.json'))
  t.equal(clean.output, '', 'no error')
  t.ok(clean.ok)

  // The same app naming bullmq fails: what it lacks is really missing.
  writeFileSync(
    join(app, 'peer.ts'),
    "import type { Queue } from 'bullmq'\nexport type Q = Queue\n",
  )
  const missing = tsc(join(app, 'tsconfig.json'))
  t.notOk(missing.ok)
  t.match(missing.output, /peer\.ts.*TS2307: Cannot find module 'bullmq'/)
  t.notMatch(missing.output, /node_modules/, 'no error in an installed declaration')
})
