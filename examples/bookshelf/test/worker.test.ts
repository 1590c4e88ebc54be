/**
 * The worker process (`pnpm worker`, src/worker.ts) runs the export jobs an API instance without
 * a worker (JOB_WORKER=0) enqueues; it never loads Fastify. The queue dashboard at
 * /admin/queues needs the write token. A PostgreSQL database of its own (POSTGRES_URL, or a
 * private cluster) and a private redis-server: the shared REDIS_URL also serves the
 * several-instances test, whose workers would take this test's jobs.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Test, test } from 'tap'
import { ownRedis, startPostgres } from '../../../test/helpers/services.js'
import { DEV_TOKENS, loadConfig } from '../src/config.js'
import { startBookshelf } from '../src/main.js'
import { READ, WRITE } from './helpers.js'
import { until } from '../../../test/helpers/patience.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = join(HERE, '..')

/** A database of its own on the PostgreSQL server, dropped at the end. */
async function freshDatabase(t: Test, serverUrl: string): Promise<string> {
  const { default: pg } = await import('pg')
  const name = `bookshelf_worker_${process.pid}_${Date.now()}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  t.teardown(async () => {
    const cleanup = new pg.Client({ connectionString: serverUrl })
    await cleanup.connect()
    await cleanup.query(`drop database if exists ${name} with (force)`)
    await cleanup.end()
  })
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

interface Spawned {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

/** `pnpm worker` with this environment (a preload reports at exit whether Fastify was loaded). */
function worker(t: Test, env: Record<string, string>): Spawned {
  const child = spawn(
    process.execPath,
    [
      '--require',
      join(HERE, 'report-fastify.cjs'),
      '--conditions=restwell-source',
      '--import',
      'tsx',
      'src/worker.ts',
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return { child, output: () => output, exited }
}

test('a worker process runs the exports an API instance without a worker enqueues', async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.stop())
  const redis = await ownRedis()
  await redis.start()
  t.teardown(() => redis.kill())
  const databaseUrl = await freshDatabase(t, postgres.url)
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url }
  const config = loadConfig({ ...env, PORT: '0', JOB_WORKER: '0' })
  const { app } = await startBookshelf(config, { maxEventLoopDelay: 0 })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const base = `http://127.0.0.1:${port}`
  const call = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers)
    if (init.token !== null) headers.set('authorization', init.token ?? WRITE)
    return fetch(`${base}${path}`, { ...init, headers, redirect: 'manual' })
  }

  const accepted = await call('/v1/exports', {
    method: 'POST',
    body: '{"status":"available"}',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(accepted.status, 202)
  const location = accepted.headers.get('location') as string
  await new Promise((r) => setTimeout(r, 300))
  const waiting = await call(location, { token: READ })
  t.match(await waiting.json(), { status: 'queued' }, 'no worker in the API instance')

  const running = worker(t, { ...env, WORKER_CONCURRENCY: '1' })
  await until(() => /bookshelf worker: running book-export jobs/.test(running.output()), 'worker')
  let done: Response | undefined
  await until(async () => {
    done = await call(location, { token: READ })
    return done.status === 303
  }, 'the export')
  const exportPath = done?.headers.get('location') as string
  t.match(exportPath, /^\/v1\/exports\/\d+$/)
  const exported = await call(exportPath, { token: READ })
  t.equal(exported.status, 200)
  t.match(await exported.json(), { filter: { status: 'available' }, books: Array })
  t.match(
    running.output(),
    /completed book-export [0-9a-f-]{36} → \{"location":"\/v1\/exports\/\d+"\}/,
  )

  // The dashboard: the write token only, restwell's error form otherwise.
  const anonymous = await call('/admin/queues', { token: null })
  t.equal(anonymous.status, 401)
  t.match(anonymous.headers.get('www-authenticate'), /^Bearer/)
  t.match(await anonymous.json(), { error: { code: 'MISSING_CREDENTIALS' } })
  const reader = await call('/admin/queues/api/queues', { token: READ })
  t.equal(reader.status, 403)
  t.match(await reader.json(), { error: { code: 'INSUFFICIENT_SCOPE' } })
  const page = await call('/admin/queues', {})
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  const queues = await call('/admin/queues/api/queues', {})
  t.equal(queues.status, 200)
  const board = (await queues.json()) as {
    queues: { name: string; counts: { completed: number } }[]
  }
  t.match(board.queues, [{ name: 'bookshelf-jobs', counts: { completed: 1 } }])
  const openapi = (await (await call('/openapi.json', { token: null })).json()) as {
    paths: Record<string, unknown>
  }
  t.notOk(
    Object.keys(openapi.paths).some((path) => path.startsWith('/admin')),
    'the dashboard is not part of the API description',
  )

  running.child.kill('SIGTERM')
  t.equal(await running.exited, 0, 'SIGTERM: closed cleanly')
  t.match(running.output(), /FASTIFY-LOADED 0/, 'the worker process never loaded Fastify')
})

test('JOB_WORKER=0: an API instance that only enqueues, with Redis only', async (t) => {
  t.equal(loadConfig({}).jobWorker, true, 'by default an instance runs its jobs')
  t.equal(loadConfig({ JOB_WORKER: '0', REDIS_URL: 'redis://cache:6379' }).jobWorker, false)
  t.throws(() => loadConfig({ JOB_WORKER: '0' }), /JOB_WORKER=0 needs REDIS_URL/)
  t.throws(() => loadConfig({ JOB_WORKER: 'no' }), /JOB_WORKER must be 0 or 1, got "no"/)
})

test('the worker refuses to start without REDIS_URL or DATABASE_URL, saying so', async (t) => {
  const tokens = {
    BOOKSHELF_READ_TOKEN: DEV_TOKENS.read,
    BOOKSHELF_WRITE_TOKEN: DEV_TOKENS.write,
  }
  const noRedis = worker(t, { ...tokens, DATABASE_URL: 'postgres://127.0.0.1:1/x' })
  t.equal(await noRedis.exited, 1)
  t.match(noRedis.output(), /bookshelf worker: the worker needs REDIS_URL/)
  const noDatabase = worker(t, { ...tokens, REDIS_URL: 'redis://127.0.0.1:1' })
  t.equal(await noDatabase.exited, 1)
  t.match(noDatabase.output(), /bookshelf worker: the worker needs DATABASE_URL/)
  const badSetting = worker(t, {
    REDIS_URL: 'redis://127.0.0.1:1',
    DATABASE_URL: 'postgres://127.0.0.1:1/x',
    WORKER_CONCURRENCY: 'many',
  })
  t.equal(await badSetting.exited, 1)
  t.match(badSetting.output(), /WORKER_CONCURRENCY must be an integer from 1 to 100, got "many"/)
})
