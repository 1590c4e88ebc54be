/**
 * The Redis store on a private `redis-server`: two instances over real sockets sharing keys, the
 * atomic claim under 50 concurrent requests, Redis stopped and started under load.
 */
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { test } from 'tap'
import { until } from '../../../test/helpers/patience.js'
import { type OwnRedis, ownRedis } from '../../../test/helpers/services.js'
import { type IdempotencyOptions, restwellIdempotency } from '../src/index.js'

let redis: OwnRedis
let rows: Redis
let prefixes = 0

test('setup', async () => {
  redis = await ownRedis()
  await redis.start()
  rows = new Redis(redis.url, { maxRetriesPerRequest: 1 })
  // Its reconnection attempts while the outage test has Redis down.
  rows.on('error', () => {})
})

/** An instance on its own port whose `POST /books` writes a row (a Redis list) per run. */
async function instance(
  prefix: string,
  options: IdempotencyOptions = {},
  before?: () => Promise<void>,
  write: (body: unknown) => Promise<number> = (body) =>
    rows.rpush(`${prefix}rows`, JSON.stringify(body)),
): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellIdempotency, {
    store: { redis: redis.url, keyPrefix: prefix },
    ...options,
  })
  app.post('/books', { config: { idempotency: true } }, async (request, reply) => {
    await before?.()
    const id = await write(request.body)
    reply.code(201).header('location', `/books/${id}`).header('etag', `"${id}"`)
    return { id, ...(request.body as object) }
  })
  // Unkeyed work on the same instance: what an outage of the store must not touch.
  app.get('/health', async () => ({ ok: true }))
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url }
}

const newPrefix = (): string => `t${process.pid}-${++prefixes}:`

interface Answer {
  status: number
  headers: Headers
  body: string
}

async function send(url: string, key: string | undefined, body: object): Promise<Answer> {
  const res = await fetch(`${url}/books`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(body),
  })
  return { status: res.status, headers: res.headers, body: await res.text() }
}

test('two instances, one Redis, 50 concurrent POSTs under one key: one row, the original or 409', async (t) => {
  const prefix = newPrefix()
  let answered = 0
  // The first request runs until every other one has been answered: they all meet it running.
  const busy = () => until(() => answered >= 49, 'the 49 other answers')
  const a = await instance(prefix, {}, busy)
  const b = await instance(prefix, {}, busy)
  t.teardown(async () => {
    await a.app.close()
    await b.app.close()
  })
  const key = '"one-key-for-fifty"'
  const body = { title: 'Dune' }
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      send(i % 2 === 0 ? a.url : b.url, key, body).then((answer) => {
        if (answer.status === 409) answered++
        return answer
      }),
    ),
  )
  t.equal(await rows.llen(`${prefix}rows`), 1, 'exactly one row written')
  const created = answers.filter((answer) => answer.status === 201)
  const conflicts = answers.filter((answer) => answer.status === 409)
  t.equal(created.length, 1, 'one original')
  t.equal(conflicts.length, 49, 'every other answer a 409')
  for (const conflict of conflicts) {
    t.equal(conflict.headers.get('retry-after'), '1')
    t.match(JSON.parse(conflict.body), { error: { code: 'IDEMPOTENCY_KEY_IN_USE' } })
  }
  const original = created[0] as Answer
  for (const url of [a.url, b.url]) {
    const retry = await send(url, key, body)
    t.equal(retry.status, 201, 'a retry after completion replays, on either instance')
    t.equal(retry.body, original.body)
    t.equal(retry.headers.get('location'), original.headers.get('location'))
    t.equal(retry.headers.get('etag'), original.headers.get('etag'))
    t.equal(retry.headers.get('idempotent-replayed'), 'true')
  }
  t.equal((await send(b.url, key, { title: 'Emma' })).status, 422, 'another request: 422')
  t.equal(await rows.llen(`${prefix}rows`), 1, 'still one row')
})

