/**
 * @restwell/jobs on BullMQ across processes, on a real Redis (issue 28, "Proven"): 3 API
 * instances (`jobs-api.ts`, no worker) and separate worker processes (`jobs-worker.ts`, a plain
 * BullMQ Worker with `jobProcessor`, no Fastify), each on its own loopback port or connection.
 *
 * 1. 200 jobs enqueued through `POST`, round robin over the 3 instances: every one reaches
 *    `succeeded`, run and completed exactly once, and its status resource reads the same from
 *    every instance.
 * 2. A worker SIGKILLed mid-job: BullMQ's stalled check (lock 5 s, check every second) gives the
 *    job to the other worker, which completes it; completed once. The lock is long enough that
 *    a loaded machine's late renewal never makes a live worker's job look stalled.
 * 3. Redis SIGKILLed mid-run and restarted (a private redis-server with an append-only file,
 *    fsync on every write): every instance answers 503 + `Retry-After` while it is down and
 *    recovers without a restart; no acknowledged job is lost, none refused is enqueued later,
 *    and no job runs twice (the outage is shorter than the workers' lock, 60 s here).
 *
 * The Redis is this test's own (it is killed), on loopback; every child process is killed in
 * teardown. About 25 s. Every wait is for a condition, bounded by `PATIENCE_MS`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import tap, { type Test, test } from 'tap'
import { until } from '../helpers/patience.js'
import { freePort } from '../helpers/services.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const QUEUE = 'proof'
const JOBS = 200
const figures: Record<string, number> = {}

interface Proc {
  child: ChildProcess
  lines: string[]
  url: string
  pid: number
}

const children = new Set<ChildProcess>()
tap.teardown(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
})

function waitForLine(proc: { lines: string[] }, pattern: RegExp, what: string) {
  return until(() => proc.lines.some((line) => pattern.test(line)), what)
}

/** A process of `script` (tsx, restwell sources), its output collected by line. */
async function start(script: string, env: Record<string, string>, ready: RegExp): Promise<Proc> {
  const child = spawn(
    process.execPath,
    ['--conditions=restwell-source', '--import', 'tsx', join(ROOT, 'test/reliability', script)],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.add(child)
  const proc: Proc = { child, lines: [], url: '', pid: child.pid as number }
  let rest = ''
  const collect = (chunk: Buffer): void => {
    const text = rest + chunk.toString()
    const parts = text.split('\n')
    rest = parts.pop() as string
    proc.lines.push(...parts)
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  await waitForLine(proc, ready, `${script} start`)
  proc.url = proc.lines.find((line) => ready.test(line))?.split(' ')[1] ?? ''
  return proc
}

function stop(proc: Proc, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null)
      return resolve(proc.child.exitCode)
    proc.child.once('exit', (code) => resolve(code))
    proc.child.kill(signal)
  })
}

/** A redis-server of this test's own, with an append-only file fsynced on every write. */
async function persistentRedis(
  t: Test,
): Promise<{ url: string; up(): Promise<void>; kill(): Promise<void> }> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'restwell-jobs-redis-'))
  let server: Proc | undefined
  const kill = async (): Promise<void> => {
    if (server !== undefined) await stop(server, 'SIGKILL')
    server = undefined
  }
  t.teardown(async () => {
    await kill()
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    async up() {
      const child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''].concat([
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
        ]),
        { stdio: ['ignore', 'pipe', 'pipe'] },
      )
      children.add(child)
      const proc: Proc = { child, lines: [], url: '', pid: child.pid as number }
      child.stdout?.on('data', (chunk: Buffer) => proc.lines.push(...chunk.toString().split('\n')))
      await waitForLine(proc, /Ready to accept connections/, 'redis-server')
      server = proc
    },
  }
}

interface Answer {
  status: number
  headers: Headers
  body: Record<string, unknown>
}

async function call(base: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] }
}

