/** SQL for the bookshelf's resources. Every function takes the database (or a transaction). */
import { searchCondition } from './search-sql.js'
import type { Queryable } from './db.js'
import type { Author, AuthorInput, Book, BookInput, BookStatus, BookV2 } from './schemas.js'

/** Which rows a soft-delete aware query returns (`request.softDelete.include`). */
export type Inclusion = 'active' | 'all' | 'deleted'

export interface SortKey {
  field: string
  direction: 'asc' | 'desc'
}

export interface ListQuery {
  filters: { status?: BookStatus | undefined; authorId?: number | undefined }
  sort: readonly SortKey[]
  limit: number
  offset: number
  include: Inclusion
}

/** A stored row's version and modification time: the validators of its representations. */
export interface Stamp {
  version: number
  updatedAt: Date
}

export interface Stored<T> {
  resource: T
  stamp: Stamp
}

type Timestamp = Date | string

interface BookRow {
  id: number
  title: string
  isbn: string
  status: BookStatus
  author_id: number
  published_at: string | null
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Timestamp | null
  version: number
}

interface AuthorRow {
  id: number
  name: string
  bio: string | null
  created_at: Timestamp
  updated_at: Timestamp
  version: number
}

const iso = (value: Timestamp): string => new Date(value).toISOString()

const BOOK_COLUMNS = `id, title, isbn, status, author_id, to_char(published_at, 'YYYY-MM-DD') as published_at,
  created_at, updated_at, deleted_at, version`
const AUTHOR_COLUMNS = 'id, name, bio, created_at, updated_at, version'

/** Sortable representation fields → columns (the only names that reach SQL). */
const BOOK_SORT_COLUMNS: Readonly<Record<string, string>> = {
  title: 'title',
  publishedAt: 'published_at',
  createdAt: 'created_at',
}
const AUTHOR_SORT_COLUMNS: Readonly<Record<string, string>> = {
  name: 'name',
  createdAt: 'created_at',
}

function toBook(row: BookRow): Stored<Book> {
  const book: Book = {
    id: row.id,
    title: row.title,
    isbn: row.isbn,
    status: row.status,
    authorId: row.author_id,
    ...(row.published_at === null ? {} : { publishedAt: row.published_at }),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    ...(row.deleted_at === null ? {} : { deleted: true, deletedAt: iso(row.deleted_at) }),
  }
  return { resource: book, stamp: { version: row.version, updatedAt: new Date(row.updated_at) } }
}

function toAuthor(row: AuthorRow): Stored<Author> {
  const author: Author = {
    id: row.id,
    name: row.name,
    ...(row.bio === null ? {} : { bio: row.bio }),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  }
  return { resource: author, stamp: { version: row.version, updatedAt: new Date(row.updated_at) } }
}

function orderBy(sort: readonly SortKey[], columns: Readonly<Record<string, string>>): string {
  const terms = sort.flatMap((key) => {
    const column = columns[key.field]
    return column === undefined ? [] : [`${column} ${key.direction === 'desc' ? 'desc' : 'asc'}`]
  })
  return [...terms, 'id asc'].join(', ')
}

function inclusionCondition(include: Inclusion): string {
  if (include === 'all') return 'true'
  return include === 'deleted' ? 'deleted_at is not null' : 'deleted_at is null'
}

// ---------- books ----------

export async function listBooks(
  db: Queryable,
  query: ListQuery,
): Promise<{ items: Book[]; total: number }> {
  // The filters of a GET are the equalities of the QUERY language.
  const filters = Object.fromEntries(
    Object.entries(query.filters).filter(([, value]) => value !== undefined),
  )
  const params: unknown[] = []
  return pageOfBooks(db, { ...query, where: searchCondition(filters, params), params })
}

/**
 * One page of the books that meet every condition of `where` (SQL whose values are all in
 * `params`, as `$1`...), with the total.
 */
