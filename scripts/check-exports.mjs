// Packs the package in the current folder with pnpm (as it would be published) and checks the
// tarball: its manifest (no `workspace:` specifier left, the registry page's metadata present)
// and its exports map, with publint and @arethetypeswrong/cli (ESM and CJS, types for both).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The dependency fields a published manifest resolves. */
const DEPENDENCY_FIELDS = [
  'dependencies',
  'peerDependencies',
  'optionalDependencies',
  'devDependencies',
]

/**
 * What is wrong with a packed manifest: a `workspace:` specifier (npm cannot install it), or a
 * missing `repository.directory`, `homepage` or `bugs` (the registry page links through them).
 */
export function manifestProblems(manifest) {
  const problems = []
  for (const field of DEPENDENCY_FIELDS) {
    for (const [name, spec] of Object.entries(manifest[field] ?? {})) {
      if (String(spec).startsWith('workspace:')) {
        problems.push(`${field}.${name} is "${spec}": pack with pnpm, which replaces it`)
      }
    }
  }
  if (typeof manifest.repository?.url !== 'string') problems.push('no repository.url')
  if (typeof manifest.repository?.directory !== 'string') problems.push('no repository.directory')
  if (typeof manifest.homepage !== 'string') problems.push('no homepage')
  if (manifest.bugs === undefined) problems.push('no bugs')
  return problems
}

/** The package.json inside a tarball made by `pnpm pack` / `npm pack`. */
export function packedManifest(tarball) {
  return JSON.parse(
    execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
  )
}

function main() {
  const dir = mkdtempSync(join(tmpdir(), 'restwell-pack-'))
  try {
    execFileSync('pnpm', ['pack', '--pack-destination', dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const tarball = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.tgz')),
    )
    const manifest = packedManifest(tarball)
    const problems = manifestProblems(manifest)
    if (problems.length > 0) {
      console.error(`${manifest.name}: packed package.json:\n  ${problems.join('\n  ')}`)
      process.exitCode = 1
      return
    }
    execFileSync('publint', ['--strict', tarball], { stdio: 'inherit' })
    execFileSync('attw', ['--profile', 'node16', tarball], { stdio: 'inherit' })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
