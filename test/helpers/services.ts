/**
 * Real servers for end-to-end tests: Redis and PostgreSQL. CI starts them (`.ci/run`) and passes
 * REDIS_URL and POSTGRES_URL; on a developer's machine a private server is started on a free
 * loopback port from the installed binaries, and stopped by `stop()`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PATIENCE_MS } from './patience.js'

export interface Service {
  url: string
  stop(): Promise<void>
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  what: string,
  ms = PATIENCE_MS,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(
      () => reject(new Error(`${what} did not start in ${ms} ms:\n${seen}`)),
      ms,
    )
    const onData = (chunk: Buffer) => {
      seen += chunk.toString()
      if (pattern.test(seen)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited with ${code}:\n${seen}`))
    })
  })
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/**
 * A `redis-server` the test owns, on a free loopback port it keeps: it can be SIGKILLed (the
 * server vanishes without closing connections politely) and started again on the same port,
 * which the shared REDIS_URL server of CI must never be. No persistence: a restart is empty.
 * Not started yet.
 */
export interface OwnRedis {
  port: number
  url: string
  start(): Promise<void>
  kill(): Promise<void>
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      )
      started.once('error', () => {})
      child = started
      await waitForOutput(
        started,
        /Ready to accept connections/,
        'redis-server (install it: apt-get install redis-server)',
      )
    },
    async kill() {
      const running = child
      child = undefined
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve())
        running.kill('SIGKILL')
      })
    },
  }
}

/** A Redis server: REDIS_URL, else a private `redis-server` on a free port. */
export async function startRedis(): Promise<Service> {
  const given = process.env.REDIS_URL
  if (given !== undefined && given !== '') return { url: given, stop: async () => {} }
  const own = await ownRedis()
  await own.start()
  return { url: own.url, stop: () => own.kill() }
}

function postgresBin(name: string): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).sort() : []
  const version = versions.at(-1)
  if (version === undefined)
    throw new Error('PostgreSQL is not installed (apt-get install postgresql)')
  return join(root, version, 'bin', name)
}

/** A PostgreSQL server: POSTGRES_URL, else a private cluster in a temp folder on a free port. */
export async function startPostgres(): Promise<Service> {
  const given = process.env.POSTGRES_URL
  if (given !== undefined && given !== '') return { url: given, stop: async () => {} }
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'restwell-pg-'))
  const asRoot = process.getuid?.() === 0
  // PostgreSQL refuses to run as root: run it as the `postgres` user the Debian package creates.
  const as = (command: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir])
  const [initCmd, initArgs] = as(postgresBin('initdb'), [
    '-D',
    join(dir, 'data'),
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
  ])
  execFileSync(initCmd, initArgs, { stdio: 'ignore' })
  const [cmd, args] = as(postgresBin('postgres'), [
    '-D',
    join(dir, 'data'),
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
  ])
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  await waitForOutput(child, /ready to accept connections/, 'postgres')
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await stopChild(child)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