/** Enqueues through the instances in turn, `parallel` at a time; the job ids. */
async function enqueue(apis: Proc[], count: number, sleepMs: number): Promise<string[]> {
  const ids: string[] = []
  for (let next = 0; next < count; ) {
    const batch = Array.from({ length: Math.min(20, count - next) }, (_, i) => next + i)
    next += batch.length
    const answers = await Promise.all(
      batch.map((n) => call((apis[n % apis.length] as Proc).url, '/work', { n, sleepMs })),
    )
    for (const answer of answers) {
      if (answer.status !== 202) throw new Error(`enqueue: ${answer.status}`)
      ids.push(answer.body.jobId as string)
    }
  }
  return ids
}

/** Waits until every job's status resource answers 303 (succeeded), asking the instances in turn. */
async function allSucceeded(apis: Proc[], ids: string[], what: string): Promise<void> {
  const pending = new Set(ids)
  let turn = 0
  await until(async () => {
    const answers = await Promise.all(
      [...pending].map(async (id) => {
        const api = apis[turn++ % apis.length] as Proc
        return [id, await call(api.url, `/jobs/${id}`)] as const
      }),
    )
    for (const [id, answer] of answers) {
      if (answer.status === 303) pending.delete(id)
      else if (answer.status !== 200 || answer.body.status === 'failed')
        throw new Error(
          `${what}: job ${id} answered ${answer.status} ${JSON.stringify(answer.body)}`,
        )
    }
    return pending.size === 0
  }, what)
}

/** Job id → the pids that started it, and those that completed it, from the workers' output. */
function runs(workers: Proc[]): { started: Map<string, string[]>; done: Map<string, string[]> } {
  const started = new Map<string, string[]>()
  const done = new Map<string, string[]>()
  for (const worker of workers) {
    for (const line of worker.lines) {
      const [kind, id, pid] = line.split(' ')
      const map = kind === 'START' ? started : kind === 'DONE' ? done : undefined
      if (map === undefined || id === undefined) continue
      map.set(id, [...(map.get(id) ?? []), pid as string])
    }
  }
  return { started, done }
}

/**
 * Waits for a worker's `DONE` line for each of `ids`: BullMQ records a completion in Redis
 * (which the status resource reads) before the worker's `completed` event prints it.
 */
async function completionsPrinted(workers: Proc[], ids: string[]): Promise<void> {
  await until(() => {
    const { done } = runs(workers)
    return ids.every((id) => done.has(id))
  }, 'every completion printed by its worker')
}

