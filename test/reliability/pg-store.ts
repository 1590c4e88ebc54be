/**
 * A BookStore on PostgreSQL, for several instances sharing one database. The connection comes
 * from the bookshelf example's `openDatabase` (which owns the `pg` dependency).
 */
import { type Database, openDatabase } from '../../examples/bookshelf/src/db.js'
import type { Book, BookInput, BookStore } from './app.js'

interface Row {
  id: number
  title: string
  year: number
  tags: string[]
  version: number
  updated_at: string
}

const toBook = (r: Row): Book => ({
  id: Number(r.id),
  title: r.title,
  year: Number(r.year),
  tags: r.tags,
  version: Number(r.version),
  updatedAt: new Date(r.updated_at).toISOString(),
})

export async function openPostgres(url: string): Promise<Database> {
  return openDatabase({ databaseUrl: url })
}

/** Creates `table` (dropping an older one) and seeds it with `seed` books. */
export async function createBooksTable(db: Database, table: string, seed = 10): Promise<void> {
  await db.query(`drop table if exists ${table}`)
  await db.query(
    `create table ${table} (id serial primary key, title text not null, year int not null, tags jsonb not null default '[]',
     version int not null default 1, updated_at timestamptz not null default date_trunc('second', now()))`,
  )
  for (let i = 0; i < seed; i++) {
    await db.query(`insert into ${table} (title, year, tags) values ($1, $2, $3)`, [
      `Seed ${i}`,
      1900 + i,
      JSON.stringify(['seed']),
    ])
  }
}

export function pgStore(db: Database, table: string): BookStore {
  const cols = 'id, title, year, tags, version, updated_at'
  return {
    all: async () =>
      (await db.query<Row>(`select ${cols} from ${table} order by id`)).rows.map(toBook),
    get: async (id) => {
      const row = (await db.query<Row>(`select ${cols} from ${table} where id = $1`, [id])).rows[0]
      return row && toBook(row)
    },
    create: async (input: BookInput) =>
      toBook(
        (
          await db.query<Row>(
            `insert into ${table} (title, year, tags) values ($1, $2, $3) returning ${cols}`,
            [input.title, input.year, JSON.stringify(input.tags)],
          )
        ).rows[0]!,
      ),
    replace: async (id, input, expected) => {
      const row = (
        await db.query<Row>(
          `update ${table} set title = $2, year = $3, tags = $4, version = version + 1, updated_at = date_trunc('second', now())
           where id = $1 and version = $5 returning ${cols}`,
          [id, input.title, input.year, JSON.stringify(input.tags), expected],
        )
      ).rows[0]
      if (row !== undefined) return toBook(row)
      const exists = await db.query(`select 1 from ${table} where id = $1`, [id])
      return exists.rows.length === 0 ? 'missing' : 'conflict'
    },
    remove: async (id) =>
      (await db.query(`delete from ${table} where id = $1 returning id`, [id])).rows.length > 0,
  }
}
