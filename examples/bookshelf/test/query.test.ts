/**
 * `QUERY /v1/books` (RFC 10008) over a real socket on PGlite: the query language, pages like the
 * GET list's, `Location` naming the GET that lists the same books, the ETag and its 304, and the
 * refusals (400, 415, 422). The language itself: a property test against a model of it.
 */
import fc from 'fast-check'
import { test } from 'tap'
import { type BookSearch, equivalentQuery, searchCondition } from '../src/book-search.js'
import { prepareDatabase } from '../src/app.js'
import { openDatabase } from '../src/db.js'
import { type Inclusion, pageOfBooks } from '../src/repository.js'
import type { Book } from '../src/schemas.js'
import { READ, start, tempDir } from './helpers.js'

type PageBody = {
  data: Book[]
  meta: { total: number; totalPages: number; page: number; limit: number }
  links: Record<string, string>
}
type ErrorBody = { error: { code: string; details: { field: string }[] } }

const ids = (page: PageBody): number[] => page.data.map((book) => book.id)

test('QUERY /v1/books: the query language, pages, Location, ETag and 304, refusals', async (t) => {
  const { call, json } = await start(t, { dataDir: tempDir(t) })
  const query = (body: unknown, path = '/v1/books', headers: Record<string, string> = {}) =>
    call('QUERY', path, { headers: { authorization: READ, ...headers }, body })

  await t.test('where and orderBy', async (t) => {
    const recent = await query({
      where: { year: { gte: 1970 } },
      orderBy: [{ field: 'publishedAt', direction: 'desc' }],
    })
    t.equal(recent.status, 200)
    t.equal(recent.headers.get('location'), null, 'no GET lists books by year')
    t.same(ids(await json<PageBody>(recent)), [5, 4, 3], 'published in 1970 or later, newest first')

    const byName = await json<PageBody>(await query({ where: { author: { contains: 'le gu' } } }))
    t.same(ids(byName), [2, 3, 1], "an author's name, any case; by title")
    const titled = await json<PageBody>(await query({ where: { title: 'solaris' } }))
    t.same(ids(titled), [6], 'a title, any case')
    const statuses = await json<PageBody>(
      await query({ where: { status: { in: ['archived', 'checked-out'] } } }),
    )
    t.same(ids(statuses), [2, 5, 7])
    const sixties = await json<PageBody>(
      await query({
        where: { publishedAt: { gte: '1960-01-01', lt: '1970-01-01' }, authorId: { in: [1, 3] } },
        orderBy: [{ field: 'publishedAt' }],
      }),
    )
    t.same(ids(sixties), [6, 2, 1], 'bounds on a date, and a list of authors')
    const everything = await json<PageBody>(await query({}))
    t.equal(everything.meta.total, 7, 'an empty query: every book')
  })

  await t.test('paged like the GET list; Location is the GET listing the same books', async (t) => {
    const body = { where: { status: 'available' }, orderBy: [{ field: 'title' }] }
    const first = await query(body, '/v1/books?limit=2')
    t.equal(first.status, 200)
    t.equal(first.headers.get('x-total-count'), '4')
    const page = await json<PageBody>(first)
    t.same(ids(page), [4, 6])
    t.same([page.meta.page, page.meta.totalPages, page.meta.limit], [1, 2, 2])
    const location = first.headers.get('location') ?? ''
    t.equal(location, '/v1/books?limit=2&status=available&sort=title')
    const get = await call('GET', location, { headers: { authorization: READ } })
    t.same(ids(await json<PageBody>(get)), ids(page), 'the GET at Location lists the same page')
    const second = await json<PageBody>(await query(body, '/v1/books?limit=2&page=2'))
    t.same(ids(second), [3, 1])
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1] ?? ''
    t.match(next, /^\/v1\/books\?.*status=available/, 'the next page: a GET under Location')
    const followed = await call('GET', next, { headers: { authorization: READ } })
    t.same(ids(await json<PageBody>(followed)), [3, 1], 'which a GET follows')

    // No GET says "by year": the links are the QUERY's own URL, sent again with the query.
    const byYear = { where: { year: { lt: 1970 } } }
    const own = await query(byYear, '/v1/books?limit=2')
    const again = /<([^>]+)>; rel="next"/.exec(own.headers.get('link') ?? '')?.[1] ?? ''
    t.match(again, /^\/v1\/books\?(?=.*page=2)(?=.*limit=2)/)
    t.same(ids(await json<PageBody>(await query(byYear, again))), [1], 'a QUERY follows it')

    const equal = await query({ where: { authorId: { eq: 3 }, status: 'available' } })
    t.equal(equal.headers.get('location'), '/v1/books?authorId=3&status=available')
    const sorted = await query({ orderBy: [{ field: 'createdAt', direction: 'desc' }] })
    t.equal(sorted.headers.get('location'), '/v1/books?sort=-createdAt')
    for (const where of [{ status: { in: ['available'] } }, { title: 'Solaris' }]) {
      const none = await query({ where })
      t.equal(none.headers.get('location'), null, `no GET equivalent: ${JSON.stringify(where)}`)
    }
    const sort = await query({}, '/v1/books?sort=title')
    t.equal(sort.status, 400, "`?sort=` is the GET list's: a QUERY orders by `orderBy`")
  })

  await t.test('an ETag over the query; If-None-Match: 304', async (t) => {
    const body = { where: { authorId: 2 } }
    const answered = await query(body)
    const etag = answered.headers.get('etag')
    t.match(etag, /^"/, 'a strong ETag')
    const again = await query(body, '/v1/books', { 'if-none-match': etag ?? '' })
    t.equal(again.status, 304)
    t.equal(await again.text(), '')
    const other = await query({ where: { authorId: 3 } }, '/v1/books', {
      'if-none-match': etag ?? '',
    })
    t.equal(other.status, 200, 'another query: not that tag')
    t.not(other.headers.get('etag'), etag)
  })

  await t.test('refusals: 400 malformed, 415 with Accept-Query, 422 unknown', async (t) => {
    const malformed = await call('QUERY', '/v1/books', {
      headers: { authorization: READ },
      body: '{"where": ',
    })
    t.equal(malformed.status, 400)
    const csv = await call('QUERY', '/v1/books', {
      headers: { authorization: READ },
      body: 'status,available',
      type: 'text/csv',
    })
    t.equal(csv.status, 415)
    t.match(csv.headers.get('accept-query'), /application\/json/)
    for (const [where, field] of [
      [{ year: { between: [1960, 1970] } }, 'body/where/year'],
      [{ colour: 'red' }, 'body/where'],
      [{ status: 'lost' }, 'body/where/status'],
      [{ authorId: { in: [] } }, 'body/where/authorId'],
    ] as const) {
      const refused = await query({ where })
      t.equal(refused.status, 422, JSON.stringify(where))
      const { error } = await json<ErrorBody>(refused)
      t.ok(
        error.details.some((detail) => detail.field.startsWith(field)),
        `${JSON.stringify(where)}: names ${field}`,
      )
    }
    const order = await query({ orderBy: [{ field: 'isbn' }] })
    t.equal(order.status, 422, 'orderBy: a field GET cannot sort by either')
    const options = await call('OPTIONS', '/v1/books', { headers: { authorization: READ } })
    t.match(options.headers.get('allow'), /QUERY/)
    t.match(options.headers.get('accept-query'), /application\/json/)
  })
})

