/**
 * `pnpm start`, as the README has a user run it from the root: SIGTERM to the process it started
 * (pnpm) ends the bookshelf server too, and frees its port. The scripts `exec` their command, so
 * the signal pnpm forwards reaches node, whose SIGTERM handler closes the app. The waits are for
 * those conditions (`PATIENCE_MS` and tap's file timeout bound them), not for a number of seconds.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import { until } from '../helpers/patience.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

test('SIGTERM to `pnpm start` ends the server and frees its port', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'restwell-start-'))
  const { REDIS_URL: _redis, DATABASE_URL: _database, ...env } = process.env
  // Its own process group, so that a failure here can end whatever the command left running.
  const child = spawn('pnpm', ['start'], {
    cwd: ROOT,
    env: { ...env, PORT: '0', BOOKSHELF_DATA_DIR: join(dataDir, 'pglite') },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  t.teardown(() => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL')
    } catch {
      // The group is already gone: the test passed.
    }
    rmSync(dataDir, { recursive: true, force: true })
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  let output = ''
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk
      const found = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)
      if (found) resolve(Number(found[1]))
    })
    exited.then((code) =>
      reject(new Error(`pnpm start exited (${code}) before listening:\n${output}`)),
    )
  })
  t.ok(await listening(port), 'the server answers on its port')

  child.kill('SIGTERM')
  const sent = Date.now()
  await until(async () => !(await listening(port)), 'the port is freed after SIGTERM')
  t.pass(`the port is free ${Date.now() - sent} ms after SIGTERM`)
  await exited
})