export async function pageOfBooks(
  db: Queryable,
  query: Omit<ListQuery, 'filters'> & { where: readonly string[]; params: unknown[] },
): Promise<{ items: Book[]; total: number }> {
  const { params } = query
  const condition = [inclusionCondition(query.include), ...query.where].join(' and ')
  const counted = await db.query<{ total: number | string }>(
    `select count(*)::int as total from books where ${condition}`,
    params,
  )
  const total = Number(counted.rows[0]?.total ?? 0)
  const rows = await db.query<BookRow>(
    `select ${BOOK_COLUMNS} from books where ${condition}
     order by ${orderBy(query.sort, BOOK_SORT_COLUMNS)}
     limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, query.limit, query.offset],
  )
  return { items: rows.rows.map((row) => toBook(row).resource), total }
}

/** `lock`: inside a transaction, hold the row until it ends (`for update`), so writers queue. */
export async function findBook(
  db: Queryable,
  id: number,
  lock = false,
): Promise<Stored<Book> | undefined> {
  const result = await db.query<BookRow>(
    `select ${BOOK_COLUMNS} from books where id = $1${lock ? ' for update' : ''}`,
    [id],
  )
  const row = result.rows[0]
  return row === undefined ? undefined : toBook(row)
}

export async function bookStamp(db: Queryable, id: number): Promise<Stamp | undefined> {
  const result = await db.query<{ version: number; updated_at: Timestamp }>(
    'select version, updated_at from books where id = $1',
    [id],
  )
  const row = result.rows[0]
  return row === undefined
    ? undefined
    : { version: row.version, updatedAt: new Date(row.updated_at) }
}

export async function insertBook(db: Queryable, input: BookInput): Promise<Stored<Book>> {
  const result = await db.query<BookRow>(
    `insert into books (title, isbn, status, author_id, published_at)
     values ($1, $2, $3, $4, $5) returning ${BOOK_COLUMNS}`,
    [
      input.title,
      input.isbn,
      input.status ?? 'available',
      input.authorId,
      input.publishedAt ?? null,
    ],
  )
  return toBook(result.rows[0] as BookRow)
}

/** The writable fields of a book, as stored. */
export interface BookFields {
  title: string
  isbn: string
  status: BookStatus
  authorId: number
  publishedAt?: string | undefined
}

/** Replaces the writable fields, bumps the version; `undefined` when the row is gone. */
export async function updateBook(
  db: Queryable,
  id: number,
  fields: BookFields,
  deleted: 'keep' | 'restore' = 'keep',
): Promise<Stored<Book> | undefined> {
  const result = await db.query<BookRow>(
    `update books set title = $2, isbn = $3, status = $4, author_id = $5, published_at = $6,
       deleted_at = ${deleted === 'restore' ? 'null' : 'deleted_at'},
       updated_at = now(), version = version + 1
     where id = $1 returning ${BOOK_COLUMNS}`,
    [id, fields.title, fields.isbn, fields.status, fields.authorId, fields.publishedAt ?? null],
  )
  const row = result.rows[0]
  return row === undefined ? undefined : toBook(row)
}

/** Marks the book deleted (once: a second call keeps the first `deleted_at` and version). */
export async function softDeleteBook(db: Queryable, id: number): Promise<Stored<Book> | undefined> {
  await db.query(
    `update books set deleted_at = now(), updated_at = now(), version = version + 1
     where id = $1 and deleted_at is null`,
    [id],
  )
  return findBook(db, id)
}

// ---------- authors ----------

export async function listAuthors(
  db: Queryable,
  query: Pick<ListQuery, 'sort' | 'limit' | 'offset'>,
): Promise<{ items: Author[]; total: number }> {
  const counted = await db.query<{ total: number | string }>(
    'select count(*)::int as total from authors',
  )
  const rows = await db.query<AuthorRow>(
    `select ${AUTHOR_COLUMNS} from authors order by ${orderBy(query.sort, AUTHOR_SORT_COLUMNS)}
     limit $1 offset $2`,
    [query.limit, query.offset],
  )
  return {
    items: rows.rows.map((row) => toAuthor(row).resource),
    total: Number(counted.rows[0]?.total ?? 0),
  }
}

export async function findAuthor(
  db: Queryable,
  id: number,
  lock = false,
): Promise<Stored<Author> | undefined> {
  const result = await db.query<AuthorRow>(
    `select ${AUTHOR_COLUMNS} from authors where id = $1${lock ? ' for update' : ''}`,
    [id],
  )
  const row = result.rows[0]
  return row === undefined ? undefined : toAuthor(row)
}

export async function authorStamp(db: Queryable, id: number): Promise<Stamp | undefined> {
  const result = await db.query<{ version: number; updated_at: Timestamp }>(
    'select version, updated_at from authors where id = $1',
    [id],
  )
  const row = result.rows[0]
  return row === undefined
    ? undefined
    : { version: row.version, updatedAt: new Date(row.updated_at) }
}

export async function insertAuthor(db: Queryable, input: AuthorInput): Promise<Stored<Author>> {
  const result = await db.query<AuthorRow>(
    `insert into authors (name, bio) values ($1, $2) returning ${AUTHOR_COLUMNS}`,
    [input.name, input.bio ?? null],
  )
  return toAuthor(result.rows[0] as AuthorRow)
}

export async function updateAuthor(
  db: Queryable,
  id: number,
  input: AuthorInput,
): Promise<Stored<Author> | undefined> {
  const result = await db.query<AuthorRow>(
    `update authors set name = $2, bio = $3, updated_at = now(), version = version + 1
     where id = $1 returning ${AUTHOR_COLUMNS}`,
    [id, input.name, input.bio ?? null],
  )
  const row = result.rows[0]
  return row === undefined ? undefined : toAuthor(row)
}

/** Deletes an author without books; `'has-books'` when some book (even soft-deleted) refers to it. */
export async function deleteAuthor(
  db: Queryable,
  id: number,
): Promise<'deleted' | 'missing' | 'has-books'> {
  const books = await db.query<{ n: number | string }>(
    'select count(*)::int as n from books where author_id = $1',
    [id],
  )
  if (Number(books.rows[0]?.n ?? 0) > 0) return 'has-books'
  const result = await db.query<{ id: number }>('delete from authors where id = $1 returning id', [
    id,
  ])
  return result.rows.length === 0 ? 'missing' : 'deleted'
}

// ---------- covers ----------

export interface Cover {
  contentType: string
  data: Buffer
  updatedAt: Date
}

function toBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value)
    ? value
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength)
}

export async function findCover(db: Queryable, bookId: number): Promise<Cover | undefined> {
  const result = await db.query<{ content_type: string; data: Uint8Array; updated_at: Timestamp }>(
    'select content_type, data, updated_at from book_covers where book_id = $1',
    [bookId],
  )
  const row = result.rows[0]
  return row === undefined
    ? undefined
    : {
        contentType: row.content_type,
        data: toBuffer(row.data),
        updatedAt: new Date(row.updated_at),
      }
}

/** Stores the cover; true when it replaced an existing one. */
export async function saveCover(
  db: Queryable,
  bookId: number,
  contentType: string,
  data: Buffer,
): Promise<{ replaced: boolean; updatedAt: Date }> {
  const result = await db.query<{ inserted: boolean; updated_at: Timestamp }>(
    `insert into book_covers (book_id, content_type, data) values ($1, $2, $3)
     on conflict (book_id) do update set content_type = excluded.content_type, data = excluded.data, updated_at = now()
     returning (xmax = 0) as inserted, updated_at`,
    [bookId, contentType, data],
  )
  const row = result.rows[0] as { inserted: boolean; updated_at: Timestamp }
  return { replaced: !row.inserted, updatedAt: new Date(row.updated_at) }
}

// ---------- version 2 ----------

interface BookV2Row extends BookRow {
  author_name: string
}

function toBookV2(row: BookV2Row): BookV2 {
  return {
    id: row.id,
    title: row.title,
    isbn: row.isbn,
    status: row.status,
    author: { id: row.author_id, name: row.author_name },
    ...(row.published_at === null
      ? {}
      : { published: { date: row.published_at, year: Number(row.published_at.slice(0, 4)) } }),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  }
}

const BOOK_V2_SELECT = `select b.id, b.title, b.isbn, b.status, b.author_id,
  to_char(b.published_at, 'YYYY-MM-DD') as published_at, b.created_at, b.updated_at, b.deleted_at,
  b.version, a.name as author_name
  from books b join authors a on a.id = b.author_id`

export async function listBooksV2(
  db: Queryable,
  query: Omit<ListQuery, 'include'>,
): Promise<{ items: BookV2[]; total: number }> {
  const where = ['b.deleted_at is null']
  const params: unknown[] = []
  if (query.filters.status !== undefined) {
    params.push(query.filters.status)
    where.push(`b.status = $${params.length}`)
  }
  if (query.filters.authorId !== undefined) {
    params.push(query.filters.authorId)
    where.push(`b.author_id = $${params.length}`)
  }
  const condition = where.join(' and ')
  const counted = await db.query<{ total: number | string }>(
    `select count(*)::int as total from books b where ${condition}`,
    params,
  )
  const order = orderBy(query.sort, BOOK_SORT_COLUMNS)
    .split(', ')
    .map((term) => `b.${term}`)
    .join(', ')
  const rows = await db.query<BookV2Row>(
    `${BOOK_V2_SELECT} where ${condition} order by ${order}
     limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, query.limit, query.offset],
  )
  return { items: rows.rows.map(toBookV2), total: Number(counted.rows[0]?.total ?? 0) }
}

