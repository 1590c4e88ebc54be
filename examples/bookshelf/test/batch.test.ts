/** POST /batch on the bookshelf (PGlite), over a real socket; atomic mode on PostgreSQL is in batch-postgres.test.ts. */
import t from 'tap'
import { atomicRollsBack, batch, bookCount, type Op } from './batch-helpers.js'
import { READ, type Running, start, tempDir } from './helpers.js'

/**
 * A mix of reads and writes on two books (ETag "1", available), in an order fixed by
 * `dependsOn`; `n` keeps the ISBNs of two runs apart.
 */
function mixed(patched: number, deleted: number, n: number): Op[] {
  const mergePatch = { 'if-match': '"1"', 'content-type': 'application/merge-patch+json' }
  return [
    { id: 'read', method: 'GET', url: `/v1/books/${patched}` },
    { id: 'page', method: 'GET', url: '/v1/books?limit=2&sort=title' },
    {
      id: 'create',
      method: 'POST',
      url: '/v1/books',
      body: { title: 'Dune', isbn: `978-04410135${n}`, authorId: 1 },
    },
    {
      id: 'patch',
      method: 'PATCH',
      url: `/v1/books/${patched}`,
      headers: mergePatch,
      body: { status: 'checked-out' },
      dependsOn: ['read'],
    },
    {
      id: 'stale',
      method: 'PATCH',
      url: `/v1/books/${patched}`,
      headers: mergePatch,
      body: { status: 'available' },
      dependsOn: ['patch'],
    },
    { id: 'delete', method: 'DELETE', url: `/v1/books/${deleted}`, headers: { 'if-match': '"1"' } },
    { id: 'deleted', method: 'GET', url: `/v1/books/${deleted}`, dependsOn: ['delete'] },
    { id: 'missing', method: 'GET', url: '/v1/books/9999' },
    {
      id: 'reader-writes',
      method: 'POST',
      url: '/v1/books',
      headers: { authorization: READ },
      body: { title: 'Emma', isbn: `978-01414395${n}`, authorId: 1 },
    },
    {
      id: 'invalid',
      method: 'POST',
      url: '/v1/books',
      body: { title: '', isbn: 'x', authorId: 1 },
    },
    {
      id: 'xml',
      method: 'GET',
      url: `/v1/books/${patched}`,
      headers: { accept: 'application/xml' },
    },
  ]
}

/** The same operations sent one by one, in an order that respects `dependsOn`. */
async function alone(running: Running, ops: Op[]): Promise<Map<string, Response>> {
  const answers = new Map<string, Response>()
  for (const op of ops) {
    const init: { headers?: Record<string, string>; body?: unknown } = {}
    if (op.headers !== undefined) init.headers = op.headers
    if (op.body !== undefined) init.body = op.body
    answers.set(op.id, await running.call(op.method, op.url, init))
  }
  return answers
}

// One app (seeding is slow on a shared CPU): the mixed operations run alone on books 1 and 3,
// then in a batch on books 4 and 6; the other tests use books 2, 5 and 7.
const running = await start(t, { dataDir: tempDir(t) })

t.test('a mixed batch answers 207, each operation as it would be answered alone', async (t) => {
  const expected = await alone(running, mixed(1, 3, 10))
  const before = await bookCount(running)
  const ops = mixed(4, 6, 20)
  const { status, responses } = await batch(running, { requests: ops })
  t.equal(status, 207)
  t.same(
    responses.map((r) => r.id),
    ops.map((op) => op.id),
    'in request order',
  )
  for (const answer of responses) {
    const reference = expected.get(answer.id) as Response
    t.equal(answer.status, reference.status, `${answer.id}: ${reference.status}`)
    t.equal(
      answer.headers['content-type'],
      reference.headers.get('content-type') ?? undefined,
      `${answer.id}: Content-Type`,
    )
    t.equal('etag' in answer.headers, reference.headers.has('etag'), `${answer.id}: ETag`)
  }
  const byId = new Map(responses.map((r) => [r.id, r]))
  t.same(
    ['create', 'patch', 'stale', 'delete', 'deleted', 'missing', 'reader-writes', 'invalid'].map(
      (id) => byId.get(id)?.status,
    ),
    [201, 200, 412, 200, 200, 404, 403, 400],
  )
  t.equal(byId.get('patch')?.headers.etag, '"2"')
  const error = byId.get('missing')?.body as { error: { requestId: string } }
  t.equal(
    error.error.requestId,
    byId.get('missing')?.headers['x-request-id'],
    'errors keep their requestId',
  )
  t.match(byId.get('xml')?.body, /^<\?xml/, 'an XML body is text')
  t.match(byId.get('page')?.headers.link, /rel="next"/, 'pagination links')
  t.equal(await bookCount(running), before, 'one created, one deleted, as alone')
})

