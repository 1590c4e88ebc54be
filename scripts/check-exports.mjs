// Packs the package in the current folder with pnpm (as it would be published) and checks the
// tarball's exports map with publint and @arethetypeswrong/cli: ESM and CJS, types for both.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const dir = mkdtempSync(join(tmpdir(), 'restwell-pack-'))
try {
  execFileSync('pnpm', ['pack', '--pack-destination', dir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const tarball = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.tgz')),
  )
  execFileSync('publint', ['--strict', tarball], { stdio: 'inherit' })
  execFileSync('attw', ['--profile', 'node16', tarball], { stdio: 'inherit' })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