test('3 API instances, worker processes, a killed worker, a restarted Redis', async (t) => {
  const began = Date.now()
  const redis = await persistentRedis(t)
  await redis.up()
  const env = { REDIS_URL: redis.url, QUEUE }
  const fastLock = { ...env, LOCK_MS: '5000', STALLED_MS: '1000' }
  const [apis, workers] = await Promise.all([
    Promise.all([1, 2, 3].map(() => start('jobs-api.ts', env, /^READY /))),
    Promise.all([1, 2].map(() => start('jobs-worker.ts', fastLock, /^READY$/))),
  ])
  const everyWorker = [...workers]
  figures.startMs = Date.now() - began

  await t.test(
    `${JOBS} jobs through POST on 3 instances: each succeeds exactly once`,
    async (t) => {
      const at = Date.now()
      const ids = await enqueue(apis, JOBS, 5)
      t.equal(new Set(ids).size, JOBS)
      await allSucceeded(apis, ids, `${JOBS} jobs`)
      figures.jobsMs = Date.now() - at
      await completionsPrinted(everyWorker, ids)
      const { started, done } = runs(everyWorker)
      t.equal(ids.filter((id) => started.get(id)?.length === 1).length, JOBS, 'each ran once')
      t.equal(ids.filter((id) => done.get(id)?.length === 1).length, JOBS, 'each completed once')
      t.ok(
        workers.every((w) => w.lines.some((line) => line.startsWith('DONE'))),
        'both worker processes took jobs',
      )
      let views = 0
      for (const id of ids) {
        for (const api of apis) {
          const answer = await call(api.url, `/jobs/${id}`)
          if (answer.status === 303 && answer.headers.get('location') === `/jobs/${id}/result`)
            views++
        }
      }
      t.equal(views, JOBS * 3, 'every status resource reads the same from every instance')
      const result = await call((apis[2] as Proc).url, `/jobs/${ids[0]}/result`)
      t.match(result.body, { by: Number }, 'the result, from any instance')
    },
  )

  await t.test(
    'a worker SIGKILLed mid-job: the other finishes it after the stalled check',
    async (t) => {
      // Long enough that the kill lands while it runs, however slow the machine.
      const [slow] = await enqueue(apis, 1, 8000)
      const id = slow as string
      await until(() => runs(workers).started.has(id), 'the slow job starts')
      const victim = workers.find((w) => w.lines.includes(`START ${id} ${w.pid}`)) as Proc
      const survivor = workers.find((w) => w !== victim) as Proc
      const killedAt = Date.now()
      await stop(victim, 'SIGKILL')
      await allSucceeded(apis, [id], 'the job of the killed worker')
      figures.takeoverMs = Date.now() - killedAt
      await completionsPrinted(everyWorker, [id])
      const { started, done } = runs(everyWorker)
      t.same(
        [...(started.get(id) ?? [])].sort(),
        [String(victim.pid), String(survivor.pid)].sort(),
        'started by each',
      )
      t.same(done.get(id), [String(survivor.pid)], 'completed once, by the survivor')
      t.equal((await call((apis[0] as Proc).url, `/jobs/${id}`)).status, 303)
    },
  )

  await t.test(
    'Redis restarted mid-run: 503 + Retry-After meanwhile; nothing lost, nothing run twice',
    async (t) => {
      // Workers whose lock (60 s) outlasts the outage, however slow the machine: a running job
      // keeps its lock through it.
      const [survivor] = workers.filter(
        (w) => w.child.exitCode === null && w.child.signalCode === null,
      )
      t.equal(await stop(survivor as Proc, 'SIGTERM'), 0, 'a worker closes cleanly on SIGTERM')
      const slowLock = { ...env, LOCK_MS: '60000', STALLED_MS: '5000' }
      const fresh = await Promise.all(
        [1, 2].map(() => start('jobs-worker.ts', slowLock, /^READY$/)),
      )
      everyWorker.push(...fresh)
      const ids = await enqueue(apis, 20, 1500)
      await until(() => ids.some((id) => runs(fresh).started.has(id)), 'jobs running')
      const downAt = Date.now()
      await redis.kill()
      for (const api of apis) {
        const refused = await call(api.url, '/work', { n: -1 })
        t.equal(refused.status, 503, 'POST while Redis is down: 503')
        t.equal(refused.headers.get('retry-after'), '2')
        t.match(refused.body, { error: { code: 'SERVICE_UNAVAILABLE' } })
        const status = await call(api.url, `/jobs/${ids[0]}`)
        t.equal(status.status, 503, 'a status resource while Redis is down: 503')
        t.equal(status.headers.get('retry-after'), '2')
      }
      await new Promise((r) => setTimeout(r, 500))
      await redis.up()
      figures.outageMs = Date.now() - downAt
      const after: string[] = []
      for (const api of apis) {
        await until(async () => {
          const again = await call(api.url, '/work', { n: -2, sleepMs: 5 })
          if (again.status === 202) after.push(again.body.jobId as string)
          return again.status === 202
        }, 'the instance recovers without a restart')
      }
      await allSucceeded(apis, [...ids, ...after], 'jobs across the restart')
      figures.recoveryMs = Date.now() - downAt
      await completionsPrinted(everyWorker, ids)
      const { started, done } = runs(everyWorker)
      t.equal(ids.filter((id) => started.get(id)?.length === 1).length, 20, 'each ran once')
      t.equal(ids.filter((id) => done.get(id)?.length === 1).length, 20, 'each completed once')
      const connection = new Redis(redis.url)
      const queue = new Queue(QUEUE, { connection })
      const counts = await queue.getJobCounts()
      await queue.close()
      connection.disconnect()
      t.same(
        Object.values(counts).reduce((sum, n) => sum + n, 0),
        JOBS + 1 + ids.length + after.length,
        'the queue holds every accepted job and nothing a 503 refused',
      )
    },
  )

  for (const api of apis) t.equal(await stop(api, 'SIGTERM'), 0, 'an API instance closes cleanly')
  for (const worker of everyWorker) await stop(worker, 'SIGTERM')
  figures.totalMs = Date.now() - began
  t.comment(`jobs-processes: ${JSON.stringify(figures)}`)
})
