/** Atomic batches on a real PostgreSQL server (POSTGRES_URL, or a private cluster), over a real socket. */
import { test } from 'tap'
import { startPostgres } from '../../../test/helpers/services.js'
import { atomicRollsBack } from './batch-helpers.js'
import { freshDatabase, start } from './helpers.js'

test('atomic mode rolls back on PostgreSQL', async (t) => {
  const postgres = await startPostgres()
  t.teardown(() => postgres.stop())
  const fresh = await freshDatabase(postgres, 'batch')
  t.teardown(fresh.drop)
  await atomicRollsBack(t, await start(t, { databaseUrl: fresh.url }))
})
