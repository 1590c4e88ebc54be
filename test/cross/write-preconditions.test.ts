/** Cross-plugin: preconditions on every write under the umbrella, batch operations included. */
import Fastify, { type FastifyInstance } from 'fastify'
import restwell from 'restwell'
import tap, { test } from 'tap'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

async function build(): Promise<{ app: FastifyInstance; books: string[] }> {
  const app = Fastify()
  apps.push(app)
  const books: string[] = []
  await app.register(restwell, { batch: {} })
  app.post('/books', async (request, reply) => {
    books.push((request.body as { title: string }).title)
    return reply.created(`/books/${books.length}`, { id: books.length })
  })
  // A collection that says it exists, with no tag to compare.
  app.post(
    '/authors',
    { config: { conditional: { getValidator: () => ({}) } } },
    async (_r, reply) => reply.created('/authors/1', { id: 1 }),
  )
  return { app, books }
}

const post = (app: FastifyInstance, url: string, headers: Record<string, string>) =>
  app.inject({ method: 'POST', url, headers, payload: { title: 'Dune' } })

test('POST with If-Match or If-None-Match is 412 where no validator is known: nothing created', async (t) => {
  const { app, books } = await build()
  const cases: Record<string, string>[] = [
    { 'if-match': '"no-such-tag"' },
    { 'if-none-match': '*' },
  ]
  for (const headers of cases) {
    const res = await post(app, '/books', headers)
    t.equal(res.statusCode, 412, JSON.stringify(headers))
    t.equal(res.json().error.code, 'PRECONDITION_FAILED')
  }
  t.same(books, [])
  t.equal((await post(app, '/books', {})).statusCode, 201, 'an unconditional POST creates')
  t.equal(
    (await post(app, '/authors', { 'if-match': '*' })).statusCode,
    201,
    'the collection exists',
  )
  t.equal((await post(app, '/authors', { 'if-none-match': '*' })).statusCode, 412)
})

test('/batch: If-Match on the batch is 412; on an operation, that operation is 412', async (t) => {
  const { app, books } = await build()
  const operations = [
    { id: 'stale', method: 'POST', url: '/books', headers: { 'if-match': '"x"' }, body: {} },
    { id: 'plain', method: 'POST', url: '/books', body: { title: 'Kindred' } },
  ]
  const refused = await app.inject({
    method: 'POST',
    url: '/batch',
    headers: { 'if-match': '"no-such-tag"' },
    payload: { requests: operations },
  })
  t.equal(refused.statusCode, 412)
  t.same(books, [], 'nothing ran')
  const ran = await app.inject({ method: 'POST', url: '/batch', payload: { requests: operations } })
  t.equal(ran.statusCode, 207)
  t.same(
    ran.json().responses.map((r: { id: string; status: number }) => [r.id, r.status]),
    [
      ['stale', 412],
      ['plain', 201],
    ],
  )
  t.same(books, ['Kindred'])
})
