import { gunzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import restwell, { httpErrors, type RestwellOptions } from '../src/index.js'

interface Book {
  id: number
  title: string
  version: number
}

const bookSchema = {
  type: 'object',
  required: ['id', 'title', 'version'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', readOnly: true },
    title: { type: 'string', minLength: 1 },
    version: { type: 'integer', readOnly: true },
  },
} as const

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

async function build(
  options: RestwellOptions = {},
): Promise<{ app: FastifyInstance; base: string; books: Map<number, Book> }> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, options)
  const books = new Map<number, Book>([[1, { id: 1, title: 'Dune', version: 1 }]])
  const getValidator = (request: { params: unknown }) => {
    const book = books.get(Number((request.params as { id: string }).id))
    return book === undefined ? null : { etag: `v${book.version}` }
  }
  app.get('/books', async () =>
    Array.from({ length: 40 }, (_, i) => ({
      id: i,
      title: `Book number ${i} with a long enough title`,
    })),
  )
  app.get(
    '/books/:id',
    {
      schema: { response: { 200: bookSchema } },
      config: { conditional: { etagField: 'version' } },
    },
    async (request) => books.get(Number((request.params as { id: string }).id)),
  )
  app.patch(
    '/books/:id',
    { schema: { response: { 200: bookSchema } }, config: { conditional: { getValidator } } },
    async (request, reply) => {
      const id = Number((request.params as { id: string }).id)
      const current = books.get(id)
      if (current === undefined) throw httpErrors.notFound()
      const next = (await request.applyPatch(current)) as Book
      const stored = { ...next, version: current.version + 1 }
      books.set(id, stored)
      reply.etag(`v${stored.version}`)
      return stored
    },
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  return { app, base: `http://127.0.0.1:${port}`, books }
}

test('gzip and identity bodies never share a strong ETag; both revalidate to 304', async (t) => {
  const { base } = await build()
  const plain = await fetch(`${base}/books`, { headers: { 'accept-encoding': 'identity' } })
  const gzip = await fetch(`${base}/books`, { headers: { 'accept-encoding': 'gzip' } })
  t.equal(plain.headers.get('content-encoding'), null)
  t.equal(gzip.headers.get('content-encoding'), 'gzip')
  const plainTag = plain.headers.get('etag')
  const gzipTag = gzip.headers.get('etag')
  t.ok(plainTag)
  t.not(plainTag, gzipTag)
  t.match(gzip.headers.get('vary'), /accept-encoding/i)
  const notModified = await fetch(`${base}/books`, {
    headers: { 'accept-encoding': 'gzip', 'if-none-match': String(gzipTag) },
  })
  t.equal(notModified.status, 304)
  t.equal(notModified.headers.get('etag'), gzipTag)
  t.equal(notModified.headers.get('content-length'), null)
  t.match(notModified.headers.get('vary'), /accept-encoding/i)
  const plain304 = await fetch(`${base}/books`, {
    headers: { 'accept-encoding': 'identity', 'if-none-match': String(plainTag) },
  })
  t.equal(plain304.status, 304)
})

test('a handler-known version answers 304 and carries the ETag on HEAD', async (t) => {
  const { base } = await build()
  const res = await fetch(`${base}/books/1`)
  t.equal(res.headers.get('etag'), '"1"')
  const head = await fetch(`${base}/books/1`, { method: 'HEAD' })
  t.equal(head.headers.get('etag'), '"1"')
  t.equal(head.headers.get('content-length'), res.headers.get('content-length'))
  const cached = await fetch(`${base}/books/1`, { headers: { 'if-none-match': 'W/"1"' } })
  t.equal(cached.status, 304)
})

test('PATCH with merge-patch and If-Match: 200 on match, 412 leaves the book unchanged', async (t) => {
  const { base, books } = await build()
  const stale = await fetch(`${base}/books/1`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': '"v9"' },
    body: JSON.stringify({ title: 'Changed' }),
  })
  t.equal(stale.status, 412)
  t.equal(((await stale.json()) as { error: { code: string } }).error.code, 'PRECONDITION_FAILED')
  t.equal(books.get(1)?.title, 'Dune')
  const ok = await fetch(`${base}/books/1`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': '"v1"' },
    body: JSON.stringify({ title: 'Dune Messiah' }),
  })
  t.equal(ok.status, 200)
  t.same(await ok.json(), { id: 1, title: 'Dune Messiah', version: 2 })
  t.equal(ok.headers.get('etag'), '"v2"')
  const jsonPatch = await fetch(`${base}/books/1`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json-patch+json', 'if-match': '"v2"' },
    body: JSON.stringify([{ op: 'replace', path: '/id', value: 5 }]),
  })
  t.equal(jsonPatch.status, 422, 'read-only fields cannot be patched')
  t.equal(books.get(1)?.id, 1)
  const wrongType = await fetch(`${base}/books/1`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  t.equal(wrongType.status, 415)
  t.equal(
    wrongType.headers.get('accept-patch'),
    'application/json-patch+json, application/merge-patch+json',
  )
  const options = await fetch(`${base}/books/1`, { method: 'OPTIONS' })
  t.equal(
    options.headers.get('accept-patch'),
    'application/json-patch+json, application/merge-patch+json',
  )
  t.equal(options.headers.get('allow'), 'GET, HEAD, PATCH, OPTIONS')
})

test('gzip body decompresses to the same JSON', async (t) => {
  const { app } = await build()
  const res = await app.inject({ url: '/books', headers: { 'accept-encoding': 'gzip' } })
  t.equal(res.headers['content-encoding'], 'gzip')
  t.equal(JSON.parse(gunzipSync(res.rawPayload).toString()).length, 40)
})

test('conditional, compress and patch can each be switched off', async (t) => {
  const { app } = await build({ conditional: false, compress: false, patch: false })
  const res = await app.inject({ url: '/books', headers: { 'accept-encoding': 'gzip' } })
  t.equal(res.headers.etag, undefined)
  t.equal(res.headers['content-encoding'], undefined)
  const tuned = await build({
    compress: { threshold: 10_000_000, encodings: ['br'], gzipLevel: 1, brotliQuality: 1 },
  })
  const small = await tuned.app.inject({ url: '/books', headers: { 'accept-encoding': 'br' } })
  t.equal(small.headers['content-encoding'], undefined, 'below the threshold: not compressed')
})
