/**
 * Several instances, one Redis, one PostgreSQL: the service is stateless, so any instance can
 * serve any request. Three processes of the bookshelf example (`bookshelf-instance.ts`: the
 * bookshelf's own loadConfig + startBookshelf with REDIS_URL and DATABASE_URL), each on its own
 * loopback port, share a real Redis (rate-limit counters, the job queue) and a real PostgreSQL
 * database made for this test. Through the bookshelf's own routes and tokens: rate limits are
 * shared exactly; a job enqueued on one instance is run by another and visible on all; an ETag
 * from one instance validates on the others; SIGKILL of one instance mid-load loses no
 * acknowledged (201) write.
 *
 * The bookshelf counts its rate limit per client IP. Every request goes to 127.0.0.1 but is sent
 * *from* an address of 127.0.0.0/8 (`localAddress`): each limit scenario is one client address,
 * and the other scenarios move to a fresh address every 20 requests, so they never reach the
 * limit.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { Agent, type IncomingHttpHeaders, request } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import tap, { test } from 'tap'
import { openDatabase } from '../../examples/bookshelf/src/db.js'
import { type Service, startPostgres, startRedis } from '../helpers/services.js'
import { errorFormProblems } from './form.js'
import { PATIENCE_MS } from '../helpers/patience.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const RATE_MAX = 40
const TOKENS = { read: 'instances-read-token', write: 'instances-write-token' }
const READ = { authorization: `Bearer ${TOKENS.read}` }
const WRITE = { authorization: `Bearer ${TOKENS.write}` }
/** A database of its own: a shared POSTGRES_URL (CI) also serves the bookshelf's tests. */
const DATABASE = `reliability_instances_${process.pid}_${Date.now()}`
/** The bookshelf's Redis keys (`bookshelf-rate-limit-…`, `bookshelf:jobs:…`). */
const KEYS = 'bookshelf*'

interface Instance {
  url: string
  port: number
  child: ChildProcess
}

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

interface Book {
  id: number
  title: string
  isbn: string
  status: string
  authorId: number
  publishedAt?: string
}

let redis: Service
let postgres: Service
let databaseUrl: string
const instances: Instance[] = []
const agent = new Agent({ keepAlive: true })
const figures = { instances: 0, requests: 0, acknowledged: 0, lost: 0 }

let rotation = 0
/** A fresh client address every 20 requests: 127.1.0.1, 127.1.0.2, … */
function rotatingAddress(): string {
  const client = Math.floor(rotation++ / 20)
  return `127.1.${Math.floor(client / 250)}.${(client % 250) + 1}`
}

function call(
  instance: Instance,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<Answer> {
  figures.requests++
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...init.headers }
    if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body)
    const req = request(
      {
        host: '127.0.0.1',
        port: instance.port,
        path,
        method: init.method ?? 'GET',
        headers,
        agent,
        localAddress: init.from ?? rotatingAddress(),
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(init.body)
  })
}

const json = <T>(answer: Answer): T => JSON.parse(answer.body) as T

