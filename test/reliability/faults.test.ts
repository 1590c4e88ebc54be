/**
 * Faults: Redis lost mid-run and back (a private redis-server, SIGKILLed and restarted on the
 * same port), database errors in the bookshelf example, and a bounded load run against the
 * bookshelf with the heap compared before and after.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import autocannon from 'autocannon'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { Redis } from 'ioredis'
import tap, { type Test, test } from 'tap'
import { buildApp, prepareDatabase } from '../../examples/bookshelf/src/app.js'
import { DEV_TOKENS } from '../../examples/bookshelf/src/config.js'
import { type Database, openDatabase, type Queryable } from '../../examples/bookshelf/src/db.js'
import { buildReliabilityApp, READ, WRITE } from './app.js'
import { errorFormProblems } from './form.js'
import { PATIENCE_MS, until } from '../helpers/patience.js'
import { ownRedis } from '../helpers/services.js'

const LOAD = Number(process.env.RELIABILITY_LOAD ?? 3000)
const figures = { requests: 0, failures: 0 }
tap.teardown(() => {
  tap.comment(`faults: ${figures.requests} requests, ${figures.failures} unexpected answers`)
})

test('Redis lost mid-run: fail closed (503) or open by failOpen, jobs 503, no crash; recovery when it returns', async (t) => {
  const server = await ownRedis()
  await server.start()
  t.teardown(() => server.kill())
  // Clients as an application writes them: ioredis defaults (offline queue, 20 retries per
  // command). restwell's storeTimeout (1 s) and the jobs plugin's timeoutMs (2 s) bound the wait.
  const clients = [new Redis(server.url), new Redis(server.url)]
  for (const c of clients) c.on('error', () => {})
  t.teardown(() => {
    for (const c of clients) c.disconnect()
  })
  const closed = await buildReliabilityApp({ redis: clients[0]!, rateLimit: { max: 1000 } })
  const open = await buildReliabilityApp({
    redis: clients[1]!,
    rateLimit: { max: 1000, failOpen: true },
  })
  t.teardown(() => Promise.all([closed.close(), open.close()]))
  const get = (app: FastifyInstance) => {
    figures.requests++
    return app.inject({ url: '/v1/books/1', headers: READ })
  }

  const before = await get(closed)
  t.equal(before.statusCode, 200)
  t.equal(before.headers['x-ratelimit-remaining'], '999')

  await server.kill()
  for (let i = 0; i < 3; i++) {
    const refused = await get(closed)
    t.equal(refused.statusCode, 503, 'failOpen false: 503')
    t.equal(refused.headers['retry-after'], '5')
    t.equal(refused.json().error.code, 'OVERLOADED')
    t.same(errorFormProblems(refused), [], 'in the error form, with the requestId')
    const served = await get(open)
    t.equal(served.statusCode, 200, 'failOpen true: served without a limit')
  }
  figures.requests += 2
  const job = await open.inject({ method: 'POST', url: '/v1/exports', headers: WRITE, payload: {} })
  t.equal(job.statusCode, 503, 'enqueueing a job with Redis gone: 503')
  t.ok(job.headers['retry-after'])
  t.same(errorFormProblems(job), [])
  const status = await open.inject({
    url: '/jobs/0a93b811-d7a2-47fb-8ac2-0c5b836e9894',
    headers: READ,
  })
  t.equal(status.statusCode, 503, 'reading a job with Redis gone: 503')
  t.same(errorFormProblems(status), [])

  await server.start()
  await until(async () => (await get(closed)).statusCode === 200, 'failOpen false recovers')
  t.pass('failOpen false recovers once Redis is back')
  const counted = await get(closed)
  t.equal(counted.statusCode, 200)
  t.ok(
    Number(counted.headers['x-ratelimit-remaining']) < 1000,
    'and counts again (the restarted Redis is empty)',
  )
  const again = await open.inject({
    method: 'POST',
    url: '/v1/exports',
    headers: WRITE,
    payload: { rows: 3 },
  })
  figures.requests += 1
  t.equal(again.statusCode, 202, 'jobs are accepted again')
  const location = String(again.headers.location)
  await until(async () => {
    figures.requests++
    return (await open.inject({ url: location, headers: READ })).statusCode === 303
  }, 'the job runs to completion')
  t.pass('and the job runs to completion')
})

/** The bookshelf's database, with a switch: `down` = connection refused, `broken` = a query bug. */
function faulty(db: Database): { db: Database; mode: 'ok' | 'down' | 'broken' } {
  const state = { mode: 'ok' as 'ok' | 'down' | 'broken', db: db }
  const fail = (): void => {
    if (state.mode === 'down')
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
        code: 'ECONNREFUSED',
      })
    if (state.mode === 'broken')
      throw Object.assign(new Error('relation "secret_table" does not exist'), { code: '42P01' })
  }
  const wrap = (q: Queryable): Queryable => ({
    query: async (text, params) => {
      fail()
      return q.query(text, params)
    },
  })
  state.db = {
    description: db.description,
    query: wrap(db).query,
    transaction: async (work) => {
      fail()
      return db.transaction((tx) => work(wrap(tx)))
    },
    close: () => db.close(),
  }
  return state
}