/** What a query means, over books in memory: the model the SQL must agree with. */
function holds(book: Book & { author: string }, where: NonNullable<BookSearch['where']>): boolean {
  const text = (value: string, condition: unknown): boolean => {
    const ops =
      typeof condition === 'string' ? { eq: condition } : (condition as Record<string, string>)
    return Object.entries(ops).every(([op, v]) =>
      op === 'eq'
        ? value.toLowerCase() === v.toLowerCase()
        : value.toLowerCase().includes(v.toLowerCase()),
    )
  }
  const compare = (value: string | number | undefined, condition: unknown): boolean => {
    const ops =
      typeof condition === 'object' && condition !== null
        ? (condition as Record<string, unknown>)
        : { eq: condition }
    return Object.entries(ops).every(([op, v]) => {
      if (op === 'in') return (v as unknown[]).includes(value)
      if (value === undefined) return false
      const [a, b] = [value, v as string | number]
      return op === 'eq'
        ? a === b
        : op === 'gt'
          ? a > b
          : op === 'gte'
            ? a >= b
            : op === 'lt'
              ? a < b
              : a <= b
    })
  }
  const year = book.publishedAt === undefined ? undefined : Number(book.publishedAt.slice(0, 4))
  return (
    (where.title === undefined || text(book.title, where.title)) &&
    (where.author === undefined || text(book.author, where.author)) &&
    (where.authorId === undefined || compare(book.authorId, where.authorId)) &&
    (where.status === undefined || compare(book.status, where.status)) &&
    (where.year === undefined || compare(year, where.year)) &&
    (where.publishedAt === undefined || compare(book.publishedAt, where.publishedAt))
  )
}

