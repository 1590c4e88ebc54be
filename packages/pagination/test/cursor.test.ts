import { createHash, createHmac } from 'node:crypto'
import { ErrorCode } from '@restwell/errors'
import type { PageInfo } from '@restwell/core'
import Fastify from 'fastify'
import { test } from 'tap'
import { applyPagination, type PaginationOptions, restwellPagination } from '../src/index.js'
import { BOOKS, buildApp, links, SECRET } from './helpers.js'

async function cursorApp(options: PaginationOptions = {}) {
  const h = await buildApp(options)
  h.app.get(
    '/books',
    {
      config: {
        pagination: {
          cursor: true,
          sortable: ['title', 'year', 'published', 'id'],
          defaultLimit: 10,
        },
      },
      schema: { querystring: { type: 'object', properties: { genre: { type: 'string' } } } },
    },
    async (request, reply) => {
      const slice = applyPagination(BOOKS, request.pagination!)
      return reply.paginate(slice.items, { hasMore: slice.hasMore })
    },
  )
  return h
}

const ids = (page: PageInfo | undefined): number[] =>
  (page?.items ?? []).map((b) => (b as { id: number }).id)

function expectedOrder(): number[] {
  return [...BOOKS]
    .sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id))
    .map((b) => b.id)
}

test('walks forward through every item and back again with next and prev', async (t) => {
  const { app, page } = await cursorApp()
  const order = expectedOrder()
  let url: string | undefined = '/books?sort=title'
  const forward: number[] = []
  const selfs: string[] = []
  let pages = 0
  while (url !== undefined) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, url)
    forward.push(...ids(page()))
    selfs.push(url)
    url = page()?.links.next
    pages++
  }
  t.equal(pages, 5)
  t.strictSame(forward, order, 'every item once, in sort order')
  const lastPage = page()
  t.notOk(lastPage?.links.next)
  t.ok(lastPage?.links.prev)
  t.strictSame(lastPage?.meta, { limit: 10 })
  const backward: number[][] = []
  url = lastPage?.links.prev
  while (url !== undefined) {
    await app.inject(url)
    backward.unshift(ids(page()))
    url = page()?.links.prev
  }
  t.strictSame(
    backward.flat(),
    order.slice(0, 40),
    'prev pages are the earlier ones, in sort order',
  )
  t.equal(backward.length, 4)
})

test('first page: no cursor, no prev; Link carries first, next, last', async (t) => {
  const { app, page } = await cursorApp()
  const res = await app.inject('/books?sort=-year&genre=novel&limit=3')
  const l = links(res.headers.link)
  t.strictSame(Object.keys(l), ['first', 'next', 'last'])
  t.equal(l.first, '/books?sort=-year&genre=novel&limit=3')
  t.match(l.next, /^\/books\?sort=-year&genre=novel&cursor=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+&limit=3$/)
  t.strictSame(page()?.links.self, '/books?sort=-year&genre=novel&limit=3')
  t.notOk(res.headers['x-total-count'])
})

test('the last link starts from the end; request.pagination exposes the cursor', async (t) => {
  const h = await buildApp()
  const positions: unknown[] = []
  h.app.get(
    '/books',
    {
      config: { pagination: { cursor: true, sortable: ['published'], defaultSort: '-published' } },
    },
    async (request, reply) => {
      positions.push(request.pagination)
      const slice = applyPagination(BOOKS, request.pagination!)
      return reply.paginate(slice.items, { hasMore: slice.hasMore, total: slice.total })
    },
  )
  const first = await h.app.inject('/books?limit=20')
  t.equal(first.headers['x-total-count'], '45')
  t.strictSame(h.page()?.meta, { limit: 20, total: 45 })
  const last = h.page()?.links.last as string
  await h.app.inject(last)
  const desc = (from: number, to: number): number[] =>
    Array.from({ length: from - to + 1 }, (_, i) => from - i)
  t.strictSame(ids(h.page()), desc(20, 1))
  t.notOk(h.page()?.links.next, 'nothing after the end')
  t.ok(h.page()?.links.prev)
  t.match(positions[1], {
    mode: 'cursor',
    page: 1,
    offset: 0,
    limit: 20,
    sort: [
      { field: 'published', direction: 'desc' },
      { field: 'id', direction: 'asc' },
    ],
    cursor: { direction: 'before', values: {} },
  })
  await h.app.inject(h.page()?.links.prev as string)
  t.strictSame(ids(h.page()), desc(40, 21))
  const next = h.page()?.links.next as string
  await h.app.inject(next)
  const p = positions[3] as {
    cursor: { direction: string; values: { published: Date; id: number } }
  }
  t.equal(p.cursor.direction, 'after')
  t.ok(p.cursor.values.published instanceof Date, 'dates come back as Date')
  t.equal(p.cursor.values.published.toISOString(), BOOKS[20]?.published.toISOString())
  t.equal(p.cursor.values.id, 21)
  t.strictSame(ids(h.page()), desc(20, 1))
})

