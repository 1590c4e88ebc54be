/** TypeBox schemas of the bookshelf's representations and request bodies. */
import { type Static, type TSchema, Type } from '@sinclair/typebox'

/** ISBN-10 or ISBN-13: digits with optional hyphens (and a final X for ISBN-10). */
const ISBN_PATTERN = '^[0-9][0-9-]{8,15}[0-9Xx]$'

/*
 * What the schemas accept must be what PostgreSQL stores, or the database refuses it with a
 * data exception (SQLSTATE class 22) after validation has passed. Three such values:
 */

/** Largest id or reference: ids are PostgreSQL `integer` (int4) columns. */
export const MAX_ID = 2_147_483_647

/** Text without U+0000: PostgreSQL `text` cannot hold a NUL character (22021). */
export const NO_NUL_PATTERN = '^[^\\u0000]*$'

/**
 * A `YYYY-MM-DD` date from year 0001: RFC 3339's full-date allows year 0000, which PostgreSQL's
 * `date` does not have (22008). `format: 'date'` still checks the month and the day.
 */
export const DATE_PATTERN =
  '^([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})-[0-9]{2}-[0-9]{2}$'

/** A positive id or reference to one (an `integer` column). */
export const Id = (options: { readOnly?: boolean } = {}) =>
  Type.Integer({ minimum: 1, maximum: MAX_ID, ...options })

/** Text PostgreSQL can store, of at most `maxLength` characters. */
const Text = (options: { minLength?: number; maxLength: number }) =>
  Type.String({ ...options, pattern: NO_NUL_PATTERN })

/** A calendar date PostgreSQL can store. */
const DateOnly = (description?: string) =>
  Type.String({
    format: 'date',
    pattern: DATE_PATTERN,
    ...(description === undefined ? {} : { description }),
  })

export const BookStatus = Type.Union(
  [Type.Literal('available'), Type.Literal('checked-out'), Type.Literal('archived')],
  { description: 'Lending state of the copy' },
)
export type BookStatus = Static<typeof BookStatus>

const Timestamp = (description: string): TSchema =>
  Type.String({ format: 'date-time', readOnly: true, description })

export const Author = Type.Object(
  {
    id: Id({ readOnly: true }),
    name: Text({ minLength: 1, maxLength: 200 }),
    bio: Type.Optional(Text({ maxLength: 2000 })),
    createdAt: Timestamp('ISO 8601 UTC'),
    updatedAt: Timestamp('ISO 8601 UTC'),
  },
  { additionalProperties: false, title: 'Author' },
)
export type Author = Static<typeof Author>

export const AuthorInput = Type.Object(
  {
    name: Text({ minLength: 1, maxLength: 200 }),
    bio: Type.Optional(Text({ maxLength: 2000 })),
  },
  { additionalProperties: false, title: 'AuthorInput' },
)
export type AuthorInput = Static<typeof AuthorInput>

export const Book = Type.Object(
  {
    id: Id({ readOnly: true }),
    title: Text({ minLength: 1, maxLength: 300 }),
    isbn: Type.String({ pattern: ISBN_PATTERN }),
    status: BookStatus,
    statusLabel: Type.Optional(
      Type.String({ readOnly: true, description: 'the status in the negotiated language' }),
    ),
    authorId: Id(),
    publishedAt: Type.Optional(DateOnly('YYYY-MM-DD')),
    createdAt: Timestamp('ISO 8601 UTC'),
    updatedAt: Timestamp('ISO 8601 UTC'),
    deleted: Type.Optional(Type.Boolean({ description: 'true when soft-deleted' })),
    deletedAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'when it was soft-deleted (ISO 8601 UTC)' }),
    ),
  },
  { additionalProperties: false, title: 'Book' },
)
export type Book = Static<typeof Book>

export const BookInput = Type.Object(
  {
    title: Text({ minLength: 1, maxLength: 300 }),
    isbn: Type.String({ pattern: ISBN_PATTERN }),
    status: Type.Optional(BookStatus),
    authorId: Id(),
    publishedAt: Type.Optional(DateOnly()),
  },
  { additionalProperties: false, title: 'BookInput' },
)
export type BookInput = Static<typeof BookInput>

/** Version 2 of a book: the author is embedded, `publishedAt` became `published` (a year and a date). */
export const BookV2 = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    isbn: Type.String(),
    status: BookStatus,
    author: Type.Object({ id: Type.Integer(), name: Type.String() }),
    published: Type.Optional(
      Type.Object({ date: Type.String({ format: 'date' }), year: Type.Integer() }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, title: 'BookV2' },
)
export type BookV2 = Static<typeof BookV2>

export const ExportInput = Type.Object(
  {
    status: Type.Optional(BookStatus),
    authorId: Type.Optional(Id()),
  },
  { additionalProperties: false, title: 'ExportInput' },
)
export type ExportInput = Static<typeof ExportInput>

export const ExportDocument = Type.Object(
  {
    id: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
    filter: ExportInput,
    count: Type.Integer(),
    books: Type.Array(Book),
  },
  { title: 'Export' },
)

export const IdParams = Type.Object({ id: Id() })
export type IdParams = Static<typeof IdParams>

/** The envelope `reply.paginate()` sends: `{ data, meta, links }` (restwell's own schema). */
export { PageSchema as Page } from 'restwell'

/** A success answer without a body (204, or a 201 whose `Location` names what was made). */
export const NoBody = (description: string) => Type.Null({ description })

/** The job `reply.accepted()` answers 202 with; `Location` is its status resource. */
export const AcceptedJob = Type.Object(
  {
    jobId: Type.String(),
    status: Type.String(),
    estimatedTime: Type.Optional(Type.String({ description: 'ISO 8601 duration, e.g. PT5S' })),
  },
  {
    additionalProperties: true,
    description: 'Accepted: the job; `Location` is its status resource',
  },
)