t.test(
  'dependsOn: chains run in order, a failed dependency is 424 without running; 208 for a repeat',
  async (t) => {
    const chain = await batch(running, {
      requests: [
        {
          id: 'author',
          method: 'POST',
          url: '/v1/authors',
          body: { name: 'Frank Herbert' },
        },
        { id: 'list', method: 'GET', url: '/v1/authors?limit=100', dependsOn: ['author'] },
        { id: 'missing', method: 'GET', url: '/v1/books/9999' },
        {
          id: 'blocked',
          method: 'PATCH',
          url: '/v1/books/7',
          headers: { 'if-match': '"1"', 'content-type': 'application/merge-patch+json' },
          body: { status: 'archived' },
          dependsOn: ['missing'],
        },
        { id: 'after-blocked', method: 'DELETE', url: '/v1/books/7', dependsOn: ['blocked'] },
        { id: 'first', method: 'GET', url: '/v1/books/2' },
        { id: 'again', method: 'GET', url: '/v1/books/2' },
        { id: 'other-headers', method: 'GET', url: '/v1/books/2', headers: { accept: 'text/csv' } },
      ],
    })
    t.equal(chain.status, 207)
    const [author, list, missing, blocked, afterBlocked, first, again, other] = chain.responses
    t.equal(author?.status, 201)
    t.match(
      JSON.stringify(list?.body),
      /Frank Herbert/,
      'the list ran after the author was created',
    )
    t.equal(missing?.status, 404)
    t.equal(blocked?.status, 424)
    t.match(blocked?.body, { error: { code: 'FAILED_DEPENDENCY', message: /"missing" failed/ } })
    t.equal(afterBlocked?.status, 424, 'a 424 fails its dependents too')
    const book = await running.call('GET', '/v1/books/7')
    t.equal(book.status, 200, 'nothing ran: the book is still there')
    t.equal(book.headers.get('etag'), '"1"', 'and unchanged')
    t.equal(first?.status, 200)
    t.same(again, { id: 'again', status: 208, headers: {}, sameAs: 'first' }, '208, no body')
    t.not(other?.status, 208, 'other headers: run')
    t.ok(other?.body, 'with a body')
  },
)

t.test('hostile batches are one clean 4xx in the error form, with nothing written', async (t) => {
  const before = await bookCount(running)
  const post = (id: string, extra: Partial<Op> = {}): Op => ({
    id,
    method: 'POST',
    url: '/v1/books',
    body: { title: `Book ${id}`, isbn: `isbn-${id}`, authorId: 1 },
    ...extra,
  })
  const chain = (n: number, cycle: boolean): Op[] =>
    Array.from({ length: n }, (_, i) =>
      post(`op${i}`, { dependsOn: i === 0 ? (cycle ? [`op${n - 1}`] : []) : [`op${i - 1}`] }),
    )
  const cases: [string, unknown, number, RegExp][] = [
    [
      '10,000 operations',
      {
        requests: Array.from({ length: 10_000 }, (_, i) => ({
          id: `${i}`,
          method: 'POST',
          url: '/v1/books',
        })),
      },
      400,
      /at most 50/,
    ],
    [
      '10,000 operations over the size limit',
      { requests: Array.from({ length: 10_000 }, (_, i) => post(`${i}`)) },
      413,
      /too large/,
    ],
    ['a deep chain that closes into a cycle', { requests: chain(50, true) }, 400, /cycle/],
    [
      'a cycle of two',
      { requests: [post('a', { dependsOn: ['b'] }), post('b', { dependsOn: ['a'] })] },
      400,
      /cycle/,
    ],
    ['a self-reference', { requests: [post('a', { dependsOn: ['a'] })] }, 400, /itself/],
    [
      'an unknown dependsOn',
      { requests: [post('a', { dependsOn: ['zz'] })] },
      400,
      /names no operation/,
    ],
    ['duplicate ids', { requests: [post('a'), post('a')] }, 400, /id of another operation/],
    ['a nested batch', { requests: [post('a'), post('b', { url: '/batch' })] }, 400, /do not nest/],
    [
      'an absolute URL',
      { requests: [post('a', { url: 'http://evil.example/v1/books' })] },
      400,
      /path on this API/,
    ],
    [
      'a method override parameter',
      { requests: [post('a', { url: '/v1/books/1?_method=DELETE' })] },
      400,
      /override/,
    ],
    [
      'a method override header',
      { requests: [post('a', { headers: { 'X-HTTP-Method-Override': 'DELETE' } })] },
      400,
      /may not be set/,
    ],
    ['requests that are not an array', { requests: post('a') }, 400, /must be an array/],
    ['a body that is not JSON', '{"requests": [', 400, /JSON/i],
    [
      'a huge body',
      { requests: [post('a', { body: { title: 'x'.repeat(2 * 1024 * 1024) } })] },
      413,
      /./,
    ],
  ]
  for (const [name, body, status, message] of cases) {
    const answer = await batch(running, body)
    t.equal(answer.status, status, name)
    t.match(answer.raw, { error: { message, requestId: String } }, `${name}: the error form`)
  }
  t.equal(await bookCount(running), before, 'nothing written')
  const deep = await batch(running, {
    requests: Array.from({ length: 50 }, (_, i) => ({
      id: `r${i}`,
      method: 'GET',
      url: `/v1/books?limit=1&page=${i + 1}`,
      ...(i === 0 ? {} : { dependsOn: [`r${i - 1}`] }),
    })),
  })
  t.equal(deep.status, 207, 'a chain of 50 reads runs')
  t.ok(deep.responses.every((r) => r.status === 200))
})

t.test('the batch endpoint is in the OpenAPI document', async (t) => {
  const doc = await running.json<{
    paths: Record<string, Record<string, Record<string, unknown>>>
  }>(await running.call('GET', '/openapi.json'))
  const post = doc.paths['/batch']?.post as {
    requestBody: unknown
    responses: Record<string, unknown>
  }
  t.ok(post, 'POST /batch is described')
  t.match(post.requestBody, {
    content: { 'application/json': { schema: { properties: { requests: { type: 'array' } } } } },
  })
  t.match(post.responses, {
    207: { content: { 'application/json': { schema: { properties: { responses: Object } } } } },
    400: { content: Object },
    413: { content: Object },
  })
})

t.test('atomic mode rolls back on PGlite', (t) => atomicRollsBack(t, running))