function startInstance(worker: boolean): Promise<Instance> {
  const child = spawn(
    process.execPath,
    ['--conditions=restwell-source', '--import', 'tsx', 'test/reliability/bookshelf-instance.ts'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.url,
        BOOKSHELF_RATE_LIMIT: String(RATE_MAX),
        BOOKSHELF_READ_TOKEN: TOKENS.read,
        BOOKSHELF_WRITE_TOKEN: TOKENS.write,
        BOOKSHELF_LOG: '0',
        JOB_WORKER: worker ? '1' : '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(
      () => reject(new Error(`instance did not start:\n${out}`)),
      PATIENCE_MS,
    )
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const ready = /READY (http:\/\/127\.0\.0\.1:(\d+))/.exec(out)
      if (ready !== null) {
        clearTimeout(timer)
        resolve({ url: ready[1]!, port: Number(ready[2]), child })
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

async function deleteKeys(url: string): Promise<void> {
  const client = new Redis(url)
  const stale = await client.keys(KEYS)
  if (stale.length > 0) await client.del(...stale)
  client.disconnect()
}

tap.before(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
  const admin = await openDatabase({ databaseUrl: postgres.url })
  await admin.query(`create database ${DATABASE}`)
  await admin.close()
  const url = new URL(postgres.url)
  url.pathname = `/${DATABASE}`
  databaseUrl = url.toString()
  await deleteKeys(redis.url)
  // All three start together on the new database: the bookshelf migrates and seeds it under an
  // advisory lock, so one does it and the others wait. Instance 0 runs no job worker: a job it
  // enqueues must be run by another instance.
  instances.push(
    ...(await Promise.all([startInstance(false), startInstance(true), startInstance(true)])),
  )
  figures.instances = instances.length
})

tap.teardown(async () => {
  agent.destroy()
  for (const { child } of instances) {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
    }
  }
  if (postgres !== undefined) {
    const admin = await openDatabase({ databaseUrl: postgres.url })
    await admin.query(`drop database if exists ${DATABASE} with (force)`)
    await admin.close()
  }
  if (redis !== undefined) await deleteKeys(redis.url)
  await Promise.all([redis?.stop(), postgres?.stop()])
  tap.comment(
    `instances: ${figures.instances} bookshelf instances, ${figures.requests} requests, ${figures.acknowledged} acknowledged writes, ${figures.lost} lost`,
  )
})

test('rate limits are shared exactly: N requests over 3 instances hit 429 at the limit', async (t) => {
  const total = RATE_MAX + 20
  const statuses: number[] = []
  const formProblems: string[] = []
  const codes = new Set<string>()
  // Sequential, round-robin, one client: each instance alone saw fewer than RATE_MAX requests.
  for (let i = 0; i < total; i++) {
    const res = await call(instances[i % instances.length]!, '/v1/books/1', {
      headers: READ,
      from: '127.0.0.2',
    })
    statuses.push(res.status)
    if (res.status === 429) {
      formProblems.push(
        ...errorFormProblems({ statusCode: 429, headers: res.headers, body: res.body }),
      )
      codes.add(json<{ error: { code: string } }>(res).error.code)
      if (res.headers['retry-after'] === undefined) formProblems.push('no Retry-After')
    }
  }
  t.same(formProblems, [], 'every 429 is in the error form, with Retry-After')
  t.same([...codes], ['RATE_LIMITED'])
  t.equal(statuses.filter((s) => s === 200).length, RATE_MAX, `exactly ${RATE_MAX} served`)
  t.same(
    statuses.slice(RATE_MAX),
    Array(total - RATE_MAX).fill(429),
    'every request past the limit is 429, on any instance',
  )

  // A concurrent burst from another client: the counter is one atomic Redis increment.
  const answers = await Promise.all(
    Array.from({ length: total }, (_, i) =>
      call(instances[i % instances.length]!, '/v1/books/1', { headers: READ, from: '127.0.0.3' }),
    ),
  )
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
    body: '{"status":"available"}',
  })
  t.equal(created.status, 202, 'enqueued on the instance without a worker')
  const location = String(created.headers.location)
  t.match(location, /^\/jobs\/[0-9a-f-]{36}$/)
  let final: Answer | undefined
  for (let attempt = 0; attempt < 200 && final === undefined; attempt++) {
    const res = await call(instances[1 + (attempt % 2)]!, location, { headers: READ })
    if (res.status === 303) final = res
    else {
      t.equal(res.status, 200, 'queued or running')
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  t.ok(final, 'the job completed (instance 0 runs no worker: another one ran it)')
  t.equal(json<{ status: string }>(final!).status, 'succeeded')
  const exportPath = String(final!.headers.location)
  t.match(exportPath, /^\/v1\/exports\/\d+$/)
  const exports: unknown[] = []
  for (const instance of instances) {
    const status = await call(instance, location, { headers: READ })
    t.equal(status.status, 303, `instance ${instance.url} sees it succeeded`)
    t.equal(status.headers.location, exportPath, 'and sends the same Location')
    const result = await call(instance, `${location}/result`, { headers: READ })
    t.equal(result.status, 303, 'its result resource points to the export')
    t.equal(result.headers.location, exportPath)
    const exported = await call(instance, exportPath, { headers: READ })
    t.equal(exported.status, 200, 'and serves the export')
    exports.push(json(exported))
  }
  t.match(exports[0], { filter: { status: 'available' }, books: Array })
  t.same(exports[1], exports[0], 'the same export on every instance')
  t.same(exports[2], exports[0])
})

test('an ETag from one instance validates on the others', async (t) => {
  const [a, b, c] = instances as [Instance, Instance, Instance]
  const first = await call(a, '/v1/books/2', { headers: READ })
  const etag = String(first.headers.etag)
  const lastModified = String(first.headers['last-modified'])
  const book = json<Book>(first)
  t.equal(etag, '"1"', 'the ETag is the row version')
  const cached = await call(b, '/v1/books/2', { headers: { ...READ, 'if-none-match': etag } })
  t.equal(cached.status, 304, 'If-None-Match from instance A: 304 on B')
  const since = await call(c, '/v1/books/2', {
    headers: { ...READ, 'if-modified-since': lastModified },
  })
  t.equal(since.status, 304, 'If-Modified-Since from A: 304 on C')

  const list = await call(a, '/v1/books?limit=5', { headers: READ })
  const listTag = String(list.headers.etag)
  const listAgain = await call(c, '/v1/books?limit=5', {
    headers: { ...READ, 'if-none-match': listTag },
  })
  t.equal(listAgain.status, 304, 'a hashed ETag (of the bytes) is the same on every instance')

  const put = await call(c, '/v1/books/2', {
    method: 'PUT',
    headers: { ...WRITE, 'content-type': 'application/json', 'if-match': etag },
    body: JSON.stringify({
      title: 'Renamed',
      isbn: book.isbn,
      status: book.status,
      authorId: book.authorId,
      ...(book.publishedAt === undefined ? {} : { publishedAt: book.publishedAt }),
    }),
  })
  t.equal(put.status, 200, 'If-Match with A’s ETag succeeds on C')
  const fresh = await call(b, '/v1/books/2', { headers: READ })
  t.equal(fresh.headers.etag, '"2"', 'B serves the new version at once (no instance caches)')
  const stale = await call(b, '/v1/books/2', {
    method: 'PATCH',
    headers: { ...WRITE, 'content-type': 'application/merge-patch+json', 'if-match': etag },
    body: '{"title":"Lost update"}',
  })
  t.equal(stale.status, 412, 'the stale ETag is refused on B: no lost update')
  t.same(errorFormProblems({ statusCode: 412, headers: stale.headers, body: stale.body }), [])
  const now = await call(a, '/v1/books/2', { headers: READ })
  t.equal(json<Book>(now).title, 'Renamed')
})

test('killing one instance mid-load loses no acknowledged write', async (t) => {
  const victim = instances[2]!
  const total = 300
  const acknowledged: { id: number; title: string }[] = []
  let refused = 0
  let sent = 0
  let killed = false
  const lane = async (offset: number) => {
    while (sent < total) {
      const n = sent++
      if (n === 100 && !killed) {
        killed = true
        victim.child.kill('SIGKILL')
      }
      const instance = instances[(n + offset) % instances.length]!
      const title = `load ${n}`
      try {
        const res = await call(instance, '/v1/books', {
          method: 'POST',
          headers: { ...WRITE, 'content-type': 'application/json' },
          body: JSON.stringify({ title, isbn: `978-${String(n).padStart(10, '0')}`, authorId: 1 }),
        })
        if (res.status === 201) {
          const { id } = json<Book>(res)
          t.equal(res.headers.location, `/v1/books/${id}`)
          acknowledged.push({ id, title })
        } else t.fail(`unexpected ${res.status} from ${instance.url}: ${res.body}`)
      } catch {
        refused++ // the killed instance: the connection failed, nothing was acknowledged
      }
    }
  }
  await Promise.all(Array.from({ length: 8 }, (_, offset) => lane(offset)))
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
    if (res.status !== 200 || json<Book>(res).title !== title) lost++
  }
  const db = await openDatabase({ databaseUrl })
  const rows = await db.query<{ id: number; title: string }>(
    "select id, title from books where title like 'load %'",
  )
  await db.close()
  const stored = new Map(rows.rows.map((r) => [Number(r.id), r.title]))
  const missing = acknowledged.filter(({ id, title }) => stored.get(id) !== title).length
  figures.lost += Math.max(lost, missing)
  t.equal(lost, 0, 'every acknowledged write is readable from the surviving instances')
  t.equal(missing, 0, `and stored in PostgreSQL (${stored.size} rows ≥ ${acknowledged.length})`)
})
