/**
 * What HAL, JSON:API, Siren and XML are built from: the payload as JSON sends it (response
 * schema, `toJSON`), page items included; item links that keep the API version; deep XML.
 */
import restwellErrors, { isHttpError } from '@restwell/errors'
import type { PageInfo } from '@restwell/core'
import { API_VERSIONS, PAGE } from '@restwell/core/internal'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import {
  fromXml,
  MAX_XML_DEPTH,
  type NegotiationOptions,
  restwellNegotiation,
  toXml,
} from '../src/index.js'
import { jsonValue } from '../src/json-value.js'

const FORMS = ['hal', 'jsonapi', 'siren', 'xml'] as const

async function build(options: NegotiationOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellNegotiation, options)
  return app
}

/** Sends a page as `@restwell/pagination` does: `reply[PAGE]`, and the JSON envelope. */
function sendPage(reply: object, items: unknown[]): unknown {
  const page: PageInfo = {
    items,
    links: { self: '/users?page=1&limit=20', first: '/users?page=1&limit=20' },
    meta: { page: 1, limit: 20, total: items.length, totalPages: 1 },
  }
  ;(reply as Record<symbol, unknown>)[PAGE] = page
  return { data: page.items, meta: page.meta, links: page.links }
}

const User = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
}
const rows = (): unknown[] => [{ id: 1, name: 'ada', passwordHash: 'SECRET' }]

test('pages: HAL, JSON:API and Siren take their items through the response schema', async (t) => {
  const app = await build()
  const envelope = {
    type: 'object',
    properties: {
      data: { type: 'array', items: User },
      meta: { type: 'object', additionalProperties: true },
      links: { type: 'object', additionalProperties: true },
    },
  }
  app.get('/users', { schema: { response: { 200: envelope } } }, async (_request, reply) =>
    sendPage(reply, rows()),
  )
  // A schema that leaves the items out altogether: JSON sends none, nor do the forms.
  const metaOnly = { type: 'object', properties: { meta: { type: 'object' } } }
  app.get('/counts', { schema: { response: { 200: metaOnly } } }, async (_request, reply) =>
    sendPage(reply, rows()),
  )
  // A page whose payload reads as null in JSON: no items either.
  app.get('/void', async (_request, reply) => {
    sendPage(reply, rows())
    return { toJSON: () => null }
  })
  for (const format of ['json', ...FORMS]) {
    const res = await app.inject(`/users?format=${format}`)
    t.equal(res.statusCode, 200, format)
    t.notMatch(res.body, /SECRET|passwordHash/, `${format}: the field the schema leaves out`)
    t.match(res.body, /ada/, `${format}: the fields it keeps`)
  }
  const hal = (await app.inject('/users?format=hal')).json()
  t.same(hal._embedded.users, [{ _links: { self: { href: '/users/1' } }, id: 1, name: 'ada' }])
  t.equal(hal.total, 1, 'page meta still from reply[PAGE]')
  const api = (await app.inject('/users?format=jsonapi')).json()
  t.same(api.data, [
    { type: 'users', id: '1', attributes: { name: 'ada' }, links: { self: '/users/1' } },
  ])
  t.same(api.links.first, '/users?page=1&limit=20', 'page links still from reply[PAGE]')
  const siren = (await app.inject('/users?format=siren')).json()
  t.same(siren.entities[0].properties, { id: 1, name: 'ada' })
  t.same((await app.inject('/void?format=jsonapi')).json().data, [])
  const none = (await app.inject('/counts?format=hal')).json()
  t.same(none._embedded, { counts: [] }, 'no items in the filtered envelope: none')
  t.notMatch((await app.inject('/counts?format=jsonapi')).body, /SECRET/)
})

class Account {
  id = 1
  name = 'ada'
  passwordHash = '$2b$10$secret'
  toJSON(): unknown {
    return { id: this.id, name: this.name }
  }
}

test('objects with toJSON (ORM entities) are read as JSON reads them, in every form', async (t) => {
  const app = await build()
  app.get('/users/:id', async () => new Account())
  app.get('/users', async () => [new Account()])
  app.get('/pages', async (_request, reply) => sendPage(reply, [new Account()]))
  app.get('/nested', async () => ({
    id: 5,
    owner: new Account(),
    at: new Date('2020-01-02T03:04:05.000Z'),
  }))
  for (const url of ['/users/1', '/users', '/pages', '/nested']) {
    for (const format of ['json', ...FORMS]) {
      const res = await app.inject(`${url}?format=${format}`)
      t.equal(res.statusCode, 200, `${url} ${format}`)
      t.notMatch(res.body, /secret|passwordHash/, `${url} ${format}: toJSON hid it`)
    }
  }
  t.same(
    (await app.inject({ url: '/users/1', headers: { accept: 'application/hal+json' } })).json(),
    {
      _links: { self: { href: '/users/1' } },
      id: 1,
      name: 'ada',
    },
  )
  t.same((await app.inject('/users?format=jsonapi')).json().data, [
    { type: 'users', id: '1', attributes: { name: 'ada' }, links: { self: '/users/1' } },
  ])
  t.same((await app.inject('/pages?format=hal')).json()._embedded.pages, [
    { _links: { self: { href: '/pages/1' } }, id: 1, name: 'ada' },
  ])
  t.same((await app.inject('/nested?format=jsonapi')).json().data.attributes, {
    owner: { id: 1, name: 'ada' },
    at: '2020-01-02T03:04:05.000Z',
  })
})

