/**
 * A process SIGKILLed while its handler runs leaves its in-flight marker in Redis: retries get
 * 409 until the marker's lifetime (`inFlight`) ends, then one retry runs the handler, once.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { test } from 'tap'
import { PATIENCE_MS, until } from '../../../test/helpers/patience.js'
import { ownRedis } from '../../../test/helpers/services.js'

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'instance.ts')

interface Child {
  process: ChildProcess
  url: string
  /** Lines the child printed so far. */
  lines: string[]
}

function start(env: Record<string, string>): Promise<Child> {
  const child = spawn(
    process.execPath,
    ['--conditions=restwell-source', '--import', 'tsx', FIXTURE],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const lines: string[] = []
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the instance did not start')), PATIENCE_MS)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      lines.push(...chunk.split('\n').filter((line) => line !== ''))
      const listening = lines.find((line) => line.startsWith('listening '))
      if (listening !== undefined) {
        clearTimeout(timer)
        resolve({ process: child, url: listening.slice('listening '.length), lines })
      }
    })
    child.once('exit', (code) => reject(new Error(`the instance exited with ${code}`)))
  })
}

function post(url: string, body: object): Promise<Response> {
  return fetch(`${url}/books`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': '"killed-mid-request"' },
    body: JSON.stringify(body),
  })
}

test('SIGKILL mid-request: after the in-flight lifetime a retry runs the handler once', async (t) => {
  const redis = await ownRedis()
  await redis.start()
  const rows = new Redis(redis.url)
  const env = { REDIS_URL: redis.url, KEY_PREFIX: 'killed:', IN_FLIGHT: '2' }
  const doomed = await start({ ...env, HANG: '1' })
  const survivor = await start(env)
  t.teardown(async () => {
    survivor.process.kill('SIGKILL')
    rows.disconnect()
    await redis.kill()
  })
  const body = { title: 'Dune' }
  // Its answer never comes: the process dies with the request running.
  const sentAt = Date.now()
  post(doomed.url, body).catch(() => undefined)
  await until(() => doomed.lines.includes('running'), 'the handler runs')
  await new Promise<void>((resolve) => {
    doomed.process.once('exit', () => resolve())
    doomed.process.kill('SIGKILL')
  })
  t.equal(await rows.llen('killed:rows'), 1, 'the killed handler wrote its row')
  const other = await post(survivor.url, { title: 'Emma' })
  t.equal(other.status, 422, 'another request under the key, while the marker lives: 422')
  const retry = await post(survivor.url, body)
  t.equal(retry.status, 409, 'the marker is still there: 409')
  t.equal(retry.headers.get('retry-after'), '1')
  let ran: Response | undefined
  await until(async () => {
    const answer = await post(survivor.url, body)
    if (answer.status === 409) return false
    ran = answer
    return true
  }, 'a retry runs once the in-flight lifetime is over')
  // The marker was set after `sentAt`, for 2 s (20 ms for the clocks of Redis and this process).
  t.ok(Date.now() - sentAt >= 1980, 'not before the in-flight lifetime (2 s)')
  t.equal(ran?.status, 201)
  t.equal(ran?.headers.get('idempotent-replayed'), null, 'it ran')
  const replay = await post(survivor.url, body)
  t.equal(replay.status, 201)
  t.equal(replay.headers.get('idempotent-replayed'), 'true', 'the next retry replays it')
  t.equal(await rows.llen('killed:rows'), 2, 'the handler ran once more, once')
  t.same(
    survivor.lines.filter((line) => line === 'running'),
    ['running'],
    'once on the survivor',
  )
})
