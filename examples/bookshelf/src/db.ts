/**
 * The bookshelf's database: PostgreSQL, embedded (PGlite, data in a folder) by default, or a real
 * server when DATABASE_URL is set. Migrations run on start; seed data on first start.
 */
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'

/** Runs SQL; PGlite, a pg.Pool and a transaction's client all can. */
export interface Queryable {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>
}

/** The database the app uses. */
export interface Database extends Queryable {
  /** Runs `work` in one transaction on one connection: committed when it resolves. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>
  close(): Promise<void>
  /** `pglite:<folder>` or the server URL without its password. */
  readonly description: string
}

/** Thrown when the data folder or DATABASE_URL cannot be used; the message says what to do. */
export class DatabaseUnavailableError extends Error {
  override readonly name: string = 'DatabaseUnavailableError'
}

/** The URL without its password (for messages). */
export function redact(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(an unparseable URL)'
  }
}

/** `close` may be called more than once (the app's onClose and a test); the first call counts. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined
  return () => {
    closing ??= close()
    return closing
  }
}

/** Opens PGlite in `dataDir`, or the server at `databaseUrl` when given. */
export async function openDatabase(options: {
  databaseUrl?: string | undefined
  dataDir?: string | undefined
}): Promise<Database> {
  if (options.databaseUrl !== undefined && options.databaseUrl !== '') {
    const url = options.databaseUrl
    const { default: pg } = await import('pg')
    const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 })
    // An idle connection the server dropped (restart, failover) emits 'error' on the pool; left
    // unhandled it would crash the process. The pool discards that client, and the next query
    // opens a new connection (or fails and is answered 503).
    pool.on('error', () => {})
    try {
      await pool.query('select 1')
    } catch (error) {
      await pool.end()
      throw new DatabaseUnavailableError(
        `Cannot connect to DATABASE_URL ${redact(url)}: ${(error as Error).message}`,
      )
    }
    const run =
      (client: { query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }> }) =>
      async <T>(text: string, params?: unknown[]) => ({
        rows: (await client.query(text, params)).rows as T[],
      })
    return {
      description: redact(url),
      query: run(pool),
      transaction: async (work) => {
        const client = await pool.connect()
        try {
          await client.query('begin')
          const result = await work({ query: run(client) })
          await client.query('commit')
          return result
        } catch (error) {
          await client.query('rollback')
          throw error
        } finally {
          client.release()
        }
      },
      close: once(() => pool.end()),
    }
  }
  const dataDir = resolve(options.dataDir ?? 'data/pglite')
  try {
    mkdirSync(dataDir, { recursive: true })
  } catch (error) {
    throw new DatabaseUnavailableError(
      `Cannot use the data folder ${dataDir}: ${(error as Error).message}. Set BOOKSHELF_DATA_DIR to a writable folder, or DATABASE_URL to a PostgreSQL server.`,
    )
  }
  const { PGlite } = await import('@electric-sql/pglite')
  let db: InstanceType<typeof PGlite>
  try {
    db = await PGlite.create(dataDir)
  } catch (error) {
    throw new DatabaseUnavailableError(
      `Cannot open the embedded database in ${dataDir}: ${(error as Error).message}. Remove the folder to start afresh, or set DATABASE_URL.`,
    )
  }
  return {
    description: `pglite:${dataDir}`,
    query: async <T>(text: string, params?: unknown[]) => ({
      rows: (await db.query<T>(text, params)).rows,
    }),
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: async <T>(text: string, params?: unknown[]) => ({
            rows: (await tx.query<T>(text, params)).rows,
          }),
        }),
      ),
    close: once(() => db.close()),
  }
}

/** Each migration runs once, in order, inside a transaction. */
export const MIGRATIONS: readonly string[] = [
  `create table authors (
     id serial primary key,
     name text not null,
     bio text,
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     version integer not null default 1
   );
   create table books (
     id serial primary key,
     title text not null,
     isbn text not null unique,
     status text not null default 'available' check (status in ('available', 'checked-out', 'archived')),
     author_id integer not null references authors (id),
     published_at date,
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     deleted_at timestamptz,
     version integer not null default 1
   );
   create index books_author_id on books (author_id);
   create table book_covers (
     book_id integer primary key references books (id),
     content_type text not null,
     data bytea not null,
     updated_at timestamptz not null default now()
   );
   create table exports (
     id serial primary key,
     created_at timestamptz not null default now(),
     body jsonb not null
   );`,
  // The job that wrote an export: a job run twice (its worker died after writing) writes one.
  `alter table exports add column job_id text unique`,
]

/** Applies the migrations not yet applied, in the caller's transaction; returns how many ran. */
export async function migrate(tx: Queryable): Promise<number> {
  await tx.query(
    'create table if not exists schema_migrations (version integer primary key, applied_at timestamptz not null default now())',
  )
  const done = await tx.query<{ version: number }>('select version from schema_migrations')
  const applied = new Set(done.rows.map((r) => r.version))
  let ran = 0
  for (const [index, sql] of MIGRATIONS.entries()) {
    const version = index + 1
    if (applied.has(version)) continue
    for (const statement of sql
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)) {
      await tx.query(statement)
    }
    await tx.query('insert into schema_migrations (version) values ($1)', [version])
    ran++
  }
  return ran
}