export async function findBookV2(
  db: Queryable,
  id: number,
): Promise<{ resource: BookV2; deleted: boolean } | undefined> {
  const result = await db.query<BookV2Row>(`${BOOK_V2_SELECT} where b.id = $1`, [id])
  const row = result.rows[0]
  return row === undefined
    ? undefined
    : {
        resource: toBookV2(row),
        deleted: row.deleted_at !== null,
      }
}

/**
 * What a version 2 book is made of: its own row's stamp and its author's, which it embeds;
 * `undefined` for a book that does not exist or is soft-deleted (version 2 does not show those).
 */
export async function bookV2Stamps(
  db: Queryable,
  id: number,
): Promise<{ book: Stamp; author: Stamp } | undefined> {
  const result = await db.query<{
    version: number
    updated_at: Timestamp
    author_version: number
    author_updated_at: Timestamp
  }>(
    `select b.version, b.updated_at, a.version as author_version, a.updated_at as author_updated_at
     from books b join authors a on a.id = b.author_id where b.id = $1 and b.deleted_at is null`,
    [id],
  )
  const row = result.rows[0]
  return row === undefined
    ? undefined
    : {
        book: { version: row.version, updatedAt: new Date(row.updated_at) },
        author: { version: row.author_version, updatedAt: new Date(row.author_updated_at) },
      }
}

