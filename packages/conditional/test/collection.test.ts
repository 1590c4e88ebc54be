import { hash } from 'node:crypto'
import { restwellErrors } from '@restwell/errors'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'
import type { ConditionalOptions, ConditionalRouteConfig } from '../src/index.js'

interface Item {
  id: number | string
  version: number | string
  title: string
}

/** The collection a route returns, mutable between requests. */
interface Store {
  items: Item[]
  total: number
}

const fresh = (): Store => ({
  items: [
    { id: 1, version: 3, title: 'Dune' },
    { id: 2, version: 1, title: 'Emma' },
  ],
  total: 2,
})

/** An app whose routes count how often their body was serialized. */
async function build(
  store: Store,
  config: ConditionalRouteConfig = { etagField: 'version' },
  options: ConditionalOptions = {},
): Promise<{ app: FastifyInstance; serialized: () => number }> {
  let serialized = 0
  const counting = (data: unknown) => {
    serialized++
    return JSON.stringify(data)
  }
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional, options)
  app.addHook('preHandler', (_request, reply, done) => {
    reply.serializer(counting)
    done()
  })
  const route = { config: { conditional: config } }
  // a page envelope, as @restwell/pagination's reply.paginate() sends it
  app.get('/books', route, async (request) => ({
    data: store.items,
    meta: { total: store.total },
    links: { self: request.url },
  }))
  app.get('/other-books', route, async (request) => ({
    data: store.items,
    meta: { total: store.total },
    links: { self: request.url },
  }))
  app.get('/plain', route, async () => store.items)
  app.get('/german', route, async (_request, reply) => {
    reply.header('content-language', 'de')
    return store.items
  })
  app.get('/two-arrays', route, async () => ({ data: store.items, more: [1] }))
  app.get('/no-array', route, async () => ({ meta: { total: 1 } }))
  app.get('/odd-items', route, async () => ({ data: [...store.items, 'loose'] }))
  app.get(
    '/big-meta',
    {
      ...route,
      // a serializer that writes what JSON.stringify refuses, as a schema serializer may
      preHandler: (_request, reply, done) => {
        reply.serializer((data: unknown) =>
          JSON.stringify(data, (_key, value: unknown) =>
            typeof value === 'bigint' ? Number(value) : value,
          ),
        )
        done()
      },
    },
    async () => ({ data: store.items, meta: { total: 2n } }),
  )
  return { app, serialized: () => serialized }
}

const sha1 = (body: string) => `"${hash('sha1', body, 'base64url')}"`

test('a page of versioned items gets an ETag from ids and versions, and its 304 is never serialized', async (t) => {
  const store = fresh()
  const { app, serialized } = await build(store)
  const first = await app.inject('/books?page=1')
  t.equal(first.statusCode, 200)
  const tag = first.headers.etag as string
  t.match(tag, /^"[A-Za-z0-9_-]{27}"$/, 'a strong tag, quoted')
  t.not(tag, sha1(first.body), 'not a hash of the bytes: they were not needed')
  t.equal(serialized(), 1)

  const again = await app.inject({ url: '/books?page=1', headers: { 'if-none-match': tag } })
  t.equal(again.statusCode, 304)
  t.equal(again.headers.etag, tag)
  t.equal(again.body, '')
  t.equal(serialized(), 1, 'the 304 did not serialize the page')

  const head = await app.inject({ method: 'HEAD', url: '/books?page=1' })
  t.equal(head.headers.etag, tag, 'HEAD carries the tag of GET')
})

test('the derived ETag changes with everything the bytes depend on', async (t) => {
  const store = fresh()
  const { app } = await build(store)
  const tagOf = async (url: string) => (await app.inject(url)).headers.etag
  const base = await tagOf('/books?page=1')
  t.equal(await tagOf('/books?page=1'), base, 'stable while nothing changes')
  t.not(await tagOf('/books?page=2'), base, 'another URL (page, filter, sort)')
  t.not(await tagOf('/other-books?page=1'), base, 'another route, the same items')

  store.items[0] = { ...(store.items[0] as Item), version: 4 }
  const bumped = await tagOf('/books?page=1')
  t.not(bumped, base, 'an item version')

  store.items[0] = { id: 3, version: 4, title: 'Ulysses' }
  t.not(await tagOf('/books?page=1'), bumped, 'another item with the same version')

  const beforeTotal = await tagOf('/books?page=1')
  store.total = 3
  t.not(await tagOf('/books?page=1'), beforeTotal, 'the meta beside the items')

  store.items.reverse()
  const reordered = await tagOf('/plain')
  store.items.reverse()
  t.not(await tagOf('/plain'), reordered, 'the order of the items')
  t.not(await tagOf('/german'), await tagOf('/plain'), 'Content-Language')
  const negotiated = async (headers: Record<string, string>) =>
    (await app.inject({ url: '/plain', headers })).headers.etag
  const plainTag = await negotiated({})
  t.not(await negotiated({ 'accept-language': 'de' }), plainTag, 'Accept-Language')
  t.not(await negotiated({ 'accept-charset': 'iso-8859-1' }), plainTag, 'Accept-Charset')
  t.not(await negotiated({ accept: 'application/json' }), plainTag, 'Accept')
})

