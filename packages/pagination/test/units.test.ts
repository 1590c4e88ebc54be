import { createHmac } from 'node:crypto'
import { isHttpError } from '@restwell/errors'
import { Value } from '@sinclair/typebox/value'
import fc from 'fast-check'
import { test } from 'tap'
import {
  applyPagination,
  CURSOR_EXPIRY_STEPS,
  coerceFilter,
  cursorBinding,
  cursorExpiry,
  decodeCursor,
  encodeCursor,
  filterSpecOf,
  formatLinkHeader,
  formatSort,
  MAX_CURSOR_LENGTH,
  MAX_FILTER_VALUES,
  PageSchema,
  PageUrls,
  PaginationQuery,
  type Pagination,
  parseSort,
  safePath,
} from '../src/index.js'
import { compareValues } from '../src/array.js'
import { maxPageOf, sortPattern } from '../src/schema.js'
import { readPagination, type RoutePlan } from '../src/query.js'
import { Type } from '@sinclair/typebox'

const SECRET = 'unit-test-secret-unit-test-secret-123'

test('parseSort and formatSort', async (t) => {
  const fields = new Set(['a', 'b', 'c'])
  t.strictSame(parseSort('a,-b, +c', fields), {
    sort: [
      { field: 'a', direction: 'asc' },
      { field: 'b', direction: 'desc' },
      { field: 'c', direction: 'asc' },
    ],
  })
  t.equal(
    formatSort([
      { field: 'a', direction: 'asc' },
      { field: 'b', direction: 'desc' },
    ]),
    'a,-b',
  )
  t.match(parseSort('x', new Set()), { problem: /cannot be sorted/ })
  t.match(parseSort(`${'z'.repeat(100)}`, fields), { problem: /cannot sort by "z{64}";/ })
})

test('property: parseSort never throws, returns only allowed distinct fields, round-trips', async (t) => {
  const fields = new Set(['title', 'year', 'id'])
  fc.assert(
    fc.property(fc.string({ maxLength: 2000, unit: 'binary' }), (raw) => {
      const result = parseSort(raw, fields)
      if ('problem' in result) return typeof result.problem === 'string'
      const names = result.sort.map((k) => k.field)
      return (
        names.every((n) => fields.has(n)) &&
        new Set(names).size === names.length &&
        parseSort(formatSort(result.sort), fields).toString() === result.toString()
      )
    }),
    { numRuns: 2000 },
  )
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.constantFrom('title', 'year', 'id'), fc.boolean()), {
        minLength: 1,
        maxLength: 3,
      }),
      (keys) => {
        const unique = [...new Map(keys).entries()].map(([field, desc]) => ({
          field,
          direction: desc ? ('desc' as const) : ('asc' as const),
        }))
        t.strictSame(parseSort(formatSort(unique), fields), { sort: unique })
        return true
      },
    ),
    { numRuns: 200 },
  )
})

test('filterSpecOf reads types, enums, consts, unions and arrays', async (t) => {
  t.strictSame(filterSpecOf(undefined), { type: 'string', array: false })
  t.strictSame(filterSpecOf({ type: 'integer' }), { type: 'integer', array: false })
  t.strictSame(filterSpecOf({ type: ['null', 'number'] }), { type: 'number', array: false })
  t.strictSame(filterSpecOf({ type: [null] }), { type: 'string', array: false })
  t.strictSame(filterSpecOf({ type: 'object' }), { type: 'string', array: false })
  t.strictSame(filterSpecOf({ enum: [1, 2, {}] }), { type: 'number', values: [1, 2], array: false })
  t.strictSame(filterSpecOf({ const: true }), { type: 'boolean', values: [true], array: false })
  t.strictSame(filterSpecOf({ oneOf: [{ const: 'a' }, { const: 'b' }] }), {
    type: 'string',
    values: ['a', 'b'],
    array: false,
  })
  t.strictSame(filterSpecOf({ anyOf: [{ const: 'a' }, { type: 'string' }] }), {
    type: 'string',
    array: false,
  })
  t.strictSame(filterSpecOf({ anyOf: [null] }), { type: 'string', array: false })
  t.strictSame(filterSpecOf({ enum: [] }), { type: 'string', values: [], array: false })
  t.strictSame(filterSpecOf({ type: 'array', items: { type: 'integer' } }), {
    type: 'integer',
    array: true,
  })
  t.strictSame(filterSpecOf({ type: 'array' }), { type: 'string', array: true })
  t.strictSame(
    filterSpecOf(Type.Union([Type.Literal('x'), Type.Literal('y')])),
    { type: 'string', values: ['x', 'y'], array: false },
    'TypeBox literal unions',
  )
})