test('jsonValue: JSON.stringify semantics, the same object back when there is no toJSON', async (t) => {
  const plain = { a: [1, { b: 'x' }], c: null, d: { e: true } }
  t.equal(jsonValue(plain), plain, 'no toJSON: not copied')
  t.equal(jsonValue('s'), 's')
  t.equal(jsonValue(null), null)
  const date = new Date('2020-01-02T00:00:00.000Z')
  const list = [1, date, { at: date }]
  const out = jsonValue(list) as unknown[]
  t.not(out, list, 'copied on write')
  t.same(out, [1, '2020-01-02T00:00:00.000Z', { at: '2020-01-02T00:00:00.000Z' }])
  t.equal(list[1], date, 'the payload itself is left as it was')
  const keys: string[] = []
  const keyed = {
    toJSON: (key: string) => {
      keys.push(key)
      return 'v'
    },
  }
  jsonValue({ field: keyed, list: [keyed] })
  t.same(keys, ['field', '0'], 'toJSON gets its key, as with JSON.stringify')
  // What a toJSON returns: its own toJSON is not called again, its fields' are; functions,
  // symbols and undefined are left out; an array's entries are read the same way.
  const inner = { toJSON: () => 'inner' }
  const result = {
    toJSON: () => 'called again',
    inner,
    fn: () => 1,
    sym: Symbol('s'),
    none: undefined,
    kept: 0,
  }
  t.same(jsonValue({ x: { toJSON: () => result } }), { x: { inner: 'inner', kept: 0 } })
  t.same(jsonValue({ toJSON: () => [inner, 2] }), ['inner', 2])
  t.equal(
    jsonValue({ toJSON: () => undefined }),
    undefined,
    'a toJSON may return a primitive, or nothing',
  )
  t.same(
    JSON.parse(JSON.stringify({ x: { toJSON: () => result } })),
    { x: { inner: 'inner', kept: 0 } },
    'as JSON.stringify reads it',
  )
})

/** Versioning's contract: the versions a request may be answered in (set on every request). */
function withVersioning(app: FastifyInstance): void {
  const versions: ReadonlySet<number> = new Set([1, 2])
  app.decorateRequest(API_VERSIONS as unknown as string, {
    getter: () => versions,
  })
}

test('item links keep the version query parameter the collection was fetched with', async (t) => {
  const app = await build()
  withVersioning(app)
  app.get('/books', async () => [{ id: 6, title: 'A' }])
  app.get('/shelf', { config: { negotiation: { type: 'books' } } }, async (_request, reply) =>
    sendPage(reply, [{ id: 7 }]),
  )
  const hal = (
    await app.inject({
      url: '/books?status=new&version=2&sort=id',
      headers: { accept: 'application/hal+json' },
    })
  ).json()
  t.same(hal._embedded.books[0]._links.self, { href: '/books/6?version=2' }, 'only the version')
  t.same(hal._links.self, { href: '/books?status=new&version=2&sort=id' })
  const api = (await app.inject('/books?version=2&format=jsonapi')).json()
  t.equal(api.data[0].links.self, '/books/6?version=2')
  const siren = (await app.inject('/shelf?version=1&format=siren')).json()
  t.same(siren.entities[0].links, [{ rel: ['self'], href: '/shelf/7?version=1' }], 'pages too')
  const pageHal = (await app.inject('/shelf?format=hal&version=1')).json()
  t.same(pageHal._embedded.books[0]._links.self, { href: '/shelf/7?version=1' })
  const hrefOf = async (url: string): Promise<string> =>
    (await app.inject({ url, headers: { accept: 'application/hal+json' } })).json()._embedded
      .books[0]._links.self.href
  t.equal(await hrefOf('/books'), '/books/6', 'no query')
  t.equal(await hrefOf('/books?status=new'), '/books/6', 'no version')
  t.equal(await hrefOf('/books?versions=2'), '/books/6', 'another parameter named like it')
  t.equal(await hrefOf('/books?version'), '/books/6?version', 'kept as sent')
  t.equal(
    await hrefOf('/books?%76ersion=1&version=1'),
    '/books/6?%76ersion=1&version=1',
    'every spelling of it, byte for byte',
  )
  t.equal(await hrefOf('/books?ver%73ion=1'), '/books/6', 'named escaped only: not a carrier')
  t.equal(await hrefOf('/books?version=2+%zz'), '/books/6?version=2+%25zz', 'a valid URI')
  t.equal(await hrefOf('/books?version=<2>'), '/books/6?version=%3C2%3E', 'a valid URI')
  t.equal(await hrefOf('/books?%E0%A4%A=1&version=2'), '/books/6?version=2', 'bad escape: other')
})

