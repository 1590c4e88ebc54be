/** The bookshelf on a real PostgreSQL server (POSTGRES_URL, or a private cluster), over a real socket. */
import { test } from 'tap'
import { startPostgres } from '../../../test/helpers/services.js'
import { prepareDatabase } from '../src/app.js'
import { openDatabase } from '../src/db.js'
import { allConventions } from './conventions.js'
import { freshDatabase, READ, start } from './helpers.js'

test('instances starting at once on an empty database migrate and seed it once', async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.stop())
  const fresh = await freshDatabase(postgres, 'race')
  t.teardown(fresh.drop)
  const dbs = await Promise.all([1, 2, 3, 4].map(() => openDatabase({ databaseUrl: fresh.url })))
  t.teardown(() => Promise.all(dbs.map((db) => db.close())))
  const results = await Promise.all(dbs.map((db) => prepareDatabase(db)))
  t.equal(results.filter((r) => r.seeded).length, 1, 'one instance seeded')
  t.equal(results.filter((r) => r.migrated > 0).length, 1, 'one instance migrated')
  const [db] = dbs
  const authors = await db!.query<{ n: number; distinct: number }>(
    'select count(*)::int as n, count(distinct name)::int as distinct from authors',
  )
  t.ok(authors.rows[0]!.n > 0)
  t.equal(authors.rows[0]!.n, authors.rows[0]!.distinct, 'the seed was written once')
  t.same(
    await prepareDatabase(db!),
    { migrated: 0, seeded: false },
    'a later start changes nothing',
  )
})

test('every convention on PostgreSQL; 503 when the server goes away', async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.stop())
  const fresh = await freshDatabase(postgres, 'all')
  t.teardown(fresh.drop)
  const running = await start(t, { databaseUrl: fresh.url })
  t.match(running.db.description, /^postgres(ql)?:\/\//)
  await allConventions(t, running)

  if (process.env.POSTGRES_URL === undefined || process.env.POSTGRES_URL === '') {
    await t.test('503 with Retry-After when the server is gone', async (t) => {
      await postgres.stop()
      const down = await running.call('GET', '/v1/books/1', { headers: { authorization: READ } })
      t.equal(down.status, 503)
      t.equal(down.headers.get('retry-after'), '5')
      t.equal(
        ((await down.json()) as { error: { code: string } }).error.code,
        'DATABASE_UNAVAILABLE',
      )
    })
  }
})
