import { ErrorCode, restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'
import type { ConditionalOptions, ResourceValidators } from '../src/index.js'

interface Book {
  id: string
  title: string
  version: number
  updatedAt: string
}

/** An in-memory store; every write bumps the version. */
function makeStore(): Map<string, Book> {
  return new Map([
    ['7', { id: '7', title: 'Dune', version: 3, updatedAt: '2024-05-01T10:00:00.000Z' }],
  ])
}

async function build(
  options: ConditionalOptions = {},
): Promise<{ app: FastifyInstance; store: Map<string, Book>; calls: string[] }> {
  const store = makeStore()
  const calls: string[] = []
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional, options)
  const getValidator = (request: FastifyRequest): ResourceValidators | undefined => {
    const book = store.get((request.params as { id: string }).id)
    return book && { etag: book.version, lastModified: book.updatedAt }
  }
  const conditional = { getValidator }
  app.get<{ Params: { id: string } }>(
    '/books/:id',
    { config: { conditional } },
    async (req, reply) => {
      const book = store.get(req.params.id)
      return book ?? reply.code(404).send({ error: 'missing' })
    },
  )
  app.put<{ Params: { id: string }; Body: { title: string } }>(
    '/books/:id',
    { config: { conditional } },
    async (req, reply) => {
      calls.push('put')
      const previous = store.get(req.params.id)
      const book = {
        id: req.params.id,
        title: req.body.title,
        version: (previous?.version ?? 0) + 1,
        updatedAt: new Date().toISOString(),
      }
      store.set(req.params.id, book)
      return reply
        .code(previous ? 200 : 201)
        .etag(book.version)
        .send(book)
    },
  )
  app.patch<{ Params: { id: string }; Body: { title: string } }>(
    '/books/:id',
    { config: { conditional: { getValidator: async (r) => getValidator(r) } } },
    async (req) => {
      calls.push('patch')
      const book = store.get(req.params.id) as Book
      book.title = req.body.title
      book.version++
      return book
    },
  )
  app.delete<{ Params: { id: string } }>(
    '/books/:id',
    { config: { conditional } },
    async (req, reply) => {
      calls.push('delete')
      store.delete(req.params.id)
      return reply.code(204).send()
    },
  )
  app.post('/books', { config: { conditional: { requirePrecondition: false } } }, async () => {
    calls.push('post')
    return { ok: true }
  })
  return { app, store, calls }
}

const OLD_DATE = 'Tue, 30 Apr 2024 00:00:00 GMT'

const snapshot = (store: Map<string, Book>): string => JSON.stringify([...store.entries()])

for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
  test(`${method}: a failing If-Match is 412 and leaves the stored resource unchanged`, async (t) => {
    const { app, store, calls } = await build()
    const before = snapshot(store)
    const payload = method === 'DELETE' ? undefined : { title: 'Changed' }
    const res = await app.inject({
      method,
      url: '/books/7',
      headers: { 'if-match': '"2"' },
      payload,
    })
    t.equal(res.statusCode, 412)
    t.equal(res.json().error.code, ErrorCode.PRECONDITION_FAILED)
    t.same(res.json().error.details, [
      {
        field: 'headers/if-match',
        message: 'does not match the current state of the resource',
        code: ErrorCode.PRECONDITION_FAILED,
      },
    ])
    t.equal(snapshot(store), before, 'nothing changed')
    t.same(calls, [], 'the handler never ran')
    const stale = await app.inject({
      method,
      url: '/books/7',
      headers: { 'if-unmodified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' },
      payload,
    })
    t.equal(stale.statusCode, 412)
    t.equal(stale.json().error.details[0].field, 'headers/if-unmodified-since')
    t.equal(snapshot(store), before)
    const weak = await app.inject({
      method,
      url: '/books/7',
      headers: { 'if-match': 'W/"3"' },
      payload,
    })
    t.equal(weak.statusCode, 412, 'If-Match uses the strong comparison')
    t.equal(snapshot(store), before)
    const ok = await app.inject({
      method,
      url: '/books/7',
      headers: { 'if-match': '"1", "3"' },
      payload,
    })
    t.ok(ok.statusCode < 300, `a matching If-Match goes through (${ok.statusCode})`)
    t.not(snapshot(store), before)
    t.same(calls, [method.toLowerCase()])
  })
}