test('item links: no versioning, no version; versionParam renames it or turns it off', async (t) => {
  const plain = await build()
  plain.get('/books', async () => [{ id: 6 }])
  const hal = (await plain.inject('/books?version=2&format=hal')).json()
  t.same(hal._embedded.books[0]._links.self, { href: '/books/6' }, 'a ?version= of its own')
  const renamed = await build({ versionParam: 'v' })
  withVersioning(renamed)
  renamed.get('/books', async () => [{ id: 6 }])
  const r = (await renamed.inject('/books?v=2&version=3&format=hal')).json()
  t.same(r._embedded.books[0]._links.self, { href: '/books/6?v=2' })
  const off = await build({ versionParam: false })
  withVersioning(off)
  off.get('/books', async () => [{ id: 6 }])
  const o = (await off.inject('/books?version=2&format=hal')).json()
  t.same(o._embedded.books[0]._links.self, { href: '/books/6' })
  await t.rejects(build({ versionParam: 'a b' }), { name: 'OptionsError' })
})

/** An object nested so that its deepest element is `depth` levels down, the root included. */
function nested(depth: number): unknown {
  let value: unknown = 'leaf'
  for (let i = 1; i < depth; i++) value = { a: value }
  return value
}

/** A comment thread `depth` replies deep: two elements per level (`replies` and its `item`). */
function thread(depth: number): unknown {
  let comment: unknown = { id: depth, replies: [] }
  for (let i = depth - 1; i >= 1; i--) comment = { id: i, replies: [comment] }
  return comment
}

test(`XML: up to ${MAX_XML_DEPTH} nested elements are written and read back`, async (t) => {
  t.equal(MAX_XML_DEPTH, 1000)
  const deepest = nested(MAX_XML_DEPTH)
  t.same(fromXml(toXml(deepest, 'r')), deepest, 'the limit itself round-trips')
  t.throws(() => toXml(nested(MAX_XML_DEPTH + 1), 'r'), {
    name: 'RangeError',
    message: `Cannot write XML nested deeper than ${MAX_XML_DEPTH} elements`,
  })
  // A field JSON leaves out makes no element, so it does not count.
  let skipped: unknown = { gone: undefined, fn: () => 1 }
  for (let i = 2; i < MAX_XML_DEPTH; i++) skipped = { a: skipped }
  t.doesNotThrow(() => toXml(skipped, 'r'))
  t.same(fromXml(toXml(thread(120), 'r')), thread(120), 'a thread 120 replies deep')
  const open = (depth: number): string =>
    `<r>${'<a>'.repeat(depth - 1)}x${'</a>'.repeat(depth - 1)}</r>`
  t.ok(fromXml(open(MAX_XML_DEPTH)))
  let error: unknown
  try {
    fromXml(open(MAX_XML_DEPTH + 1))
  } catch (thrown) {
    error = thrown
  }
  t.ok(isHttpError(error), 'a 400 HttpError, not a plain Error')
  t.match(error, {
    statusCode: 400,
    code: 'BAD_REQUEST',
    message: /^The XML body cannot be read: /,
    details: [{ field: 'body', message: 'is not XML that can be read' }],
  })
})

test('XML: a deep payload is sent; a too-deep or refused request body is a 400', async (t) => {
  const app = await build({ consumes: ['application/xml'] })
  app.addContentTypeParser('application/xml', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, fromXml(body as string))
    } catch (error) {
      done(error as Error)
    }
  })
  app.get('/comments/1', async () => thread(60))
  app.post('/comments', async (request) => ({ got: request.body }))
  const res = await app.inject({ url: '/comments/1', headers: { accept: 'application/xml' } })
  t.equal(res.statusCode, 200, 'a thread 60 replies deep (was a 500 past 100 elements)')
  t.same(fromXml(res.body), thread(60))
  const post = (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/comments',
      headers: { 'content-type': 'application/xml' },
      payload,
    })
  t.same((await post('<r><a>1</a></r>')).json(), { got: { a: '1' } })
  const deep = await post(`<r>${'<a>'.repeat(MAX_XML_DEPTH)}${'</a>'.repeat(MAX_XML_DEPTH)}</r>`)
  t.equal(deep.statusCode, 400)
  t.match(deep.json(), {
    error: { code: 'BAD_REQUEST', details: [{ field: 'body' }] },
  })
  const proto = await post('<r><__proto__><x>1</x></__proto__></r>')
  t.equal(proto.statusCode, 400, 'a name the parser refuses: 400, not 500')
})
