/**
 * `check:exports` reads the packed manifest: a `workspace:` specifier (what `npm pack` leaves in
 * a workspace package) or missing registry metadata fails; `pnpm pack`'s manifest passes.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
// @ts-expect-error: a plain .mjs script, without declarations
import { manifestProblems, packedManifest } from '../../scripts/check-exports.mjs'

const JOBS = fileURLToPath(new URL('../../packages/jobs/', import.meta.url))

const metadata = {
  repository: {
    type: 'git',
    url: 'git+https://github.com/restwell/restwell.git',
    directory: 'packages/x',
  },
  homepage: 'https://github.com/restwell/restwell/tree/main/packages/x#readme',
  bugs: 'https://github.com/restwell/restwell/issues',
}

test('manifestProblems names each workspace: specifier and each missing field', async (t) => {
  t.same(manifestProblems({ ...metadata, dependencies: { '@restwell/errors': '^0.1.0' } }), [])
  t.same(
    manifestProblems({
      ...metadata,
      dependencies: { '@restwell/errors': 'workspace:^' },
      devDependencies: { '@restwell/reroute': 'workspace:*' },
    }),
    [
      'dependencies.@restwell/errors is "workspace:^": pack with pnpm, which replaces it',
      'devDependencies.@restwell/reroute is "workspace:*": pack with pnpm, which replaces it',
    ],
  )
  t.same(manifestProblems({ repository: { url: 'x' } }), [
    'no repository.directory',
    'no homepage',
    'no bugs',
  ])
  t.same(manifestProblems({ repository: 'github:restwell/restwell' }).slice(0, 2), [
    'no repository.url',
    'no repository.directory',
  ])
})

/** The manifest in the tarball `tool pack` makes of packages/jobs. */
function pack(tool: 'npm' | 'pnpm'): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'restwell-check-pack-'))
  try {
    execFileSync(tool, ['pack', '--pack-destination', dir], { cwd: JOBS, stdio: 'ignore' })
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz')) as string
    return packedManifest(join(dir, tarball))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

test('npm pack leaks workspace: specifiers, which the check finds; pnpm pack does not', async (t) => {
  t.match(manifestProblems(pack('npm')), [/^dependencies\.@restwell\/[a-z-]+ is "workspace:\^"/])
  t.same(manifestProblems(pack('pnpm')), [])
})