test('a stale tag gets the page again, with the new tag', async (t) => {
  const store = fresh()
  const { app, serialized } = await build(store)
  const old = (await app.inject('/books')).headers.etag as string
  store.items[1] = { ...(store.items[1] as Item), version: 2, title: 'Emma (2nd ed.)' }
  const res = await app.inject({ url: '/books', headers: { 'if-none-match': old } })
  t.equal(res.statusCode, 200)
  t.not(res.headers.etag, old)
  t.match(res.json(), { data: [{ id: 1 }, { id: 2, title: 'Emma (2nd ed.)' }] })
  t.equal(serialized(), 2)
})

test('collections the rule cannot vouch for are hashed from their bytes', async (t) => {
  const store = fresh()
  const { app } = await build(store)
  for (const url of ['/two-arrays', '/no-array', '/odd-items', '/big-meta']) {
    const res = await app.inject(url)
    t.equal(res.headers.etag, sha1(res.body), `${url}: hashed`)
  }
  store.items[0] = { id: 1, title: 'no version' } as unknown as Item
  const missing = await app.inject('/plain')
  t.equal(missing.headers.etag, sha1(missing.body), 'an item without the version field')
  store.items[0] = { version: 1, title: 'no id' } as unknown as Item
  const noId = await app.inject('/plain')
  t.equal(noId.headers.etag, sha1(noId.body), 'an item without an id')
})

test('idField names the id; weak makes the derived tag weak', async (t) => {
  const store = fresh()
  const isbn = store.items.map(({ id, ...rest }) => ({ ...rest, isbn: `isbn-${id}` }))
  const custom = await build(
    { items: isbn as unknown as Item[], total: 2 },
    {
      etagField: 'version',
      idField: 'isbn',
    },
  )
  const res = await custom.app.inject('/plain')
  t.not(res.headers.etag, sha1(res.body), 'derived from isbn and version')
  const unknownId = await build({ items: isbn as unknown as Item[], total: 2 })
  const hashed = await unknownId.app.inject('/plain')
  t.equal(hashed.headers.etag, sha1(hashed.body), 'no `id` on the items: hashed')

  const weak = await build(store, { etagField: 'version' }, { weak: true })
  const tag = (await weak.app.inject('/books')).headers.etag as string
  t.match(tag, /^W\/"/)
  const again = await weak.app.inject({ url: '/books', headers: { 'if-none-match': tag } })
  t.equal(again.statusCode, 304)
})

test('idField is validated with the route', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  t.throws(
    () => app.get('/x', { config: { conditional: { idField: '' } } }, async () => []),
    /idField/,
  )
})

test('property: equal id/version lists give equal tags, different lists different tags', async (t) => {
  const store: Store = { items: [], total: 0 }
  const { app } = await build(store)
  const key = fc.oneof(fc.integer(), fc.string({ maxLength: 6 }))
  const list = fc.array(fc.record({ id: key, version: key }), { maxLength: 5 })
  const tagOf = async (items: Array<{ id: string | number; version: string | number }>) => {
    store.items = items.map((item) => ({ ...item, title: 't' }))
    return (await app.inject('/plain')).headers.etag
  }
  await fc.assert(
    fc.asyncProperty(list, list, async (a, b) => {
      const same = JSON.stringify(a) === JSON.stringify(b)
      const [ta, tb] = [await tagOf(a), await tagOf(b)]
      return same ? ta === tb : ta !== tb
    }),
    { numRuns: 150 },
  )
  t.pass('held for 150 pairs of lists')
})