test('coerceFilter', async (t) => {
  const int = { type: 'integer' as const, array: false }
  t.strictSame(coerceFilter('-12', int), { value: -12 })
  t.strictSame(coerceFilter('true', { type: 'boolean', array: false }), { value: true })
  t.match(coerceFilter([], int), { problem: { message: 'must be given once' } })
  t.strictSame(coerceFilter([], { type: 'integer', array: true }), { value: [] })
  t.match(coerceFilter('99999999999999999', int), { problem: { message: /integer/ } })
  t.strictSame(coerceFilter('1.5e3', { type: 'number', array: false }), { value: 1500 })
  t.strictSame(coerceFilter(['1', '2'], { type: 'integer', array: true }), { value: [1, 2] })
  t.strictSame(coerceFilter('1', { type: 'integer', array: true }), { value: [1] })
  t.match(coerceFilter(Array(MAX_FILTER_VALUES + 1).fill('1'), { type: 'integer', array: true }), {
    problem: { message: /more than 100 times/ },
  })
  t.match(coerceFilter(['1', 'x'], { type: 'integer', array: true }), {
    problem: { message: 'must be an integer' },
  })
  t.match(coerceFilter({}, { type: 'string', array: false }), {
    problem: { message: 'must be a string' },
  })
  t.strictSame(coerceFilter('2', { type: 'number', values: [1, 2], array: false }), { value: 2 })
})

test('property: coerceFilter never throws and returns the declared type', async () => {
  const spec = fc.record({
    type: fc.constantFrom(
      'string' as const,
      'integer' as const,
      'number' as const,
      'boolean' as const,
    ),
    array: fc.boolean(),
  })
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 5 })), spec, (raw, s) => {
      const result = coerceFilter(raw, s)
      if ('problem' in result) return true
      const values = s.array ? (result.value as unknown[]) : [result.value]
      const kind = s.type === 'integer' ? 'number' : s.type
      return values.every(
        (v) => typeof v === kind && (s.type !== 'integer' || Number.isSafeInteger(v)),
      )
    }),
    { numRuns: 2000 },
  )
})

test('cursorExpiry: now + ttl rounded down to a tenth of the ttl', async (t) => {
  t.equal(CURSOR_EXPIRY_STEPS, 10)
  t.equal(cursorExpiry(1_000_000, 0), 0, 'ttl 0: never expires')
  // Default ttl, one day: step 8640 s; every cursor issued within one step expires together.
  t.equal(cursorExpiry(1_000_000, 86400), 1_080_000)
  t.equal(cursorExpiry(999_999, 86400), 1_080_000)
  t.equal(cursorExpiry(1_002_239, 86400), 1_080_000)
  t.equal(cursorExpiry(1_002_240, 86400), 1_088_640, 'the next step')
  t.equal(cursorExpiry(1_000_000, 60), 1_000_056, 'step 6 s')
  t.equal(cursorExpiry(1_000_001, 60), 1_000_056)
  t.equal(cursorExpiry(1_000_000, 9), 1_000_009, 'under 20 s: step 1 s, exact')
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 4_000_000_000 }),
      fc.integer({ min: 1, max: 10 * 365 * 86400 }),
      (now, ttl) => {
        const step = Math.max(1, Math.floor(ttl / 10))
        const expiry = cursorExpiry(now, ttl)
        return (
          expiry % step === 0 &&
          expiry <= now + ttl &&
          expiry > now + ttl - step &&
          expiry - now >= Math.max(1, Math.ceil(ttl * 0.9) - 1) &&
          cursorExpiry(expiry - ttl, ttl) === expiry &&
          cursorExpiry(expiry - ttl + step - 1, ttl) === expiry
        )
      },
    ),
    { numRuns: 2000 },
  )
})