test('If-Match: * needs a current representation; If-None-Match: * guards creation', async (t) => {
  const { app, store } = await build()
  const missing = await app.inject({
    method: 'PUT',
    url: '/books/9',
    headers: { 'if-match': '*' },
    payload: { title: 'New' },
  })
  t.equal(missing.statusCode, 412, 'If-Match: * fails when the resource does not exist')
  t.notOk(store.has('9'))
  const create = await app.inject({
    method: 'PUT',
    url: '/books/9',
    headers: { 'if-none-match': '*' },
    payload: { title: 'New' },
  })
  t.equal(create.statusCode, 201)
  t.equal(create.headers.etag, '"1"')
  const again = await app.inject({
    method: 'PUT',
    url: '/books/9',
    headers: { 'if-none-match': '*' },
    payload: { title: 'Overwrite' },
  })
  t.equal(again.statusCode, 412, 'If-None-Match on an unsafe method fails with 412, not 304')
  t.equal(again.json().error.details[0].field, 'headers/if-none-match')
  t.equal(store.get('9')?.title, 'New')
  const star = await app.inject({
    method: 'PUT',
    url: '/books/7',
    headers: { 'if-match': '*', 'if-modified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' },
    payload: { title: 'Star' },
  })
  t.equal(star.statusCode, 200, 'If-Modified-Since is ignored on writes')
})

test('the lost-update flow: GET, PUT with If-Match, a second PUT with the old tag fails', async (t) => {
  const { app, store } = await build()
  const get = await app.inject('/books/7')
  const etag = get.headers.etag as string
  t.equal(etag, '"3"')
  const first = await app.inject({
    method: 'PUT',
    url: '/books/7',
    headers: { 'if-match': etag },
    payload: { title: 'Alice' },
  })
  t.equal(first.statusCode, 200)
  const second = await app.inject({
    method: 'PUT',
    url: '/books/7',
    headers: { 'if-match': etag },
    payload: { title: 'Bob' },
  })
  t.equal(second.statusCode, 412)
  t.equal(store.get('7')?.title, 'Alice')
  const gz = await app.inject({
    method: 'PUT',
    url: '/books/7',
    headers: { 'if-match': '"4-gzip"' },
    payload: { title: 'Carol' },
  })
  t.equal(gz.statusCode, 200, 'the tag of a gzip copy of the current state matches If-Match')
})

test('requirePrecondition: a write without a precondition is 428', async (t) => {
  const { app, store, calls } = await build({ requirePrecondition: true })
  const before = snapshot(store)
  const res = await app.inject({ method: 'PUT', url: '/books/7', payload: { title: 'x' } })
  t.equal(res.statusCode, 428)
  t.equal(res.json().error.code, ErrorCode.PRECONDITION_REQUIRED)
  t.equal(res.json().error.details[0].field, 'headers/if-match')
  const del = await app.inject({ method: 'DELETE', url: '/books/7' })
  t.equal(del.statusCode, 428)
  t.equal(snapshot(store), before)
  t.same(calls, [])
  const post = await app.inject({ method: 'POST', url: '/books', payload: {} })
  t.equal(post.statusCode, 200, 'a route without getValidator is not held to it')
  const ok = await app.inject({
    method: 'PUT',
    url: '/books/7',
    headers: { 'if-match': '"3"' },
    payload: { title: 'x' },
  })
  t.equal(ok.statusCode, 200)
  const get = await app.inject('/books/7')
  t.equal(get.statusCode, 200, 'reads are never 428')
})