async function bookshelf(
  t: Test,
  rateLimitMax = 1_000_000,
): Promise<{ app: FastifyInstance; state: ReturnType<typeof faulty> }> {
  const dir = mkdtempSync(join(tmpdir(), 'reliability-bookshelf-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const db = await openDatabase({ dataDir: dir })
  await prepareDatabase(db)
  const state = faulty(db)
  const app = await buildApp({
    db: state.db,
    tokens: DEV_TOKENS,
    rateLimitMax,
    maxEventLoopDelay: 0,
    healthCheckInterval: 3_600_000,
  })
  t.teardown(() => app.close())
  return { app, state }
}

const SHELF_READ = { authorization: `Bearer ${DEV_TOKENS.read}` }
const SHELF_WRITE = { authorization: `Bearer ${DEV_TOKENS.write}` }

test('database errors: 503 (unreachable) or 500 (masked), with a requestId; the app keeps serving', async (t) => {
  const { app, state } = await bookshelf(t)
  const requests: InjectOptions[] = [
    { method: 'GET', url: '/v1/books', headers: SHELF_READ },
    { method: 'GET', url: '/v1/books/1', headers: SHELF_READ },
    {
      method: 'POST',
      url: '/v1/books',
      headers: SHELF_WRITE,
      payload: { title: 'F', isbn: '978-0000000001', authorId: 1 },
    },
    {
      method: 'PATCH',
      url: '/v1/books/2',
      headers: { ...SHELF_WRITE, 'content-type': 'application/merge-patch+json', 'if-match': '*' },
      payload: '{"title":"F2"}',
    },
  ]
  for (const mode of ['down', 'broken', 'ok'] as const) {
    state.mode = mode
    for (const request of requests) {
      figures.requests++
      const res = await app.inject(request as InjectOptions)
      const label = `${mode}: ${request.method} ${request.url}`
      if (mode === 'down') {
        t.equal(res.statusCode, 503, label)
        t.equal(res.json().error.code, 'DATABASE_UNAVAILABLE')
        t.equal(res.headers['retry-after'], '5')
      } else if (mode === 'broken') {
        t.equal(res.statusCode, 500, label)
        t.equal(res.json().error.code, 'INTERNAL_SERVER_ERROR')
        t.notMatch(res.body, /secret_table|relation/, 'the database message is not leaked')
      } else {
        t.ok(
          res.statusCode >= 200 && res.statusCode < 300,
          `${label}: ${res.statusCode} once the database is back`,
        )
      }
      if (res.statusCode >= 500) {
        const body = res.json() as {
          error: { requestId: string; timestamp: string; message: string }
        }
        t.equal(
          body.error.requestId,
          res.headers['x-request-id'],
          'the requestId is in the body and the header',
        )
        t.ok(body.error.timestamp)
      }
    }
  }
})

test('load: a fixed count of mixed requests, no unexpected status, heap after within a bound of before', async (t) => {
  const { app } = await bookshelf(t)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  let isbn = 0
  const unexpected = new Map<string, number>()
  const seen = new Map<string, number>()
  const expect = (label: string, allowed: number[]) => (status: number) => {
    seen.set(`${label} ${status}`, (seen.get(`${label} ${status}`) ?? 0) + 1)
    if (!allowed.includes(status))
      unexpected.set(`${label} ${status}`, (unexpected.get(`${label} ${status}`) ?? 0) + 1)
  }
  const requests: autocannon.Request[] = [
    {
      method: 'GET',
      path: '/v1/books?limit=5&sort=-publishedAt',
      headers: SHELF_READ,
      onResponse: expect('GET list', [200]),
    },
    {
      method: 'GET',
      path: '/v1/books/1',
      headers: SHELF_READ,
      onResponse: expect('GET item', [200]),
    },
    // (no HEAD: autocannon waits for a body after a HEAD's Content-Length)
    {
      method: 'POST',
      path: '/v1/books',
      headers: { ...SHELF_WRITE, 'content-type': 'application/json' },
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({
          title: `Load ${isbn}`,
          isbn: `978-${String(1_000_000_000 + isbn++)}`,
          authorId: 1,
        }),
      }),
      onResponse: expect('POST', [201]),
    },
    {
      method: 'PATCH',
      path: '/v1/books/2',
      headers: { ...SHELF_WRITE, 'content-type': 'application/merge-patch+json', 'if-match': '*' },
      body: '{"title":"Patched under load"}',
      onResponse: expect('PATCH', [200]),
    },
    {
      method: 'GET',
      path: '/v1/books/999999',
      headers: SHELF_READ,
      onResponse: expect('GET missing', [404]),
    },
    {
      method: 'GET',
      path: '/v1/authors?limit=2',
      headers: { ...SHELF_READ, accept: 'application/xml' },
      onResponse: expect('GET xml', [200]),
    },
  ]
  const run = async (amount: number): Promise<autocannon.Result> => {
    // A request that has no answer within the patience bound (seconds) counts as a timeout.
    const timeout = PATIENCE_MS / 1000
    const result = await autocannon({ url: address, connections: 8, amount, requests, timeout })
    figures.requests += result.requests.total
    return result
  }
  const heap = (): number => {
    for (let i = 0; i < 3; i++) gc()
    return process.memoryUsage().heapUsed
  }
  await run(Number(process.env.RELIABILITY_WARMUP ?? 500)) // warm-up: JIT, caches, connection pools, lazily created objects
  await new Promise((r) => setTimeout(r, 200))
  const before = heap()
  const result = await run(LOAD)
  await new Promise((r) => setTimeout(r, 200))
  const after = heap()
  const growth = after - before
  figures.failures +=
    [...unexpected.values()].reduce((a, b) => a + b, 0) + result.errors + result.timeouts
  t.comment(
    `load: ${result.requests.total} requests, statuses ${[...seen].map(([k, n]) => `${k}×${n}`).join(', ')}`,
  )
  t.comment(
    `heap before ${(before / 1e6).toFixed(1)} MB, after ${(after / 1e6).toFixed(1)} MB, growth ${(growth / 1e6).toFixed(2)} MB`,
  )
  t.equal(result.errors, 0, 'no connection errors')
  t.equal(result.timeouts, 0, 'no timeouts')
  t.same(Object.fromEntries(unexpected), {}, 'no status other than the expected ones')
  t.ok(result.requests.total >= LOAD, `${result.requests.total} requests answered`)
  // Bound: 8 MB for 3000 requests (≈ 2.8 KB per request): a leak of the request, reply or
  // body of every request (several KB each) would exceed it; V8's own caches stay below.
  t.ok(growth < 8 * 1024 * 1024, `heap growth ${(growth / 1e6).toFixed(2)} MB < 8 MB`)
})
