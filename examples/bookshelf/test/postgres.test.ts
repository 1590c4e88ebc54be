/** The bookshelf on a real PostgreSQL server (POSTGRES_URL, or a private cluster), over a real socket. */
import { test } from 'tap'
import { startPostgres } from '../../../test/helpers/services.js'
import { allConventions } from './conventions.js'
import { READ, start } from './helpers.js'

test('every convention on PostgreSQL; 503 when the server goes away', async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.stop())
  // A database of its own, so a shared POSTGRES_URL (CI) starts from an empty schema.
  const admin = new URL(postgres.url)
  const name = `bookshelf_${process.pid}_${Date.now()}`
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  await client.query(`create database ${name}`)
  await client.end()
  const url = new URL(postgres.url)
  url.pathname = `/${name}`
  t.teardown(async () => {
    const cleanup = new pg.Client({ connectionString: admin.toString() })
    try {
      await cleanup.connect()
      await cleanup.query(`drop database if exists ${name} with (force)`)
    } catch {
      // The private server was stopped on purpose (the 503 test): nothing left to drop.
    } finally {
      await cleanup.end().catch(() => {})
    }
  })

  const running = await start(t, { databaseUrl: url.toString() })
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