// ---------- exports ----------

/**
 * Writes an export of the books the filter selects. With `jobId`, once per job: the export a
 * job already wrote (an earlier run of it) is kept and its id returned.
 */
export async function insertExport(
  db: Queryable,
  filter: { status?: BookStatus | undefined; authorId?: number | undefined },
  jobId?: string,
): Promise<number> {
  const { items } = await listBooks(db, {
    filters: filter,
    sort: [{ field: 'title', direction: 'asc' }],
    limit: 100_000,
    offset: 0,
    include: 'active',
  })
  const body = { filter, count: items.length, books: items }
  const result = await db.query<{ id: number }>(
    `insert into exports (body, job_id) values ($1, $2)
     on conflict (job_id) do update set job_id = excluded.job_id returning id`,
    [JSON.stringify(body), jobId ?? null],
  )
  return (result.rows[0] as { id: number }).id
}

export async function findExport(
  db: Queryable,
  id: number,
): Promise<{ id: number; createdAt: string; body: Record<string, unknown> } | undefined> {
  const result = await db.query<{ id: number; created_at: Timestamp; body: unknown }>(
    'select id, created_at, body from exports where id = $1',
    [id],
  )
  const row = result.rows[0]
  if (row === undefined) return undefined
  const body = (typeof row.body === 'string' ? JSON.parse(row.body) : row.body) as Record<
    string,
    unknown
  >
  return { id: row.id, createdAt: iso(row.created_at), body }
}
