/** The bookshelf on its embedded database (PGlite in a temp folder), over a real socket. */
import { test } from 'tap'
import { buildApp } from '../src/app.js'
import { DEV_TOKENS } from '../src/config.js'
import { allConventions } from './conventions.js'
import { READ, start, tempDir } from './helpers.js'
import { until } from '../../../test/helpers/patience.js'

test('every convention on PGlite; rate limits; data survives a restart; 503 when the database is gone', async (t) => {
  const dataDir = tempDir(t)
  const running = await start(t, { dataDir })
  await allConventions(t, running)

  await t.test('429 with Retry-After once the limit is spent', async (t) => {
    const limited = await buildApp({
      db: running.db,
      tokens: DEV_TOKENS,
      rateLimitMax: 2,
      maxEventLoopDelay: 0,
      closeDatabase: false,
    })
    await limited.listen({ port: 0, host: '127.0.0.1' })
    t.teardown(() => limited.close())
    const { port } = limited.server.address() as { port: number }
    const get = () =>
      fetch(`http://127.0.0.1:${port}/v1/books/1`, { headers: { authorization: READ } })
    t.equal((await get()).headers.get('x-ratelimit-remaining'), '1')
    t.equal((await get()).status, 200)
    const refused = await get()
    t.equal(refused.status, 429)
    t.equal(refused.headers.get('x-ratelimit-remaining'), '0')
    t.match(refused.headers.get('retry-after'), /^\d+$/)
    t.equal(((await refused.json()) as { error: { code: string } }).error.code, 'RATE_LIMITED')
  })

  await t.test(
    'the data folder keeps everything across a restart, and is not seeded twice',
    async (t) => {
      await running.app.close()
      const again = await start(t, { dataDir })
      const dune = await again.call('GET', '/v1/books/8', { headers: { authorization: READ } })
      t.equal(dune.status, 200)
      t.equal(((await dune.json()) as { title: string }).title, 'Dune (1965)')
      const all = await again.call('GET', '/v1/books?deleted=include', {
        headers: { authorization: READ },
      })
      t.equal(
        all.headers.get('x-total-count'),
        '8',
        'seven seeded books and Dune, nothing seeded again',
      )

      await again.db.close()
      const down = await again.call('GET', '/v1/books/1', { headers: { authorization: READ } })
      t.equal(down.status, 503)
      t.equal(down.headers.get('retry-after'), '5')
      const body = (await down.json()) as { error: { code: string; requestId: string } }
      t.equal(body.error.code, 'DATABASE_UNAVAILABLE')
      t.equal(body.error.requestId, down.headers.get('x-request-id'))

      // The periodic database ping of under-pressure: once it fails, every request is shed.
      const shedding = await buildApp({
        db: again.db,
        tokens: DEV_TOKENS,
        maxEventLoopDelay: 0,
        healthCheckInterval: 50,
        closeDatabase: false,
      })
      t.teardown(() => shedding.close())
      const get = () =>
        shedding.inject({ method: 'GET', url: '/v1/books/1', headers: { authorization: READ } })
      await until(async () => (await get()).statusCode === 503, 'the failed ping sheds requests')
      const shed = await get()
      t.equal(shed.statusCode, 503)
      t.equal(shed.headers['retry-after'], '10')
      t.equal(shed.json().error.code, 'OVERLOADED')
    },
  )
})