test('an empty page has no prev and no next', async (t) => {
  const { app, page } = await cursorApp()
  await app.inject('/books?genre=none')
  t.strictSame(page()?.items, [])
  t.strictSame(Object.keys(page()?.links ?? {}), ['self', 'first', 'last'])
  await app.inject(page()?.links.last as string)
  t.strictSame(Object.keys(page()?.links ?? {}), ['self', 'first', 'last'])
})

function forge(payload: unknown, secret = SECRET): string {
  const data = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${data}.${createHmac('sha256', secret).update(data).digest('base64url')}`
}

test('tampered, forged, expired and foreign cursors: 400 INVALID_CURSOR', async (t) => {
  const { app, page } = await cursorApp({ cursorTtl: 60 })
  await app.inject('/books?sort=title')
  const next = page()?.links.next as string
  const token = new URL(next, 'http://x').searchParams.get('cursor') as string
  const [data, mac] = token.split('.') as [string, string]
  const payload = JSON.parse(Buffer.from(data, 'base64url').toString())
  const tampered = Buffer.from(JSON.stringify({ ...payload, k: { ...payload.k, id: 1 } })).toString(
    'base64url',
  )
  const cases: [string, RegExp][] = [
    [`${tampered}.${mac}`, /bad signature/],
    [forge(payload, 'another-secret-that-is-long-enough-000000'), /bad signature/],
    [forge({ ...payload, e: Math.floor(Date.now() / 1000) - 1 }), /expired/],
    ['not-a-cursor', /not a valid cursor/],
    ['a.b.c', /not a valid cursor/],
    [`${data}.${mac}x`, /bad signature/],
    [`${'A'.repeat(5000)}.x`, /not a valid cursor/],
    [forge({ ...payload, v: 2 }), /not a valid cursor/],
    [forge({ ...payload, k: { title: { nested: true } } }), /not a valid cursor/],
  ]
  for (const [cursor, message] of cases) {
    const res = await app.inject(`/books?sort=title&cursor=${encodeURIComponent(cursor)}`)
    t.equal(res.statusCode, 400, cursor.slice(0, 40))
    const error = res.json().error
    t.equal(error.code, ErrorCode.INVALID_CURSOR)
    t.strictSame(error.details[0].field, 'querystring/cursor')
    t.match(error.details[0].message, message, cursor.slice(0, 40))
  }
  const otherSort = await app.inject(`/books?sort=-title&cursor=${token}`)
  t.equal(otherSort.statusCode, 400)
  t.match(otherSort.json().error.message, /another sort or other filters/)
  const otherFilter = await app.inject(`/books?sort=title&genre=novel&cursor=${token}`)
  t.equal(otherFilter.statusCode, 400)
  const twice = await app.inject(`/books?sort=title&cursor=${token}&cursor=${token}`)
  t.match(twice.json().error.details[0], { field: 'querystring/cursor', message: /once/ })
  const withPage = await app.inject('/books?page=2')
  t.equal(withPage.statusCode, 400)
  t.match(withPage.json().error, {
    code: ErrorCode.INVALID_PAGINATION,
    message: /paginated with "cursor"/,
  })
  t.equal((await app.inject(next)).statusCode, 200, 'the genuine cursor still works')
})

test('a cursor made for one route is refused on another', async (t) => {
  const { app, page } = await cursorApp()
  app.get(
    '/other',
    { config: { pagination: { cursor: true, sortable: ['title'] } } },
    async (_q, r) => r.paginate([]),
  )
  await app.inject('/books?sort=title')
  const token = new URL(page()?.links.next as string, 'http://x').searchParams.get(
    'cursor',
  ) as string
  const res = await app.inject(`/other?sort=title&cursor=${token}`)
  t.equal(res.statusCode, 400)
  t.equal(res.json().error.code, ErrorCode.INVALID_CURSOR)
})

test('secret rotation: the first secret signs, every listed secret verifies', async (t) => {
  const old = await cursorApp({ cursorSecret: SECRET })
  await old.app.inject('/books')
  const next = old.page()?.links.next as string
  const rotated = await cursorApp({
    cursorSecret: ['a-brand-new-secret-of-at-least-32-chars!', SECRET],
  })
  t.equal((await rotated.app.inject(next)).statusCode, 200)
  const token = new URL(rotated.page()?.links.next as string, 'http://x').searchParams.get(
    'cursor',
  ) as string
  const [data, mac] = token.split('.') as [string, string]
  t.equal(
    mac,
    createHmac('sha256', 'a-brand-new-secret-of-at-least-32-chars!')
      .update(data)
      .digest('base64url'),
  )
  const dropped = await cursorApp({ cursorSecret: 'a-brand-new-secret-of-at-least-32-chars!' })
  t.equal((await dropped.app.inject(next)).statusCode, 400)
})

test('cursorTtl 0: cursors never expire; default TTL is one day', async (t) => {
  const never = await cursorApp({ cursorTtl: 0 })
  await never.app.inject('/books')
  const token = new URL(never.page()?.links.next as string, 'http://x').searchParams.get(
    'cursor',
  ) as string
  t.notOk('e' in JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()))
  const day = await cursorApp()
  await day.app.inject('/books')
  const t2 = new URL(day.page()?.links.next as string, 'http://x').searchParams.get(
    'cursor',
  ) as string
  const e = JSON.parse(Buffer.from(t2.split('.')[0] as string, 'base64url').toString()).e
  const now = Math.floor(Date.now() / 1000)
  // now + 86400 rounded down to a step of 8640 s (a tenth of the TTL): at least 90 % of a day.
  t.equal(e % 8640, 0)
  t.ok(e <= now + 86400 + 2 && e > now + 86400 - 8640 - 2)
})

test('an unchanged cursor page keeps its bytes as the clock moves: If-None-Match is a 304', async (t) => {
  // A fake clock: 100 s into a step of the expiry (8640 s, a tenth of the default TTL).
  const step = 8640
  const start = (200_000 * step - 86400 + 100) * 1000
  let clock = start
  t.capture(Date, 'now', () => clock)
  const app = Fastify()
  await app.register(restwellPagination, { cursorSecret: SECRET })
  // A strong ETag from the sent bytes, as @restwell/conditional makes it, and its 304.
  app.addHook('onSend', async (request, reply, payload) => {
    const etag = `"${createHash('sha1').update(String(payload)).digest('base64url')}"`
    reply.header('etag', etag)
    if (request.headers['if-none-match'] !== etag) return payload
    reply.code(304)
    return ''
  })
  app.get(
    '/books',
    { config: { pagination: { cursor: true, sortable: ['id'], defaultLimit: 10 } } },
    async (request, reply) => {
      const slice = applyPagination(BOOKS, request.pagination!)
      return reply.paginate(slice.items, { hasMore: slice.hasMore })
    },
  )
  const next = (await app.inject('/books')).json().links.next as string
  const fresh = await app.inject(next)
  t.equal(fresh.statusCode, 200)
  const etag = fresh.headers.etag as string
  const revalidate = () => app.inject({ url: next, headers: { 'if-none-match': etag } })
  clock += 1500
  t.equal((await revalidate()).statusCode, 304, '1.5 s later: same bytes, 304')
  clock += 2 * 3600 * 1000
  t.equal((await revalidate()).statusCode, 304, 'two hours later, same step: 304')
  const again = await app.inject(next)
  t.equal(again.body, fresh.body, 'byte-identical page, cursors included')
  // The next step: the cursors carry the next expiry, so the bytes (and the ETag) change once.
  clock = start + (step - 100) * 1000
  const stepped = await revalidate()
  t.equal(stepped.statusCode, 200, 'a new step: new cursors, a 200')
  t.not(stepped.headers.etag, etag)
  const token = new URL(next, 'http://x').searchParams.get('cursor') as string
  const expiry = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()).e
  t.equal(expiry, 200_000 * step, 'issued 100 s into the step: lives 86300 s')
  clock = (expiry - 1) * 1000
  t.equal((await app.inject(next)).statusCode, 200, 'valid until its expiry')
  clock = expiry * 1000
  t.equal((await app.inject(next)).statusCode, 400, 'expired at its expiry')
})

test('a custom tiebreaker is appended to the sort; items must carry sortable values', async (t) => {
  const app = Fastify()
  await app.register(restwellPagination, { cursorSecret: SECRET, cursorTiebreaker: 'isbn' })
  app.get(
    '/x',
    { config: { pagination: { cursor: true, sortable: ['isbn'], defaultSort: '-isbn' } } },
    async (request, r) => {
      return r.paginate([{ isbn: 'b' }, { isbn: 'a' }], {
        hasMore: true,
        total: request.pagination?.sort.length,
      })
    },
  )
  app.get('/bad', { config: { pagination: { cursor: true } } }, async (_q, r) =>
    r.paginate([{ isbn: { x: 1 } }], { hasMore: true }),
  )
  app.get('/nan', { config: { pagination: { cursor: true } } }, async (_q, r) =>
    r.paginate([{ isbn: Number.NaN }], { hasMore: true }),
  )
  app.get('/scalar', { config: { pagination: { cursor: true } } }, async (_q, r) =>
    r.paginate([{ isbn: null }, 7], { hasMore: true }),
  )
  app.get('/guess', { config: { pagination: { cursor: true } } }, async (_q, r) =>
    r.paginate([{ isbn: 'a' }, null]),
  )
  const res = await app.inject('/x')
  t.equal(res.json().meta.total, 1, 'isbn already in the sort: not appended twice')
  t.equal((await app.inject('/bad')).statusCode, 500)
  t.equal((await app.inject('/nan')).statusCode, 500)
  const guess = await app.inject('/guess?limit=2')
  t.ok(links(guess.headers.link).next, 'a full page without hasMore is assumed to have a next page')
  t.notOk(links((await app.inject('/guess?limit=3')).headers.link).next)
  const scalar = await app.inject('/scalar?limit=2')
  t.equal(scalar.statusCode, 200, 'a missing or null sort value is carried as null')
})

test('over-fetching handler (limit + 1): a before cursor drops the extra item at the start', async (t) => {
  // A SQL-style handler: `after` → ORDER BY id LIMIT limit + 1; `before` → ORDER BY id DESC
  // LIMIT limit + 1, reversed back into sort order, so the extra item is the first one.
  const rows = Array.from({ length: 10 }, (_, i) => ({ id: i + 1 }))
  const h = await buildApp()
  h.app.get(
    '/items',
    { config: { pagination: { cursor: true, sortable: ['id'] } } },
    async (request, reply) => {
      const { cursor, limit } = request.pagination!
      const anchor = cursor?.values.id as number | undefined
      let found: typeof rows
      if (cursor === undefined) found = rows.slice(0, limit + 1)
      else if (cursor.direction === 'after') {
        found = rows.filter((r) => r.id > (anchor as number)).slice(0, limit + 1)
      } else {
        const before = anchor === undefined ? rows : rows.filter((r) => r.id < anchor)
        found = before.slice(-(limit + 1))
      }
      return reply.paginate(found)
    },
  )
  const go = async (url: string | undefined) => {
    const res = await h.app.inject(url as string)
    t.equal(res.statusCode, 200)
    const body = res.json() as { data: { id: number }[] }
    return { ids: body.data.map((x) => x.id), l: links(res.headers.link) }
  }
  const p1 = await go('/items?limit=3')
  t.strictSame(p1.ids, [1, 2, 3])
  t.strictSame(Object.keys(p1.l), ['first', 'next', 'last'])
  const p2 = await go(p1.l.next)
  t.strictSame(p2.ids, [4, 5, 6])
  const p3 = await go(p2.l.next)
  t.strictSame(p3.ids, [7, 8, 9])
  const back = await go(p3.l.prev)
  t.strictSame(back.ids, [4, 5, 6], 'prev of [7, 8, 9] is [4, 5, 6]')
  t.strictSame(Object.keys(back.l), ['first', 'prev', 'next', 'last'])
  const start = await go(back.l.prev)
  t.strictSame(start.ids, [1, 2, 3], 'prev of [4, 5, 6] is [1, 2, 3]')
  t.ok(start.l.next, 'items follow the page walked back to')
  t.strictSame((await go(start.l.next)).ids, [4, 5, 6], 'next of a before page follows it')
  const end = await go(p1.l.last)
  t.strictSame(end.ids, [8, 9, 10], 'the last page holds the last items')
  t.strictSame(Object.keys(end.l), ['first', 'prev', 'last'], 'nothing after the end')
  t.strictSame((await go(end.l.prev)).ids, [5, 6, 7])
  const tail = await go(p3.l.next)
  t.strictSame(tail.ids, [10])
  t.notOk(tail.l.next, 'fewer than limit + 1 items going forward: no next')
})
