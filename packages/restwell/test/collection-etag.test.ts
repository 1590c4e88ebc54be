// A page of versioned items through the whole umbrella, over a real socket: its ETag comes from
// the items' ids and versions (no hashing of the bytes), each coding and representation keeps
// its own tag, and a matching If-None-Match is a 304.
import { request } from 'node:http'
import { gunzipSync } from 'node:zlib'
import Fastify from 'fastify'
import tap, { test } from 'tap'
import restwell from '../src/index.js'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

function get(port: number, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

const items = Array.from({ length: 20 }, (_, i) => ({
  id: i + 1,
  version: 1,
  title: `Book ${i + 1}`,
  summary: 'A long enough summary to make the page worth compressing. '.repeat(3),
}))

test('a versioned page: derived ETag per coding and representation, 304 on a match', async (t) => {
  const app = Fastify()
  tap.teardown(() => app.close())
  await app.register(restwell, { rateLimit: false })
  let handled = 0
  app.get(
    '/books',
    { config: { auth: false, pagination: true, conditional: { etagField: 'version' } } },
    async (request, reply) => {
      handled++
      const { offset, limit } = request.pagination as { offset: number; limit: number }
      return reply.paginate(items.slice(offset, offset + limit), { total: items.length })
    },
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const json = { accept: 'application/json' }

  const plain = await get(port, '/books?page=1&limit=20', json)
  t.equal(plain.status, 200)
  const tag = plain.headers.etag as string
  t.match(tag, /^"[A-Za-z0-9_-]{27}"$/)

  const zipped = await get(port, '/books?page=1&limit=20', { ...json, 'accept-encoding': 'gzip' })
  t.equal(zipped.headers['content-encoding'], 'gzip')
  t.equal(zipped.headers.etag, `${tag.slice(0, -1)}-gzip"`, 'the gzip variant has its own tag')
  t.same(JSON.parse(gunzipSync(zipped.body).toString()), JSON.parse(plain.body.toString()))

  for (const held of [tag, zipped.headers.etag as string]) {
    const again = await get(port, '/books?page=1&limit=20', {
      ...json,
      'accept-encoding': 'gzip',
      'if-none-match': held,
    })
    t.equal(again.status, 304, `304 for ${held}`)
    t.equal(again.body.length, 0)
    t.equal(again.headers.etag, held)
  }

  const hal = await get(port, '/books?page=1&limit=20', { accept: 'application/hal+json' })
  t.equal(hal.status, 200)
  t.not(hal.headers.etag, tag, 'another representation, another tag (hashed from its bytes)')

  items[0] = { ...(items[0] as (typeof items)[number]), version: 2, title: 'Book 1, revised' }
  const changed = await get(port, '/books?page=1&limit=20', { ...json, 'if-none-match': tag })
  t.equal(changed.status, 200, 'a new version of one item: the page again')
  t.not(changed.headers.etag, tag)
  t.equal(handled, 6, 'every request ran the handler (the items are read each time)')
})

test('a versioned page keeps byte-identical compressed answers until a version changes', async (t) => {
  const app = Fastify()
  tap.teardown(() => app.close())
  await app.register(restwell, { rateLimit: false })
  const page = items.map((item) => ({ ...item }))
  app.get(
    '/books',
    { config: { auth: false, pagination: true, conditional: { etagField: 'version' } } },
    async (request, reply) => {
      const { offset, limit } = request.pagination as { offset: number; limit: number }
      return reply.paginate(page.slice(offset, offset + limit), { total: page.length })
    },
  )
  const ask = () =>
    app.inject({
      url: '/books?page=1&limit=20',
      headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
    })
  const first = await ask()
  t.equal(first.headers['content-encoding'], 'gzip')
  const second = await ask()
  t.same(second.rawPayload, first.rawPayload, 'the same bytes (the second from the cache)')
  t.equal(second.headers.etag, first.headers.etag)

  page[3] = { ...(page[3] as (typeof page)[number]), version: 9, title: 'Changed' }
  const third = await ask()
  t.not(third.headers.etag, first.headers.etag)
  const body = JSON.parse(gunzipSync(third.rawPayload).toString())
  t.equal(body.data[3].title, 'Changed', 'a new version: compressed anew, not the cached page')
})
