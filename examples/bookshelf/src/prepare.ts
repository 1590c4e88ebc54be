/** Migrates and seeds the database, once, whichever process starts first: an API instance or a worker. */
import { migrate, type Database } from './db.js'
import { seed } from './seed.js'

/** The advisory lock that serializes the migrations of instances starting together. */
export const MIGRATION_LOCK = 7_301_992

/**
 * Migrates the database and seeds it when the schema was just created, all in one transaction
 * that first takes an advisory lock: instances started at once on an empty database wait for
 * the first to finish, then find the schema there (a half-applied schema is never seen).
 */
export async function prepareDatabase(
  db: Database,
): Promise<{ migrated: number; seeded: boolean }> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    const existing = await tx.query<{ n: number | string }>(
      "select count(*)::int as n from information_schema.tables where table_name = 'schema_migrations'",
    )
    const fresh = Number(existing.rows[0]?.n ?? 0) === 0
    const migrated = await migrate(tx)
    if (fresh) await seed(tx)
    return { migrated, seeded: fresh }
  })
}