test('cursors: round trip, dates, expiry, bad shapes', async (t) => {
  const values = {
    title: 'x',
    n: 1.5,
    ok: true,
    none: null,
    at: new Date('2024-01-02T03:04:05.000Z'),
  }
  const token = encodeCursor({ direction: 'after', values }, 'bind', SECRET, 0)
  const decoded = decodeCursor(token, [SECRET], 0)
  t.strictSame(decoded, {
    position: { direction: 'after', values: Object.assign(Object.create(null), values) },
    binding: 'bind',
  })
  const expiring = encodeCursor({ direction: 'before', values: {} }, 'b', SECRET, 100)
  t.match(decodeCursor(expiring, [SECRET], 99), { position: { direction: 'before' } })
  t.match(decodeCursor(expiring, [SECRET], 100), { problem: 'has expired' })
  const sign = (data: string): string =>
    `${data}.${createHmac('sha256', SECRET).update(data).digest('base64url')}`
  const b64 = (value: unknown): string =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
  const bad = [
    sign(b64('{not json')),
    sign(b64('null')),
    sign(b64({ v: 1, d: 'x', k: {}, b: '' })),
    sign(b64({ v: 1, d: 'a', k: null, b: '' })),
    sign(b64({ v: 1, d: 'a', k: [], b: '' })),
    sign(b64({ v: 1, d: 'a', b: '' })),
    sign(b64({ v: 1, d: 'a', k: {}, b: 1 })),
    sign(b64({ v: 1, d: 'a', k: {}, b: '', e: 'soon' })),
    sign(b64('{"v":1,"d":"a","k":{"x":1e400},"b":""}')),
    sign(b64({ v: 1, d: 'a', k: { x: { $date: 'never' } }, b: '' })),
    sign(b64({ v: 1, d: 'a', k: { x: { $date: '2020-01-01', y: 1 } }, b: '' })),
    sign(b64({ v: 1, d: 'a', k: { x: [1] }, b: '' })),
  ]
  for (const cursor of bad)
    t.match(decodeCursor(cursor, [SECRET], 0), { problem: /not a valid cursor/ }, cursor)
  const proto = decodeCursor(sign(b64('{"v":1,"d":"a","k":{"__proto__":1},"b":""}')), [SECRET], 0)
  t.equal(Object.getPrototypeOf((proto as { position: { values: object } }).position.values), null)
  t.equal(
    cursorBinding('/a', 'x', { b: 1, a: 2 }),
    cursorBinding('/a', 'x', { a: 2, b: 1 }),
    'filter order does not matter',
  )
  t.not(cursorBinding('/a', 'x', {}), cursorBinding('/b', 'x', {}))
})

test('property: decodeCursor never throws on any input and accepts only genuine cursors', async () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ maxLength: MAX_CURSOR_LENGTH + 10, unit: 'binary' }),
        fc.base64String().map((s) => `${s}.${s}`),
      ),
      (raw) => {
        const result = decodeCursor(raw, [SECRET], 0)
        return 'problem' in result
      },
    ),
    { numRuns: 3000 },
  )
  fc.assert(
    fc.property(
      fc.dictionary(
        fc.string({ maxLength: 8 }),
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
      ),
      fc.boolean(),
      (values, after) => {
        const token = encodeCursor(
          { direction: after ? 'after' : 'before', values },
          'b',
          SECRET,
          0,
        )
        const result = decodeCursor(token, [SECRET], 0)
        return (
          'position' in result &&
          JSON.stringify({ ...result.position.values }) === JSON.stringify({ ...values })
        )
      },
    ),
    { numRuns: 500 },
  )
})

test('PageUrls (safePath itself is tested in @restwell/errors)', async (t) => {
  t.equal(safePath('/plain/path'), '/plain/path', 're-exported from @restwell/errors')
  const urls = new PageUrls('/b?%E0%A4%A=1&page=3&p%61ge=4&a+b=2&&limit=9&x', ['page', 'limit'])
  t.equal(
    urls.with([
      ['page', 1],
      ['limit', 5],
      ['cursor', undefined],
    ]),
    '/b?%E0%A4%25A=1&a+b=2&x&page=1&limit=5',
    'a % that starts no %XX triplet is %25',
  )
  t.equal(
    new PageUrls('/b?q=100%&r=%zz&s=a%2&t=%41%e9&page=2', ['page']).with([['page', 1]]),
    '/b?q=100%25&r=%25zz&s=a%252&t=%41%e9&page=1',
    'bare % encoded (RFC 3986 §2.4), valid escapes kept',
  )
  t.equal(new PageUrls('/b', []).with([]), '/b')
  t.equal(new PageUrls('/b?page=1', ['page']).with([['k', 'a b&c']]), '/b?k=a%20b%26c')
})