test('Redis stopped and started under load: keyed 503 + Retry-After, unkeyed served, keys again after', async (t) => {
  const prefix = newPrefix()
  // Rows in memory here: the outage is the idempotency store's, not the app's database.
  let written = 0
  const { app, url } = await instance(
    prefix,
    { unavailableRetryAfter: 7, timeoutMs: 500 },
    undefined,
    async () => ++written,
  )
  t.teardown(() => app.close())
  const statuses = new Map<number, number>()
  let stop = false
  let n = 0
  const load = async (): Promise<void> => {
    while (!stop) {
      const keyed = await send(url, `"load-${++n}"`, { n })
      statuses.set(keyed.status, (statuses.get(keyed.status) ?? 0) + 1)
      if (keyed.status === 503) {
        t.equal(keyed.headers.get('retry-after'), '7')
        t.match(JSON.parse(keyed.body), { error: { code: 'SERVICE_UNAVAILABLE' } })
      } else if (keyed.status !== 201) {
        t.fail(`keyed answer ${keyed.status}: ${keyed.body}`)
      }
      const health = await fetch(`${url}/health`)
      if (health.status !== 200) t.fail(`an unkeyed request got ${health.status}`)
    }
  }
  const lanes = [load(), load()]
  await until(() => (statuses.get(201) ?? 0) >= 20, '20 keyed requests served')
  await redis.kill()
  const before = (statuses.get(503) ?? 0) + 10
  await until(() => (statuses.get(503) ?? 0) >= before, '10 keyed requests answered 503')
  const served = statuses.get(201) ?? 0
  await redis.start()
  await until(() => (statuses.get(201) ?? 0) >= served + 20, 'keyed requests served again')
  stop = true
  await Promise.all(lanes)
  t.same([...statuses.keys()].sort(), [201, 503], 'every keyed answer 201 or 503: never a 500')
  t.comment(`keyed answers: ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.equal(written, statuses.get(201), 'a row for each 201 and none for a 503: never run unguarded')
  const key = '"after-the-outage"'
  const first = await send(url, key, { title: 'x' })
  const again = await send(url, key, { title: 'x' })
  t.equal(first.status, 201)
  t.equal(again.headers.get('idempotent-replayed'), 'true', 'a key works again')
  t.equal(again.body, first.body)
})

test('a Redis that never answers: keyed requests are 503 after timeoutMs, unkeyed served', async (t) => {
  const down = await ownRedis() // never started: nothing listens on its port
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellIdempotency, { store: { redis: down.url }, timeoutMs: 200 })
  let runs = 0
  app.post('/books', { config: { idempotency: true } }, async () => ({ run: ++runs }))
  t.teardown(() => app.close())
  const keyed = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'idempotency-key': '"k"' },
  })
  t.equal(keyed.statusCode, 503)
  t.equal(keyed.headers['retry-after'], '5')
  t.equal((await app.inject({ method: 'POST', url: '/books' })).statusCode, 200)
  t.equal(runs, 1, 'only the unkeyed one ran')
})

test("the app's own ioredis client is used as it is, and left open", async (t) => {
  const client = new Redis(redis.url, { enableOfflineQueue: false })
  await until(() => client.status === 'ready', 'the client connected')
  const app = Fastify()
  await app.register(restwellIdempotency, { store: { redis: client } })
  let runs = 0
  app.post('/books', { config: { idempotency: true } }, async () => ({ run: ++runs }))
  const send = () =>
    app.inject({ method: 'POST', url: '/books', headers: { 'idempotency-key': '"own"' } })
  t.same((await send()).json(), { run: 1 })
  t.same((await send()).json(), { run: 1 })
  t.equal(await client.exists('restwell:idempotency:'.concat('x')), 0)
  t.ok((await client.keys('restwell:idempotency:*')).length >= 1, 'under the default prefix')
  await app.close()
  t.equal(client.status, 'ready', 'still open')
  client.disconnect()
})

test('an outage is logged once, and so is the recovery', async (t) => {
  // The events of the client itself: a real outage may close the socket without an error
  // before Redis is back, so the log of the recovery is proven here, deterministically.
  const client = new Redis(redis.url, { enableOfflineQueue: false })
  await until(() => client.status === 'ready', 'the client connected')
  const logged: Array<{ level: number; msg: string }> = []
  const app = Fastify({
    logger: {
      level: 'info',
      stream: { write: (line: string) => void logged.push(JSON.parse(line)) },
    },
  })
  await app.register(restwellIdempotency, { store: { redis: client } })
  await app.ready()
  const ours = () => logged.filter((line) => line.msg.startsWith('@restwell/idempotency'))
  client.emit('ready')
  t.same(ours(), [], 'a ready with no outage before it is not news')
  client.emit('error', new Error('ECONNRESET'))
  client.emit('error', new Error('ECONNREFUSED'))
  client.emit('ready')
  client.emit('ready')
  t.same(
    ours().map((line) => [line.level, line.msg]),
    [
      [40, '@restwell/idempotency: redis error'],
      [30, '@restwell/idempotency: redis is back'],
    ],
    'the first error of the outage, then the recovery, each once',
  )
  await app.close()
  client.disconnect()
})

test('on Redis too: a 5xx frees the key, a handler past its in-flight time stores nothing', async (t) => {
  const prefix = newPrefix()
  const warnings: string[] = []
  const app = Fastify({
    logger: {
      level: 'warn',
      stream: { write: (line: string) => void warnings.push(JSON.parse(line).msg) },
    },
  })
  await app.register(restwellIdempotency, {
    store: { redis: redis.url, keyPrefix: prefix },
    inFlight: 0.3,
  })
  let runs = 0
  app.post('/fail', { config: { idempotency: true } }, async (_request, reply) => {
    runs++
    return reply.code(500).send({ run: runs })
  })
  app.post('/slow', { config: { idempotency: true } }, async () => {
    runs++
    await until(async () => (await rows.keys(`${prefix}*`)).length === 0, 'the marker expired')
    return { run: runs }
  })
  t.teardown(() => app.close())
  const send = (url: string) =>
    app.inject({ method: 'POST', url, headers: { 'idempotency-key': '"k"' } })
  t.equal((await send('/fail')).statusCode, 500)
  t.equal((await send('/fail')).statusCode, 500)
  t.equal(runs, 2, 'the 5xx left the key free')
  t.same((await send('/slow')).json(), { run: 3 })
  await until(() => warnings.some((m) => /ran past its in-flight time/.test(m)), 'the warning')
  t.same((await send('/slow')).json(), { run: 4 }, 'nothing was stored: it runs again')
})

test('Redis lost while the handler runs: the answer is sent, the failure to store it logged', async (t) => {
  const own = await ownRedis()
  await own.start()
  const warnings: string[] = []
  const app = Fastify({
    logger: {
      level: 'warn',
      stream: { write: (line: string) => void warnings.push(JSON.parse(line).msg) },
    },
  })
  await app.register(restwellIdempotency, { store: { redis: own.url }, timeoutMs: 300 })
  app.post('/books', { config: { idempotency: true } }, async (_request, reply) => {
    await own.kill()
    return reply.code(201).send({ created: true })
  })
  t.teardown(async () => {
    await app.close()
    await own.kill()
  })
  const res = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'idempotency-key': '"k"' },
  })
  t.equal(res.statusCode, 201, 'the client gets its answer')
  await until(
    () => warnings.some((m) => /could not store the answer of a key/.test(m)),
    'the failure logged',
  )
  await until(() => warnings.some((m) => /redis error/.test(m)), 'the outage logged once')
})

test('teardown', async () => {
  rows.disconnect()
  await redis.kill()
})
