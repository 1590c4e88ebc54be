/**
 * The query language of `QUERY /v1/books` (RFC 10008): a JSON object with `where` (a condition
 * per field, all of them to hold) and `orderBy`. Its schema refuses an unknown field or operator
 * (422); `searchCondition` turns a valid one into an SQL condition whose values are all
 * parameters.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { BookStatus, DATE_PATTERN, Id, NO_NUL_PATTERN } from './schemas.js'
import { operatorsOf, searchCondition } from './search-sql.js'

/** Most values an `in` list takes. */
export const MAX_IN_VALUES = 50

const Text = Type.String({ minLength: 1, maxLength: 300, pattern: NO_NUL_PATTERN })
const Year = Type.Integer({ minimum: 1, maximum: 9999 })
const Day = Type.String({ format: 'date', pattern: DATE_PATTERN })

const operators = <P extends Record<string, TSchema>>(properties: P) =>
  Type.Object(properties, { additionalProperties: false, minProperties: 1 })

/** A value (equality), or `{ eq, contains }` (case-insensitive substring). */
const TextMatch = Type.Union([
  Text,
  operators({ eq: Type.Optional(Text), contains: Type.Optional(Text) }),
])

/** A value, or `{ eq, in }`. */
const OneOf = <T extends TSchema>(value: T) =>
  Type.Union([
    value,
    operators({
      eq: Type.Optional(value),
      in: Type.Optional(Type.Array(value, { minItems: 1, maxItems: MAX_IN_VALUES })),
    }),
  ])

/** A value, or bounds `{ eq, gt, gte, lt, lte }`. */
const Bounds = <T extends TSchema>(value: T) =>
  Type.Union([
    value,
    operators({
      eq: Type.Optional(value),
      gt: Type.Optional(value),
      gte: Type.Optional(value),
      lt: Type.Optional(value),
      lte: Type.Optional(value),
    }),
  ])

/** The fields `orderBy` can name: those `?sort=` takes on `GET /v1/books`. */
export const SearchOrderField = Type.Union([
  Type.Literal('title'),
  Type.Literal('publishedAt'),
  Type.Literal('createdAt'),
])

export const BookSearch = Type.Object(
  {
    where: Type.Optional(
      Type.Object(
        {
          title: Type.Optional(TextMatch),
          author: Type.Optional(TextMatch),
          authorId: Type.Optional(OneOf(Id())),
          status: Type.Optional(OneOf(BookStatus)),
          year: Type.Optional(Bounds(Year)),
          publishedAt: Type.Optional(Bounds(Day)),
        },
        { additionalProperties: false, description: 'Every condition holds (AND)' },
      ),
    ),
    orderBy: Type.Optional(
      Type.Array(
        Type.Object(
          {
            field: SearchOrderField,
            direction: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
          },
          { additionalProperties: false },
        ),
        { maxItems: 3, description: 'Then by id; by title when absent' },
      ),
    ),
  },
  {
    additionalProperties: false,
    title: 'BookSearch',
    description:
      'A query over the books: `where` (title and author: a value or `{eq, contains}`; authorId and status: `{eq, in}`; year and publishedAt: `{eq, gt, gte, lt, lte}`), `orderBy`.',
  },
)
export type BookSearch = Static<typeof BookSearch>
/** The conditions of a search, one per field. */
export type Where = NonNullable<BookSearch['where']>

export { searchCondition }

/**
 * The `GET /v1/books` query string that lists the same books (`status`, `authorId` and `sort`),
 * or undefined when `GET` cannot say it: another field, or an operator but equality.
 */
export function equivalentQuery(search: BookSearch): URLSearchParams | undefined {
  const query = new URLSearchParams()
  for (const [field, condition] of Object.entries(search.where ?? {})) {
    const [only, ...more] = operatorsOf(condition)
    if ((field !== 'status' && field !== 'authorId') || more.length > 0 || only?.[0] !== 'eq')
      return undefined
    query.set(field, String(only[1]))
  }
  const sort = (search.orderBy ?? []).map(
    (key) => `${key.direction === 'desc' ? '-' : ''}${key.field}`,
  )
  if (sort.length > 0) query.set('sort', sort.join(','))
  return query
}