test('property: Link targets never contain characters that break the header', async () => {
  // Query text with `%` in every position: bare, before one hex digit, before non-hex, valid.
  const percenty = fc
    .array(
      fc.oneof(
        fc.string({ maxLength: 20, unit: 'binary' }),
        fc.constantFrom('%', '%2', '%zz', '%4', '%41', '%e9', '100%', '%%', '&q=%', '=%'),
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join(''))
  fc.assert(
    fc.property(fc.string({ maxLength: 200, unit: 'binary' }), percenty, (path, query) => {
      const urls = new PageUrls(`/${path}?${query}`, ['page'])
      const target = urls.with([['page', 2]])
      const header = formatLinkHeader({ self: target, first: target, last: target })
      return (
        !/[<>"#[\]\s\\^`{|}\u0080-\uffff]/.test(target) &&
        // RFC 3986 §2.4: a `%` in a URI always starts a pct-encoded triplet.
        !/%(?![0-9A-Fa-f]{2})/.test(target) &&
        header.split('; rel=').length === 3
      )
    }),
    { numRuns: 2000 },
  )
})

test('formatLinkHeader keeps the relation order', async (t) => {
  t.equal(
    formatLinkHeader({ self: '/s', last: '/l', next: '/n', first: '/f', prev: '/p' }),
    '</f>; rel="first", </p>; rel="prev", </n>; rel="next", </l>; rel="last"',
  )
  t.equal(formatLinkHeader({ self: '/s' }), '')
})

const plan: RoutePlan = {
  route: '/x',
  defaultLimit: 20,
  maxLimit: 100,
  maxPage: 1000,
  clamp: false,
  cursor: false,
  sortable: new Set(['a']),
  defaultSort: [],
  tiebreaker: 'id',
  filters: new Map([['n', { type: 'integer', array: false }]]),
  allowed: new Set(['format']),
  unknownFilters: 'reject',
  cursorSecrets: [SECRET],
}

test('property: readPagination throws only 400 HttpErrors with one detail, on any query', async () => {
  const key = fc.constantFrom('page', 'limit', 'sort', 'cursor', 'n', 'format', 'other')
  const value = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    fc.nat().map(String),
  )
  fc.assert(
    fc.property(fc.dictionary(key, value), fc.boolean(), fc.boolean(), (query, cursor, clamp) => {
      try {
        const p = readPagination({ ...query }, { ...plan, cursor, clamp }, 0)
        return p.limit >= 1 && p.limit <= 100 && p.page >= 1 && p.offset === (p.page - 1) * p.limit
      } catch (error) {
        return isHttpError(error) && error.statusCode === 400 && error.details.length === 1
      }
    }),
    { numRuns: 3000 },
  )
})

test('applyPagination: filters, sorts, offsets and cursors', async (t) => {
  const rows = [
    { id: 1, v: 'b', n: null, d: new Date(3), ok: true },
    { id: 2, v: 'a', n: 2, d: new Date(1), ok: false },
    { id: 3, v: 'a', n: 1, d: new Date(2), ok: true },
    { id: 4, v: 'c', n: 1, d: new Date(2), ok: false },
  ]
  const base: Pagination = { mode: 'offset', page: 1, limit: 2, offset: 0, sort: [], filters: {} }
  const ids = (p: Pagination): number[] => applyPagination(rows, p).items.map((r) => r.id)
  t.strictSame(
    ids({
      ...base,
      sort: [
        { field: 'v', direction: 'asc' },
        { field: 'id', direction: 'desc' },
      ],
    }),
    [3, 2],
  )
  t.strictSame(
    ids({
      ...base,
      limit: 4,
      sort: [
        { field: 'n', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ],
    }),
    [1, 3, 4, 2],
  )
  t.strictSame(
    ids({
      ...base,
      limit: 4,
      sort: [
        { field: 'd', direction: 'desc' },
        { field: 'id', direction: 'asc' },
      ],
    }),
    [1, 3, 4, 2],
  )
  t.strictSame(ids({ ...base, limit: 4, filters: { ok: true } }), [1, 3])
  t.strictSame(ids({ ...base, limit: 4, filters: { v: ['a', 'c'] } }), [2, 3, 4])
  // A filter on an array field: the items whose array contains the value (one of the values).
  const tagged = [
    { id: 1, tags: ['work', 'home'] },
    { id: 2, tags: ['home'] },
    { id: 3, tags: [] },
    { id: 4, tags: 'work' },
  ]
  const tags = (filters: Record<string, unknown>): number[] =>
    applyPagination(tagged, { ...base, limit: 4, filters }).items.map((r) => r.id)
  t.strictSame(tags({ tags: 'work' }), [1, 4])
  t.strictSame(tags({ tags: ['work'] }), [1, 4])
  t.strictSame(tags({ tags: ['work', 'home'] }), [1, 2, 4])
  t.strictSame(tags({ tags: 'none' }), [])
  t.equal(applyPagination(tagged, { ...base, filters: { tags: 'home' } }).total, 2)
  t.strictSame(applyPagination(rows, { ...base, page: 2, offset: 2 }), {
    items: rows.slice(2),
    total: 4,
    hasMore: false,
  })
  const cursor: Pagination = { ...base, mode: 'cursor', sort: [{ field: 'id', direction: 'asc' }] }
  t.strictSame(applyPagination(rows, cursor).hasMore, true)
  t.strictSame(ids({ ...cursor, cursor: { direction: 'after', values: { id: 1 } } }), [2, 3])
  t.strictSame(ids({ ...cursor, cursor: { direction: 'before', values: { id: 4 } } }), [2, 3])
  t.strictSame(
    applyPagination(rows, { ...cursor, cursor: { direction: 'before', values: { id: 2 } } }),
    {
      items: [rows[0]],
      total: 4,
      hasMore: false,
    },
  )
  t.equal(compareValues(null, undefined), 0)
  t.ok(compareValues(false, 0) < 0, 'booleans before numbers')
  t.ok(compareValues(1, 'a') < 0, 'numbers before strings')
  t.ok(compareValues(true, false) > 0)
  t.equal(compareValues('a', 'a'), 0)
})

test('PaginationQuery and PageSchema', async (t) => {
  const q = PaginationQuery()
  t.ok(Value.Check(q, { page: 2, limit: 100, sort: '-a' }))
  t.notOk(Value.Check(q, { limit: 101 }))
  const c = PaginationQuery({ cursor: true, maxLimit: 10 })
  t.ok(Value.Check(c, { cursor: 'x', limit: 10 }))
  t.notOk(Value.Check(c, { limit: 11 }))
  t.notOk('page' in c.properties)
  const page = PageSchema(Type.Object({ id: Type.Integer() }))
  t.ok(
    Value.Check(page, {
      data: [{ id: 1 }],
      meta: { page: 1, limit: 20, total: 1, totalPages: 1 },
      links: { self: '/x', first: '/x' },
    }),
  )
  t.notOk(Value.Check(page, { data: [{ id: 'x' }], meta: { limit: 1 }, links: { self: '/x' } }))
})

test('sortPattern documents what parseSort takes, maxPageOf the page bound', async (t) => {
  const sortable = ['title', 'published.at', 'year']
  const pattern = new RegExp(sortPattern(sortable), 'u')
  for (const raw of [
    'title',
    '-year',
    '+title',
    ' title',
    'title,-year',
    ' -year , title',
    'published.at',
  ]) {
    t.ok(pattern.test(raw), raw)
    t.ok('sort' in parseSort(raw, new Set(sortable)), `${raw}: taken by the plugin too`)
  }
  for (const raw of [
    '',
    'nope',
    'title,',
    ',title',
    '--year',
    'published-at',
    'titles',
    'year desc',
  ]) {
    t.notOk(pattern.test(raw), raw)
    t.ok('problem' in parseSort(raw, new Set(sortable)), `${raw}: refused by the plugin too`)
  }
  t.equal(maxPageOf(100), 90_071_992_547_409)
  t.ok(Number.isSafeInteger(maxPageOf(7) * 7))
})

test('PageUrls.with encodes each name and value as encodeURIComponent does, for any input', (t) => {
  const urls = new PageUrls('/p', [])
  const value = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.stringMatching(/^[\w.!~*'()-]*$/),
    fc.integer(),
    fc.double(),
  )
  const outcome = (fn: () => string): string => {
    try {
      return fn()
    } catch (error) {
      // A lone surrogate cannot be encoded: it must be refused the same way.
      return `throws ${(error as Error).name}`
    }
  }
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary' }),
      value,
      (name, given) =>
        outcome(() => urls.with([[name, given]])) ===
        outcome(() => `/p?${encodeURIComponent(name)}=${encodeURIComponent(given)}`),
    ),
    { numRuns: 2000 },
  )
  t.end()
})
