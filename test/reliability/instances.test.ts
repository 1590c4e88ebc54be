/**
 * Several instances, one Redis, one PostgreSQL: the service is stateless, so any instance can
 * serve any request. Three instances of the reliability app (the umbrella with every plugin on;
 * the bookshelf example's buildApp takes no Redis client yet, see README.md), each in its own
 * process on its own loopback port, share a real Redis (rate limits, jobs) and a real
 * PostgreSQL (the books). Checked: rate limits are shared exactly; a job enqueued on one
 * instance is run by another and visible on all; an ETag from one instance validates on the
 * others; SIGKILL of one instance mid-load loses no acknowledged (201) write.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import tap, { test } from 'tap'
import { type Service, startPostgres, startRedis } from '../helpers/services.js'
import { READ, WRITE } from './app.js'
import { errorFormProblems } from './form.js'
import { createBooksTable, openPostgres } from './pg-store.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const RATE_MAX = 40
const TABLE = `reliability_books_${process.pid}`

interface Instance {
  url: string
  child: ChildProcess
}

let redis: Service
let postgres: Service
const instances: Instance[] = []
const figures = { instances: 0, requests: 0, acknowledged: 0, lost: 0 }

function startInstance(worker: boolean): Promise<Instance> {
  const child = spawn(
    process.execPath,
    ['--conditions=restwell-source', '--import', 'tsx', 'test/reliability/instance-server.ts'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        REDIS_URL: redis.url,
        DATABASE_URL: postgres.url,
        TABLE,
        WORKER: worker ? '1' : '0',
        RATE_MAX: String(RATE_MAX),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${out}`)), 60_000)
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const ready = /READY (\S+)/.exec(out)
      if (ready !== null) {
        clearTimeout(timer)
        resolve({ url: ready[1]!, child })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`instance exited with ${code}:\n${out}`))
    })
  })
}

async function call(
  instance: Instance,
  path: string,
  init: RequestInit & { client?: string } = {},
): Promise<Response> {
  figures.requests++
  const headers = new Headers(init.headers)
  headers.set('x-client-id', init.client ?? randomUUID())
  return fetch(`${instance.url}${path}`, { ...init, headers })
}

tap.before(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
  const db = await openPostgres(postgres.url)
  await createBooksTable(db, TABLE)
  await db.close()
  const client = new Redis(redis.url)
  const stale = await client.keys('reliability*')
  if (stale.length > 0) await client.del(...stale)
  client.disconnect()
  // Instance 0 runs no job worker: a job it enqueues must be run by another instance.
  instances.push(
    ...(await Promise.all([startInstance(false), startInstance(true), startInstance(true)])),
  )
  figures.instances = instances.length
})

tap.teardown(async () => {
  for (const { child } of instances) {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
    }
  }
  const db = await openPostgres(postgres.url)
  await db.query(`drop table if exists ${TABLE}`)
  await db.close()
  await Promise.all([redis.stop(), postgres.stop()])
  tap.comment(
    `instances: ${figures.instances} instances, ${figures.requests} requests, ${figures.acknowledged} acknowledged writes, ${figures.lost} lost`,
  )
})

test('rate limits are shared exactly: N requests over 3 instances hit 429 at the limit', async (t) => {
  const client = `limited-${randomUUID()}`
  const total = RATE_MAX + 20
  const statuses: number[] = []
  const formProblems: string[] = []
  // Sequential, round-robin: each instance alone saw fewer than RATE_MAX requests.
  for (let i = 0; i < total; i++) {
    const res = await call(instances[i % instances.length]!, '/v1/books/1', {
      headers: READ,
      client,
    })
    statuses.push(res.status)
    if (res.status === 429) {
      const text = await res.text()
      formProblems.push(
        ...errorFormProblems({
          statusCode: 429,
          headers: Object.fromEntries(res.headers),
          body: text,
        }),
      )
    } else await res.arrayBuffer()
  }
  t.same(formProblems, [], 'every 429 is in the error form')
  t.equal(statuses.filter((s) => s === 200).length, RATE_MAX, `exactly ${RATE_MAX} served`)
  t.same(
    statuses.slice(RATE_MAX),
    Array(total - RATE_MAX).fill(429),
    'every request past the limit is 429, on any instance',
  )

  // Concurrent bursts too: the counter is one atomic Redis increment.
  const burst = `burst-${randomUUID()}`
  const answers = await Promise.all(
    Array.from({ length: total }, (_, i) =>
      call(instances[i % instances.length]!, '/v1/books/1', { headers: READ, client: burst }),
    ),
  )
  await Promise.all(answers.map((r) => r.arrayBuffer()))
  t.equal(
    answers.filter((r) => r.status === 200).length,
    RATE_MAX,
    'a concurrent burst is limited exactly too',
  )
  t.equal(answers.filter((r) => r.status === 429).length, total - RATE_MAX)
})

test('a job enqueued on one instance is run by another and visible on all', async (t) => {
  const created = await call(instances[0]!, '/v1/exports', {
    method: 'POST',
    headers: { ...WRITE, 'content-type': 'application/json' },
    body: '{"rows":7}',
  })
  t.equal(created.status, 202)
  const location = created.headers.get('location')!
  t.match(location, /^\/jobs\/[0-9a-f-]{36}$/)
  let final: Response | undefined
  for (let attempt = 0; attempt < 200 && final === undefined; attempt++) {
    const res = await call(instances[1 + (attempt % 2)]!, location, {
      headers: READ,
      redirect: 'manual',
    })
    if (res.status === 303) final = res
    else {
      t.equal(res.status, 200, 'queued or running')
      await res.arrayBuffer()
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  t.ok(final, 'the job completed')
  t.equal(((await final!.json()) as { status: string }).status, 'succeeded')
  for (const instance of instances) {
    const status = await call(instance, location, { headers: READ, redirect: 'manual' })
    t.equal(status.status, 303, `instance ${instance.url} sees it succeeded`)
    await status.arrayBuffer()
    const result = await call(instance, `${location}/result`, { headers: READ })
    t.same(await result.json(), { exported: 7 }, 'and serves its result')
  }
})

test('an ETag from one instance validates on the others', async (t) => {
  const [a, b, c] = instances as [Instance, Instance, Instance]
  const first = await call(a, '/v1/books/2', { headers: READ })
  const etag = first.headers.get('etag')!
  const lastModified = first.headers.get('last-modified')!
  await first.arrayBuffer()
  t.equal(etag, '"1"')
  const cached = await call(b, '/v1/books/2', { headers: { ...READ, 'if-none-match': etag } })
  t.equal(cached.status, 304, 'If-None-Match from instance A: 304 on B')
  const since = await call(c, '/v1/books/2', {
    headers: { ...READ, 'if-modified-since': lastModified },
  })
  t.equal(since.status, 304, 'If-Modified-Since from A: 304 on C')

  const list = await call(a, '/v1/books?limit=5', { headers: READ })
  const listTag = list.headers.get('etag')!
  await list.arrayBuffer()
  const listAgain = await call(c, '/v1/books?limit=5', {
    headers: { ...READ, 'if-none-match': listTag },
  })
  t.equal(listAgain.status, 304, 'a hashed ETag (of the bytes) is the same on every instance')

  const put = await call(c, '/v1/books/2', {
    method: 'PUT',
    headers: { ...WRITE, 'content-type': 'application/json', 'if-match': etag },
    body: '{"title":"Renamed","year":1901}',
  })
  t.equal(put.status, 200, 'If-Match with A’s ETag succeeds on C')
  await put.arrayBuffer()
  const fresh = await call(b, '/v1/books/2', { headers: READ })
  t.equal(
    fresh.headers.get('etag'),
    '"2"',
    'B serves the new version at once (no instance caches state)',
  )
  await fresh.arrayBuffer()
  const stale = await call(b, '/v1/books/2', {
    method: 'PATCH',
    headers: { ...WRITE, 'content-type': 'application/merge-patch+json', 'if-match': etag },
    body: '{"title":"Lost update"}',
  })
  t.equal(stale.status, 412, 'the stale ETag is refused on B: no lost update')
  await stale.arrayBuffer()
  const now = await call(a, '/v1/books/2', { headers: READ })
  t.equal(((await now.json()) as { title: string }).title, 'Renamed')
})

test('killing one instance mid-load loses no acknowledged write', async (t) => {
  const victim = instances[2]!
  const total = 300
  const acknowledged: { id: number; title: string }[] = []
  let refused = 0
  let sent = 0
  let killed = false
  const worker = async (lane: number) => {
    while (sent < total) {
      const n = sent++
      if (n === 100 && !killed) {
        killed = true
        victim.child.kill('SIGKILL')
      }
      const instance = instances[(n + lane) % instances.length]!
      const title = `load ${n}`
      try {
        const res = await call(instance, '/v1/books', {
          method: 'POST',
          headers: { ...WRITE, 'content-type': 'application/json' },
          body: JSON.stringify({ title, year: 2000, tags: ['load'] }),
        })
        if (res.status === 201) {
          const body = (await res.json()) as { id: number }
          t.equal(res.headers.get('location'), `/v1/books/${body.id}`)
          acknowledged.push({ id: body.id, title })
        } else {
          await res.arrayBuffer()
          t.fail(`unexpected ${res.status} from ${instance.url}`)
        }
      } catch {
        refused++ // the killed instance: the connection failed, nothing was acknowledged
      }
    }
  }
  await Promise.all(Array.from({ length: 8 }, (_, lane) => worker(lane)))
  await new Promise<void>((resolve) => {
    if (victim.child.exitCode !== null || victim.child.signalCode !== null) resolve()
    else victim.child.once('exit', () => resolve())
  })
  t.ok(killed && victim.child.signalCode === 'SIGKILL', 'one instance was killed mid-load')
  t.ok(refused > 0, `${refused} requests to the dead instance failed (not acknowledged)`)
  t.ok(acknowledged.length >= total - refused - 8, `${acknowledged.length} writes acknowledged`)
  figures.acknowledged += acknowledged.length
  const survivors = instances.filter((i) => i !== victim)
  let lost = 0
  for (const [k, { id, title }] of acknowledged.entries()) {
    const res = await call(survivors[k % survivors.length]!, `/v1/books/${id}`, { headers: READ })
    const body = res.status === 200 ? ((await res.json()) as { title: string }) : undefined
    if (body?.title !== title) lost++
  }
  figures.lost += lost
  t.equal(lost, 0, 'every acknowledged write is readable from the surviving instances')
  const db = await openPostgres(postgres.url)
  const count = await db.query<{ n: number }>(
    `select count(*)::int as n from ${TABLE} where title like 'load %'`,
  )
  await db.close()
  t.ok(
    count.rows[0]!.n >= acknowledged.length,
    `${count.rows[0]!.n} rows stored ≥ ${acknowledged.length} acknowledged`,
  )
})
