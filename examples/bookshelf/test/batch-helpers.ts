/** Helpers of the batch tests: send a batch, count books, the atomic scenario run on PGlite and PostgreSQL. */
import type { Test } from 'tap'
import type { Running } from './helpers.js'

export interface Answer {
  id: string
  status: number
  headers: Record<string, string>
  body?: unknown
  sameAs?: string
  rolledBack?: boolean
}

export interface Op {
  id: string
  method: string
  url: string
  headers?: Record<string, string>
  body?: unknown
  dependsOn?: string[]
}

export async function batch(
  running: Running,
  body: unknown,
): Promise<{ status: number; responses: Answer[]; raw: Record<string, unknown> }> {
  const response = await running.call('POST', '/batch', {
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const raw = (await response.json()) as Record<string, unknown>
  return { status: response.status, responses: (raw.responses ?? []) as Answer[], raw }
}

export async function bookCount(running: Running): Promise<number> {
  const { rows } = await running.db.query<{ n: number }>(
    'select count(*)::int as n from books where deleted_at is null',
  )
  return rows[0]?.n as number
}

/** Atomic mode: a failure rolls every write back (book 5 patched, book 2 never deleted); success commits them all. */
export async function atomicRollsBack(t: Test, running: Running): Promise<void> {
  const before = await bookCount(running)
  const patch: Op = {
    id: 'patch',
    method: 'PATCH',
    url: '/v1/books/5',
    headers: { 'if-match': '"1"', 'content-type': 'application/merge-patch+json' },
    body: { title: 'Renamed' },
  }
  const failing = await batch(running, {
    atomic: true,
    requests: [
      {
        id: 'new',
        method: 'POST',
        url: '/v1/books',
        body: { title: 'Kept?', isbn: '978-0000000001', authorId: 1 },
      },
      patch,
      {
        id: 'duplicate',
        method: 'POST',
        url: '/v1/books',
        body: { title: 'Twice', isbn: '978-0000000001', authorId: 1 },
        dependsOn: ['new'],
      },
      { id: 'later', method: 'DELETE', url: '/v1/books/2' },
    ],
  })
  t.equal(failing.status, 207)
  t.same(
    failing.responses.map((r) => [r.id, r.status, r.rolledBack ?? false]),
    [
      ['new', 201, true],
      ['patch', 200, true],
      ['duplicate', 409, false],
      ['later', 424, false],
    ],
    'each status, the rolled-back ones marked',
  )
  t.equal(await bookCount(running), before, 'the created book was rolled back')
  const book = await running.call('GET', '/v1/books/5')
  t.equal(book.headers.get('etag'), '"1"', 'the patch was rolled back')
  t.equal((await running.call('GET', '/v1/books/2')).status, 200, 'the delete never ran')

  const passing = await batch(running, {
    atomic: true,
    requests: [
      {
        id: 'new',
        method: 'POST',
        url: '/v1/books',
        body: { title: 'Kept', isbn: '978-0000000002', authorId: 1 },
      },
      patch,
    ],
  })
  t.same(
    passing.responses.map((r) => [r.status, r.rolledBack ?? false]),
    [
      [201, false],
      [200, false],
    ],
  )
  t.equal(await bookCount(running), before + 1, 'committed')
  t.equal((await running.call('GET', '/v1/books/5')).headers.get('etag'), '"2"')
}