test('route-level requirePrecondition overrides the plugin default; POST with getValidator', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  let created = 0
  app.post(
    '/things',
    {
      config: {
        conditional: { requirePrecondition: true, getValidator: () => null },
      },
    },
    async () => {
      created++
      return { ok: true }
    },
  )
  app.route({
    method: ['GET', 'PUT'],
    url: '/both',
    config: { conditional: { getValidator: () => ({ etag: 'b1' }) } },
    handler: async () => 'both',
  })
  app.route({
    method: ['PUT', 'OPTIONS'],
    url: '/mixed',
    config: { conditional: { getValidator: () => ({ etag: 'm1' }) } },
    handler: async () => 'mixed',
  })
  t.equal((await app.inject({ method: 'POST', url: '/things' })).statusCode, 428)
  const create = await app.inject({
    method: 'POST',
    url: '/things',
    headers: { 'if-none-match': '*' },
  })
  t.equal(create.statusCode, 200)
  t.equal(created, 1)
  t.equal(
    (await app.inject({ url: '/both', headers: { 'if-none-match': '"b1"' } })).statusCode,
    304,
  )
  t.equal(
    (await app.inject({ method: 'PUT', url: '/both', headers: { 'if-match': '"b0"' } })).statusCode,
    412,
  )
  const options = await app.inject({
    method: 'OPTIONS',
    url: '/mixed',
    headers: { 'if-match': '"x"' },
  })
  t.equal(options.statusCode, 200, 'OPTIONS on a write route is not checked')
  const lm = await app.inject({
    method: 'PUT',
    url: '/mixed',
    headers: { 'if-unmodified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' },
  })
  t.equal(lm.statusCode, 200, 'If-Unmodified-Since is ignored without a known date')
})

test('writes without preconditions go through when none is required; dates alone work', async (t) => {
  const { app, calls } = await build()
  const res = await app.inject({ method: 'PUT', url: '/books/7', payload: { title: 'Free' } })
  t.equal(res.statusCode, 200)
  t.same(calls, ['put'])
  const dated = Fastify()
  await dated.register(restwellConditional)
  dated.delete(
    '/x',
    {
      config: {
        conditional: { getValidator: () => ({ lastModified: new Date('2024-05-01T10:00:00Z') }) },
      },
    },
    async (_req, reply) => reply.code(204).send(),
  )
  const stale = await dated.inject({
    method: 'DELETE',
    url: '/x',
    headers: { 'if-unmodified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' },
  })
  t.equal(stale.statusCode, 412)
  const fresh = await dated.inject({
    method: 'DELETE',
    url: '/x',
    headers: { 'if-unmodified-since': 'Wed, 01 May 2024 10:00:00 GMT' },
  })
  t.equal(fresh.statusCode, 204)
})

test('requirePrecondition: a precondition the check would ignore is none (428), an empty If-Match fails (412)', async (t) => {
  const { app, store, calls } = await build({ requirePrecondition: true })
  const before = snapshot(store)
  const cases: Array<[string, Record<string, string>, number]> = [
    ['an empty If-Match', { 'if-match': '' }, 412],
    ['a whitespace-only If-Match', { 'if-match': '   ' }, 412],
    ['an If-Match of empty members', { 'if-match': ' , ,' }, 412],
    ['If-Modified-Since (ignored on writes, §13.1.3)', { 'if-modified-since': OLD_DATE }, 428],
    ['an invalid If-Unmodified-Since (§13.1.4)', { 'if-unmodified-since': 'garbage' }, 428],
    ['a malformed If-None-Match', { 'if-none-match': 'garbage' }, 428],
    ['an empty If-None-Match', { 'if-none-match': '' }, 428],
  ]
  for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
    for (const [label, headers, status] of cases) {
      const res = await app.inject({
        method,
        url: '/books/7',
        headers,
        payload: method === 'DELETE' ? undefined : { title: 'Blind' },
      })
      t.equal(res.statusCode, status, `${method} with ${label}: ${status}`)
      t.equal(
        res.json().error.code,
        status === 412 ? ErrorCode.PRECONDITION_FAILED : ErrorCode.PRECONDITION_REQUIRED,
      )
    }
  }
  t.equal(snapshot(store), before, 'nothing written')
  t.same(calls, [], 'no handler ran')

  const undated = Fastify()
  await undated.register(restwellErrors)
  await undated.register(restwellConditional, { requirePrecondition: true })
  let writes = 0
  undated.put(
    '/x',
    { config: { conditional: { getValidator: () => ({ etag: 'e1' }) } } },
    async () => {
      writes++
      return { ok: true }
    },
  )
  const since = await undated.inject({
    method: 'PUT',
    url: '/x',
    headers: { 'if-unmodified-since': OLD_DATE },
  })
  t.equal(since.statusCode, 428, 'If-Unmodified-Since on a resource without a date checks nothing')
  t.equal(writes, 0)
  const tagged = await undated.inject({ method: 'PUT', url: '/x', headers: { 'if-match': '"e1"' } })
  t.equal(tagged.statusCode, 200)
  t.equal(writes, 1)
})