test('the query language: the SQL finds what the model says, every value a parameter', async (t) => {
  const db = await openDatabase({ dataDir: tempDir(t) })
  t.teardown(() => db.close())
  await prepareDatabase(db)
  const all = await pageOfBooks(db, {
    where: [],
    params: [],
    sort: [],
    limit: 100,
    offset: 0,
    include: 'active' as Inclusion,
  })
  const names = new Map(
    (await db.query<{ id: number; name: string }>('select id, name from authors')).rows.map(
      (row) => [row.id, row.name],
    ),
  )
  const books = all.items.map((book) => ({ ...book, author: names.get(book.authorId) ?? '' }))

  // Values from the data, their cases changed, and hostile text: quotes, SQL, LIKE wildcards.
  const word = fc.oneof(
    fc.constantFrom(...books.flatMap((b) => [b.title, b.author, b.title.slice(2, 7)])),
    fc.constantFrom("O'Brien", "'; drop table books; --", '%', '_', 'le gu', '$1', 'ß'),
    fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\u0000')),
  )
  const textMatch = fc.oneof(
    word,
    fc
      .record({ eq: word, contains: word }, { requiredKeys: [] })
      .filter((o) => Object.keys(o).length > 0),
  )
  const oneOf = <T>(value: fc.Arbitrary<T>) =>
    fc.oneof(
      value,
      fc
        .record(
          { eq: value, in: fc.array(value, { minLength: 1, maxLength: 4 }) },
          { requiredKeys: [] },
        )
        .filter((o) => Object.keys(o).length > 0),
    )
  const bounds = <T>(value: fc.Arbitrary<T>) =>
    fc.oneof(
      value,
      fc
        .record({ eq: value, gt: value, gte: value, lt: value, lte: value }, { requiredKeys: [] })
        .filter((o) => Object.keys(o).length > 0),
    )
  const day = fc
    .date({ min: new Date('1950-01-01'), max: new Date('2000-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10))
  const where = fc.record(
    {
      title: textMatch,
      author: textMatch,
      authorId: oneOf(fc.integer({ min: 1, max: 4 })),
      status: oneOf(
        fc.constantFrom('available' as const, 'checked-out' as const, 'archived' as const),
      ),
      year: bounds(fc.integer({ min: 1950, max: 2000 })),
      publishedAt: bounds(day),
    },
    { requiredKeys: [] },
  ) as fc.Arbitrary<NonNullable<BookSearch['where']>>

  const checked = await fc.check(
    fc.asyncProperty(where, async (search) => {
      const params: unknown[] = []
      const sql = searchCondition(search, params)
      const text = sql.join(' and ')
      // Every placeholder has its parameter, and the SQL holds no value: no literal, only
      // names, operators and placeholders.
      const placeholders = [...new Set([...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))]
      const numbered =
        placeholders.sort((a, b) => a - b).join() === params.map((_, i) => i + 1).join()
      if (!numbered || !/^[a-z_ ()=<>,.:$0-9]*$/.test(text)) return false
      const found = await pageOfBooks(db, {
        where: sql,
        params,
        sort: [],
        limit: 100,
        offset: 0,
        include: 'active',
      })
      const expected = books.filter((book) => holds(book, search)).map((book) => book.id)
      return JSON.stringify(found.items.map((book) => book.id)) === JSON.stringify(expected)
    }),
    { numRuns: 150 },
  )
  t.notOk(checked.failed, '150 queries agree with the model', {
    counterexample: checked.counterexample,
    error: checked.errorInstance,
    seed: checked.seed,
  })
})

test('equivalentQuery: the GET parameters of a query, when GET can say it', async (t) => {
  t.same(String(equivalentQuery({})), '')
  t.same(
    String(equivalentQuery({ where: { status: 'archived', authorId: { eq: 2 } } })),
    'status=archived&authorId=2',
  )
  t.same(
    String(
      equivalentQuery({
        orderBy: [
          { field: 'publishedAt', direction: 'desc' },
          { field: 'title', direction: 'asc' },
        ],
      }),
    ),
    'sort=-publishedAt%2Ctitle',
    'URLSearchParams encodes the comma; listingOf writes it as it is',
  )
  t.equal(equivalentQuery({ where: { status: { in: ['archived'] } } }), undefined)
  t.equal(equivalentQuery({ where: { authorId: { eq: 1, in: [1] } } }), undefined)
  t.equal(equivalentQuery({ where: { year: 1969 } }), undefined)
})