test('an empty If-Match fails closed even when no precondition is required', async (t) => {
  const { app, store, calls } = await build()
  const before = snapshot(store)
  const res = await app.inject({
    method: 'PUT',
    url: '/books/7',
    headers: { 'if-match': '' },
    payload: { title: 'Blind' },
  })
  t.equal(res.statusCode, 412)
  t.equal(res.json().error.details[0].field, 'headers/if-match')
  t.equal(snapshot(store), before)
  t.same(calls, [])
  const ignored = await app.inject({
    method: 'PUT',
    url: '/books/7',
    headers: { 'if-modified-since': OLD_DATE },
    payload: { title: 'Free' },
  })
  t.equal(ignored.statusCode, 200, 'an ignored precondition is no precondition: the write runs')
})

test('a write route without getValidator: If-Match and If-None-Match are 412, never ignored', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional)
  const ran: string[] = []
  const handler = async (request: FastifyRequest) => {
    ran.push(request.method)
    return { ok: true }
  }
  app.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url: '/things', handler })
  app.route({ method: ['GET', 'POST'], url: '/both', handler })
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    for (const [name, value] of [
      ['if-match', '"no-such-tag"'],
      ['if-match', '*'],
      ['if-match', ''],
      ['if-none-match', '*'],
      ['if-none-match', '"x"'],
    ] as const) {
      const res = await app.inject({ method, url: '/things', headers: { [name]: value } })
      const label = `${method} ${name}: ${value}`
      t.equal(res.statusCode, 412, label)
      const error = res.json().error
      t.equal(error.code, ErrorCode.PRECONDITION_FAILED, label)
      t.equal(error.details[0].field, `headers/${name}`, label)
      t.match(error.details[0].message, /cannot be checked/, label)
    }
  }
  const both = await app.inject({
    method: 'POST',
    url: '/things',
    headers: { 'if-match': '"a"', 'if-none-match': '"b"' },
  })
  t.equal(both.json().error.details[0].field, 'headers/if-match', 'If-Match first (§13.2.2)')
  t.same(ran, [], 'no handler ran')
  // What the evaluation ignores stays ignored: If-Unmodified-Since without a known date
  // (§13.1.4), a malformed If-None-Match, If-Modified-Since on a write (§13.1.3).
  for (const headers of [
    { 'if-unmodified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' },
    { 'if-none-match': 'junk' },
    { 'if-modified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' },
    {},
  ]) {
    const res = await app.inject({ method: 'POST', url: '/things', headers })
    t.equal(res.statusCode, 200, JSON.stringify(headers))
  }
  const read = await app.inject({ url: '/both', headers: { 'if-none-match': '"x"' } })
  t.equal(read.statusCode, 200, 'a read of the same route is checked as reads are')
  const write = await app.inject({ method: 'POST', url: '/both', headers: { 'if-match': '*' } })
  t.equal(write.statusCode, 412)
  const off = Fastify()
  await off.register(restwellConditional)
  off.post('/free', { config: { conditional: false } }, handler)
  const free = await off.inject({ method: 'POST', url: '/free', headers: { 'if-match': '"x"' } })
  t.equal(free.statusCode, 200, 'config.conditional: false leaves them to the handler')
})

test('a POST to a collection with getValidator: its target is the collection', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional)
  // `{}`: the collection exists, with no tag to compare.
  app.post(
    '/things',
    { config: { conditional: { getValidator: () => ({}) } } },
    async (_r, reply) => reply.code(201).send({ id: 1 }),
  )
  const status = async (headers: Record<string, string>) =>
    (await app.inject({ method: 'POST', url: '/things', headers })).statusCode
  t.equal(await status({ 'if-match': '*' }), 201, 'If-Match: * holds: the collection exists')
  t.equal(await status({ 'if-match': '"x"' }), 412, 'no tag of it matches')
  t.equal(await status({ 'if-none-match': '*' }), 412, 'only if it does not exist: it does')
  t.equal(await status({ 'if-none-match': '"x"' }), 201)
  t.equal(await status({}), 201)
})
