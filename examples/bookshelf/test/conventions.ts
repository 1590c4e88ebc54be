/**
 * Every convention of the bookshelf, checked over a real socket on a freshly seeded database.
 * Run by pglite.test.ts and postgres.test.ts against the same app on the two engines.
 */
import type { Test } from 'tap'
import { guarded } from '../src/db-errors.js'
import { coverPng } from '../src/seed.js'
import { READ, type Running, WRITE } from './helpers.js'
import { until } from '../../../test/helpers/patience.js'

type Body = Record<string, unknown>
type ErrorBody = {
  error: { code: string; message: string; requestId: string; details: { field: string }[] }
}
type PageBody = {
  data: Body[]
  meta: { total: number; totalPages: number; page: number }
  links: Record<string, string>
}

const ids = (page: PageBody): unknown[] => page.data.map((item) => item.id)

export async function collections(t: Test, { call, json }: Running): Promise<void> {
  const read = { authorization: READ }
  const page = await call('GET', '/v1/books?status=available&sort=-publishedAt&limit=2', {
    headers: read,
  })
  t.equal(page.status, 200)
  t.equal(page.headers.get('x-total-count'), '4')
  const link = page.headers.get('link') ?? ''
  t.match(link, /<\/v1\/books\?status=available&sort=-publishedAt&page=2&limit=2>; rel="next"/)
  t.match(link, /rel="last"/)
  const body = await json<PageBody>(page)
  t.same(ids(body), [4, 3], 'available books, newest first')
  t.equal(body.meta.totalPages, 2)

  const second = await json<PageBody>(
    await call('GET', '/v1/books?status=available&sort=-publishedAt&limit=2&page=2', {
      headers: read,
    }),
  )
  t.same(ids(second), [1, 6])
  const byAuthor = await json<PageBody>(
    await call('GET', '/v1/books?authorId=3&sort=title', { headers: read }),
  )
  t.same(ids(byAuthor), [6, 7], 'filter by authorId, sort by title')
  const byCreated = await json<PageBody>(
    await call('GET', '/v1/books?sort=-createdAt,title&limit=3', { headers: read }),
  )
  t.equal(byCreated.data.length, 3)

  for (const [query, code] of [
    ['sort=isbn', 'INVALID_SORT'],
    ['colour=red', 'INVALID_FILTER'],
    ['status=lost', 'INVALID_FILTER'],
    ['limit=1000', 'INVALID_PAGINATION'],
  ] as const) {
    const bad = await call('GET', `/v1/books?${query}`, { headers: read })
    t.equal(bad.status, 400, query)
    t.equal((await json<ErrorBody>(bad)).error.code, code, query)
  }
  // As the README says: an unknown parameter is a 400 on a collection, which filters by its
  // parameters, and ignored where no parameter filters (an item).
  t.equal((await call('GET', '/v1/books/1?colour=red', { headers: read })).status, 200)

  const authors = await json<PageBody>(
    await call('GET', '/v1/authors?sort=-name', { headers: read }),
  )
  t.same(
    authors.data.map((a) => a.name),
    ['Ursula K. Le Guin', 'Stanisław Lem', 'Octavia E. Butler'],
  )
  const leGuin = await call('GET', '/v1/authors/1/books?sort=publishedAt', { headers: read })
  t.equal(leGuin.headers.get('x-total-count'), '3')
  t.same(ids(await json<PageBody>(leGuin)), [2, 1, 3])
  t.equal((await call('GET', '/v1/authors/99/books', { headers: read })).status, 404)

  const gz = await call('GET', '/v1/books', { headers: { ...read, 'accept-encoding': 'gzip' } })
  t.equal(gz.headers.get('content-encoding'), 'gzip', 'compressed')
  t.match(gz.headers.get('etag'), /-gzip"$/, 'the gzip body has its own ETag')
  t.equal((await json<PageBody>(gz)).data.length, 7)
}

export async function readsAndNegotiation(t: Test, { call, json }: Running): Promise<void> {
  const read = { authorization: READ }
  const book = await call('GET', '/v1/books/1', { headers: read })
  t.equal(book.status, 200)
  t.equal(book.headers.get('etag'), '"1"')
  const lastModified = book.headers.get('last-modified') as string
  t.ok(lastModified)
  const body = await json(book)
  t.match(body, {
    id: 1,
    title: 'The Left Hand of Darkness',
    status: 'available',
    statusLabel: 'Available',
    authorId: 1,
    publishedAt: '1969-03-01',
  })

  const cached = await call('GET', '/v1/books/1', { headers: { ...read, 'if-none-match': '"1"' } })
  t.equal(cached.status, 304)
  t.equal(await cached.text(), '')
  const since = await call('GET', '/v1/books/1', {
    headers: { ...read, 'if-modified-since': lastModified },
  })
  t.equal(since.status, 304)

  const head = await call('HEAD', '/v1/books/1', { headers: read })
  t.equal(head.status, 200)
  t.equal(head.headers.get('etag'), '"1"')
  t.equal(head.headers.get('content-length'), book.headers.get('content-length'))
  t.equal(await head.text(), '')
  t.equal((await call('HEAD', '/v1/books/999', { headers: read })).status, 404)

  const french = await call('GET', '/v1/books/1', {
    headers: { ...read, 'accept-language': 'fr-CH, de;q=0.5' },
  })
  t.equal(french.headers.get('content-language'), 'fr')
  t.equal(french.headers.get('etag'), '"1;json;fr"', 'each language has its own tag')
  t.equal((await json(french)).statusLabel, 'Disponible')
  t.match(french.headers.get('vary'), /Accept-Language/)

  const xml = await call('GET', '/v1/books/1', { headers: { ...read, accept: 'application/xml' } })
  t.match(xml.headers.get('content-type'), /^application\/xml/)
  t.equal(xml.headers.get('etag'), '"1;xml"')
  t.match(await xml.text(), /<title>The Left Hand of Darkness<\/title>/)
  // The JSON's tag names the JSON only: no 304 for the XML (RFC 9110 §8.8.3).
  const crossed = await call('GET', '/v1/books/1', {
    headers: { ...read, accept: 'application/xml', 'if-none-match': '"1"' },
  })
  t.equal(crossed.status, 200)
  t.equal(crossed.headers.get('etag'), '"1;xml"')
  t.match(await crossed.text(), /^<\?xml/)
  const own = await call('GET', '/v1/books/1', {
    headers: { ...read, accept: 'application/xml', 'if-none-match': '"1;xml"' },
  })
  t.equal(own.status, 304)
  const viaFormat = await call('GET', '/v1/books/1?format=xml', { headers: read })
  t.match(viaFormat.headers.get('content-type'), /^application\/xml/)

  const hal = await call('GET', '/v1/books?limit=2', {
    headers: { ...read, accept: 'application/hal+json' },
  })
  t.match(hal.headers.get('content-type'), /^application\/hal\+json/)
  t.match(await json(hal), {
    _links: {
      self: { href: '/v1/books?page=1&limit=2' },
      next: { href: '/v1/books?page=2&limit=2' },
    },
    _embedded: { books: [{ id: 2 }, { id: 4 }] },
  })

  const jsonApi = await call('GET', '/v1/books/1', {
    headers: { ...read, accept: 'application/vnd.api+json' },
  })
  t.equal(jsonApi.headers.get('content-type'), 'application/vnd.api+json')
  t.match(await json(jsonApi), {
    data: { type: 'books', id: '1', attributes: { title: 'The Left Hand of Darkness' } },
  })

  const siren = await call('GET', '/v1/books/1', {
    headers: { ...read, accept: 'application/vnd.siren+json' },
  })
  t.match(await json(siren), {
    class: ['books'],
    properties: { title: 'The Left Hand of Darkness' },
  })

  const refused = await call('GET', '/v1/books/1', { headers: { ...read, accept: 'text/csv' } })
  t.equal(refused.status, 406)
  t.match(refused.headers.get('accept'), /application\/json/)

  const badId = await call('GET', '/v1/books/abc', { headers: read })
  t.equal(badId.status, 400)
  t.match(await json(badId), {
    error: { code: 'VALIDATION_ERROR', details: [{ field: 'params/id' }] },
  })
  const missing = await call('GET', '/v1/books/999', { headers: read })
  t.equal(missing.status, 404)
  const missingBody = await json<ErrorBody>(missing)
  t.equal(missingBody.error.code, 'NOT_FOUND')
  t.equal(missingBody.error.requestId, missing.headers.get('x-request-id'))
  // What Fastify's router refuses (frameworkErrors) is answered in the same form.
  const badEscape = await call('GET', '/v1/books/%E0%A4%A', { headers: read })
  t.equal(badEscape.status, 400)
  const badEscapeBody = await json<ErrorBody>(badEscape)
  t.equal(badEscapeBody.error.code, 'BAD_REQUEST')
  t.equal(badEscapeBody.error.requestId, badEscape.headers.get('x-request-id'))
}

export async function methodsAndAuth(t: Test, { call, json }: Running): Promise<void> {
  const notAllowed = await call('POST', '/v1/books/1', { body: {} })
  t.equal(notAllowed.status, 405)
  t.equal(notAllowed.headers.get('allow'), 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS')
  t.equal(
    notAllowed.headers.get('accept-patch'),
    'application/json-patch+json, application/merge-patch+json',
  )
  const options = await call('OPTIONS', '/v1/books')
  t.equal(options.status, 200)
  t.equal(options.headers.get('allow'), 'GET, HEAD, POST, OPTIONS, QUERY')
  t.equal((await call('PROPFIND', '/v1/books')).status, 501)
  t.equal((await call('GET', '/v1/nothings')).status, 404)

  const anonymous = await call('GET', '/v1/books', { headers: { authorization: null } })
  t.equal(anonymous.status, 401)
  t.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="api"')
  t.equal((await json<ErrorBody>(anonymous)).error.code, 'MISSING_CREDENTIALS')
  const hidden = await call('GET', '/v1/nothings', { headers: { authorization: null } })
  t.equal(hidden.status, 401, 'unknown paths are not revealed to anonymous clients')
  const wrong = await call('GET', '/v1/books', { headers: { authorization: 'Bearer nope' } })
  t.equal(wrong.status, 401)
  t.match(wrong.headers.get('www-authenticate'), /error="invalid_token"/)
  const readOnly = await call('POST', '/v1/books', {
    headers: { authorization: READ },
    body: { title: 'X', isbn: '978-0000000001', authorId: 1 },
  })
  t.equal(readOnly.status, 403)
  t.match(readOnly.headers.get('www-authenticate'), /error="insufficient_scope".*scope="write"/)

  const preflight = await call('OPTIONS', '/v1/books/1', {
    headers: {
      authorization: null,
      origin: 'http://elsewhere.test',
      'access-control-request-method': 'PATCH',
      'access-control-request-headers': 'authorization, if-match, content-type',
    },
  })
  t.equal(preflight.status, 200)
  t.match(preflight.headers.get('access-control-allow-methods'), /PATCH/)
  t.match(preflight.headers.get('access-control-allow-headers'), /authorization/)
  t.equal(preflight.headers.get('access-control-max-age'), '86400')

  const docs = await call('GET', '/openapi.json', { headers: { authorization: null } })
  t.equal(docs.status, 200)
  const spec = await json<{ paths: Record<string, unknown> }>(docs)
  for (const path of [
    '/v1/books',
    '/v1/books/{id}',
    '/v1/books/{id}/cover',
    '/v1/authors/{id}/books',
    '/v2/books',
    '/v1/exports',
  ]) {
    t.ok(spec.paths[path], `OpenAPI documents ${path}`)
  }
  // Every operation documents how it succeeds, body-less answers included.
  const responses = (path: string, method: string): Record<string, unknown> =>
    (spec.paths[path] as Record<string, { responses: Record<string, unknown> }>)[method]!.responses
  t.ok(responses('/v1/authors/{id}', 'delete')['204'])
  t.ok(responses('/v1/books/{id}/cover', 'put')['201'])
  t.ok(responses('/v1/books/{id}/cover', 'put')['204'])
  t.ok(responses('/v1/exports', 'post')['202'])
  t.ok(responses('/jobs/{id}', 'get')['401'], "the jobs' status route is described too")
  const ui = await call('GET', '/docs', { headers: { authorization: null } })
  t.equal(ui.status, 200)
  t.match(await ui.text(), /Swagger UI/)
  const asset = await call('GET', '/docs/static/swagger-ui.css', {
    headers: { authorization: null },
  })
  t.equal(asset.status, 200)
}

/**
 * POST /v1/books with an Idempotency-Key: a retry is the first answer again (no second book),
 * another body under the key 422, a bad key 400; concurrent retries run the handler once.
 */
async function idempotentCreation(
  t: Test,
  { call, json }: Pick<Running, 'call' | 'json'>,
  dune: Body,
  key: Record<string, string>,
  createdBody: string,
): Promise<void> {
  const retry = await call('POST', '/v1/books', { body: dune, headers: key })
  t.equal(retry.status, 201, 'a retry is the first answer, not 409 ISBN_TAKEN')
  t.equal(retry.headers.get('idempotent-replayed'), 'true')
  t.equal(retry.headers.get('location'), '/v1/books/8')
  t.equal(retry.headers.get('etag'), '"1"')
  t.equal(await retry.text(), createdBody, 'byte for byte')
  const other = await call('POST', '/v1/books', { body: { ...dune, title: 'Emma' }, headers: key })
  t.equal(other.status, 422)
  t.equal((await json<ErrorBody>(other)).error.code, 'IDEMPOTENCY_KEY_REUSED')
  const bad = await call('POST', '/v1/books', { body: dune, headers: { 'idempotency-key': 'x' } })
  t.equal(bad.status, 400)
  t.equal((await json<ErrorBody>(bad)).error.details[0]?.field, 'headers/idempotency-key')
  // Ten at once under a new key for a taken ISBN: one runs (409 ISBN_TAKEN, an outcome that is
  // kept), the others are 409 IDEMPOTENCY_KEY_IN_USE or its replay.
  const fresh = { 'idempotency-key': '"concurrent"' }
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => call('POST', '/v1/books', { body: dune, headers: fresh })),
  )
  const codes = await Promise.all(
    answers.map(async (answer) => {
      const { code } = (await json<ErrorBody>(answer)).error
      return `${answer.status} ${code}${answer.headers.get('idempotent-replayed') ? ' replayed' : ''}`
    }),
  )
  t.equal(codes.filter((c) => c === '409 ISBN_TAKEN').length, 1, 'the handler ran once')
  t.ok(
    codes.every((c) => /^409 (ISBN_TAKEN|IDEMPOTENCY_KEY_IN_USE|ISBN_TAKEN replayed)$/.test(c)),
    codes.join(', '),
  )
}

export async function writes(t: Test, { call, json }: Running): Promise<void> {
  const dune = { title: 'Dune', isbn: '978-0441013593', authorId: 1 }
  const key = { 'idempotency-key': '"8e03978e-40d5-43e8-bc93-6894a57f9324"' }
  const created = await call('POST', '/v1/books', { body: dune, headers: key })
  t.equal(created.status, 201)
  t.equal(created.headers.get('location'), '/v1/books/8')
  t.equal(created.headers.get('etag'), '"1"')
  const createdBody = await created.text()
  t.match(JSON.parse(createdBody), { id: 8, title: 'Dune', status: 'available', authorId: 1 })
  await idempotentCreation(t, { call, json }, dune, key, createdBody)

  // A precondition a POST cannot check is not ignored: nothing is created (RFC 9110 §13.1.1).
  const preconditions: Record<string, string>[] = [
    { 'if-match': '"no-such-tag"' },
    { 'if-none-match': '*' },
  ]
  for (const headers of preconditions) {
    const conditional = await call('POST', '/v1/books', {
      body: { ...dune, isbn: '978-0000000004' },
      headers,
    })
    t.equal(conditional.status, 412, JSON.stringify(headers))
    t.equal((await json<ErrorBody>(conditional)).error.code, 'PRECONDITION_FAILED')
  }
  const batched = await call('POST', '/batch', {
    body: { requests: [{ id: 'a', method: 'POST', url: '/v1/books', body: dune }] },
    headers: { 'if-match': '"no-such-tag"' },
  })
  t.equal(batched.status, 412, 'POST /batch too')

  const duplicate = await call('POST', '/v1/books', { body: dune })
  t.equal(duplicate.status, 409)
  t.match(await json(duplicate), {
    error: { code: 'ISBN_TAKEN', details: [{ field: 'body/isbn' }] },
  })
  const orphan = await call('POST', '/v1/books', {
    body: { ...dune, isbn: '978-0000000002', authorId: 42 },
  })
  t.equal(orphan.status, 422)
  t.equal((await json<ErrorBody>(orphan)).error.code, 'UNKNOWN_AUTHOR')
  const invalid = await call('POST', '/v1/books', { body: { ...dune, title: '' } })
  t.equal(invalid.status, 400)
  t.match(await json(invalid), {
    error: { code: 'VALIDATION_ERROR', details: [{ field: 'body/title' }] },
  })
  const notJson = await call('POST', '/v1/books', { body: 'title=Dune', type: 'text/plain' })
  t.equal(notJson.status, 415)
  // An unknown field is a 400 naming it, as an unknown query parameter is (Ajv removeAdditional: false).
  const unknown = await call('POST', '/v1/books', {
    body: { ...dune, isbn: '978-0000000003', colour: 'red' },
  })
  t.equal(unknown.status, 400)
  t.match(await json(unknown), {
    error: { code: 'VALIDATION_ERROR', details: [{ field: 'body/colour' }] },
  })
  // Form bodies are accepted only where a route declares them; the book routes take JSON.
  const form = await call('POST', '/v1/books', {
    body: 'title=Dune&isbn=978-0000000003&authorId=1',
    type: 'application/x-www-form-urlencoded',
  })
  t.equal(form.status, 415)
  t.equal(form.headers.get('accept'), 'application/json')

  const replacement = {
    title: 'Dune',
    isbn: '978-0441013593',
    status: 'available',
    authorId: 1,
    publishedAt: '1965-08-01',
  }
  t.equal((await call('PUT', '/v1/books/8', { body: replacement })).status, 428)
  const stale = await call('PUT', '/v1/books/8', {
    body: replacement,
    headers: { 'if-match': '"0"' },
  })
  t.equal(stale.status, 412)
  t.equal((await json<ErrorBody>(stale)).error.code, 'PRECONDITION_FAILED')
  const put = await call('PUT', '/v1/books/8', {
    body: replacement,
    headers: { 'if-match': '"1"' },
  })
  t.equal(put.status, 200)
  t.equal(put.headers.get('etag'), '"2"')
  t.equal((await json(put)).publishedAt, '1965-08-01')

  const merge = await call('PATCH', '/v1/books/8', {
    body: { status: 'checked-out', publishedAt: null },
    type: 'application/merge-patch+json',
    headers: { 'if-match': '"2"' },
  })
  t.equal(merge.status, 200)
  t.equal(merge.headers.get('etag'), '"3"')
  const merged = await json(merge)
  t.equal(merged.status, 'checked-out')
  t.notOk('publishedAt' in merged, 'null removes the field')

  const jsonPatch = await call('PATCH', '/v1/books/8', {
    body: [
      { op: 'test', path: '/status', value: 'checked-out' },
      { op: 'replace', path: '/title', value: 'Dune (1965)' },
    ],
    type: 'application/json-patch+json',
    headers: { 'if-match': '"3;json;fr"', 'accept-language': 'fr' },
  })
  t.equal(jsonPatch.status, 200, 'any representation of the current version satisfies If-Match')
  t.equal(jsonPatch.headers.get('etag'), '"4;json;fr"')
  t.match(await json(jsonPatch), { title: 'Dune (1965)', statusLabel: 'Emprunté' })

  const wrongType = await call('PATCH', '/v1/books/8', {
    body: { title: 'x' },
    headers: { 'if-match': '"4"' },
  })
  t.equal(wrongType.status, 415)
  t.match(wrongType.headers.get('accept-patch'), /merge-patch/)
  const failedTest = await call('PATCH', '/v1/books/8', {
    body: [{ op: 'test', path: '/status', value: 'available' }],
    type: 'application/json-patch+json',
    headers: { 'if-match': '"4"' },
  })
  t.equal(failedTest.status, 409)
  t.equal((await json<ErrorBody>(failedTest)).error.code, 'PATCH_TEST_FAILED')
  const readOnlyField = await call('PATCH', '/v1/books/8', {
    body: { id: 99 },
    type: 'application/merge-patch+json',
    headers: { 'if-match': '"4"' },
  })
  t.equal(readOnlyField.status, 422)
  t.equal((await json<ErrorBody>(readOnlyField)).error.code, 'READ_ONLY_FIELD')
  const badStatus = await call('PATCH', '/v1/books/8', {
    body: { status: 'lost' },
    type: 'application/merge-patch+json',
    headers: { 'if-match': '"4"' },
  })
  t.equal(badStatus.status, 422)
  t.equal((await json<ErrorBody>(badStatus)).error.code, 'PATCH_RESULT_INVALID')

  // Soft delete, idempotent, visible on request, restore.
  const deleted = await call('DELETE', '/v1/books/8', { headers: { 'if-match': '"4"' } })
  t.equal(deleted.status, 200)
  t.equal(deleted.headers.get('etag'), '"5"')
  const gone = await json(deleted)
  t.equal(gone.deleted, true)
  t.match(gone.deletedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  const again = await call('DELETE', '/v1/books/8', { headers: { 'if-match': '*' } })
  t.equal(again.status, 200)
  t.equal((await json(again)).deletedAt, gone.deletedAt, 'a second DELETE changes nothing')
  t.match(await json(await call('GET', '/v1/books/8')), { id: 8, deleted: true })
  t.notOk(
    ids(await json<PageBody>(await call('GET', '/v1/books?limit=100'))).includes(8),
    'hidden from the collection',
  )
  t.same(ids(await json<PageBody>(await call('GET', '/v1/books?deleted=only'))), [8])
  t.equal(
    (await json<PageBody>(await call('GET', '/v1/books?deleted=include&limit=100'))).data.length,
    8,
  )
  const editDeleted = await call('PUT', '/v1/books/8', {
    body: replacement,
    headers: { 'if-match': '"5"' },
  })
  t.equal(editDeleted.status, 409)
  t.equal((await json<ErrorBody>(editDeleted)).error.code, 'RESOURCE_DELETED')
  const restored = await call('PATCH', '/v1/books/8', {
    body: { deleted: false },
    type: 'application/merge-patch+json',
    headers: { 'if-match': '"5"' },
  })
  t.equal(restored.status, 200)
  const back = await json(restored)
  t.notOk('deleted' in back || 'deletedAt' in back, 'restored: no deleted fields')

  // Method override: a POST that becomes DELETE, then PATCH.
  const overridden = await call('POST', '/v1/books/8?_method=DELETE', {
    headers: { 'if-match': '"6"' },
  })
  t.equal(overridden.status, 200)
  t.equal((await json(overridden)).deleted, true)
  const overriddenPatch = await call('POST', '/v1/books/8', {
    body: [{ op: 'remove', path: '/deletedAt' }],
    type: 'application/json-patch+json',
    headers: { 'if-match': '"7"', 'x-http-method-override': 'PATCH' },
  })
  t.equal(overriddenPatch.status, 200)
  t.notOk('deleted' in (await json(overriddenPatch)))

  // Authors: create, patch, delete (hard), refused while books refer to them.
  const author = await call('POST', '/v1/authors', { body: { name: 'N. K. Jemisin' } })
  t.equal(author.status, 201)
  t.equal(author.headers.get('location'), '/v1/authors/4')
  const bio = await call('PATCH', '/v1/authors/4', {
    body: { bio: 'Three Hugo awards in a row.' },
    type: 'application/merge-patch+json',
    headers: { 'if-match': '"1"' },
  })
  t.equal(bio.status, 200)
  t.equal((await json(bio)).bio, 'Three Hugo awards in a row.')
  const renamed = await call('PUT', '/v1/authors/4', {
    body: { name: 'Nora K. Jemisin' },
    headers: { 'if-match': '"2"' },
  })
  t.equal(renamed.status, 200)
  t.notOk('bio' in (await json(renamed)), 'PUT replaces the whole author')
  const busy = await call('DELETE', '/v1/authors/1', { headers: { 'if-match': '"1"' } })
  t.equal(busy.status, 409)
  t.equal((await json<ErrorBody>(busy)).error.code, 'AUTHOR_HAS_BOOKS')
  t.equal((await call('DELETE', '/v1/authors/4', { headers: { 'if-match': '"2"' } })).status, 412)
  const removed = await call('DELETE', '/v1/authors/4', { headers: { 'if-match': '"3"' } })
  t.equal(removed.status, 204)
  t.equal((await call('GET', '/v1/authors/4')).status, 404)
}

export async function covers(t: Test, { base, call, json }: Running): Promise<void> {
  const read = { authorization: READ }
  const whole = await call('GET', '/v1/books/1/cover', { headers: read })
  t.equal(whole.status, 200)
  t.equal(whole.headers.get('content-type'), 'image/png')
  t.equal(whole.headers.get('accept-ranges'), 'bytes')
  // A route that authenticates: its answers stay out of shared caches (RFC 9111 §5.2.2.7).
  t.equal(whole.headers.get('cache-control'), 'private, no-cache')
  const bytes = Buffer.from(await whole.arrayBuffer())
  t.same(bytes, coverPng(160, 240, 0))
  const etag = whole.headers.get('etag') as string

  const part = await call('GET', '/v1/books/1/cover', { headers: { ...read, range: 'bytes=0-99' } })
  t.equal(part.status, 206)
  t.equal(part.headers.get('content-range'), `bytes 0-99/${bytes.length}`)
  t.equal(part.headers.get('cache-control'), 'private, no-cache')
  t.same(Buffer.from(await part.arrayBuffer()), bytes.subarray(0, 100))
  const tail = await call('GET', '/v1/books/1/cover', {
    headers: { ...read, range: 'bytes=-16', 'if-range': etag },
  })
  t.equal(tail.status, 206)
  t.same(Buffer.from(await tail.arrayBuffer()), bytes.subarray(-16))
  const beyond = await call('GET', '/v1/books/1/cover', {
    headers: { ...read, range: `bytes=${bytes.length}-` },
  })
  t.equal(beyond.status, 416)
  t.equal(beyond.headers.get('content-range'), `bytes */${bytes.length}`)
  t.equal(
    (await call('GET', '/v1/books/1/cover', { headers: { ...read, 'if-none-match': etag } }))
      .status,
    304,
  )
  t.equal((await call('GET', '/v1/books/4/cover', { headers: read })).status, 404)

  const png = coverPng(40, 60, 3)
  t.equal((await call('PUT', '/v1/books/4/cover', { body: png, type: 'image/png' })).status, 428)
  const first = await call('PUT', '/v1/books/4/cover', {
    body: png,
    type: 'image/png',
    headers: { 'if-none-match': '*' },
  })
  t.equal(first.status, 201)
  t.equal(first.headers.get('location'), '/v1/books/4/cover')
  const stored = await call('GET', '/v1/books/4/cover', { headers: read })
  t.same(Buffer.from(await stored.arrayBuffer()), png)
  const again = await call('PUT', '/v1/books/4/cover', {
    body: png,
    type: 'image/png',
    headers: { 'if-none-match': '*' },
  })
  t.equal(again.status, 412, 'If-None-Match: * refuses to overwrite')
  const replaced = await call('PUT', '/v1/books/4/cover', {
    body: coverPng(40, 60, 4),
    type: 'image/png',
    headers: { 'if-match': stored.headers.get('etag') as string },
  })
  t.equal(replaced.status, 204)
  const garbage = await call('PUT', '/v1/books/4/cover', {
    body: Buffer.from('not really a png'),
    type: 'image/png',
    headers: { 'if-match': '*' },
  })
  t.equal(garbage.status, 422)
  t.equal((await json<ErrorBody>(garbage)).error.code, 'INVALID_IMAGE')
  // Every type that is not an image gets the same 415, whose Accept lists the image types:
  // also those no parser takes (text/plain, SVG, none) and those another parser takes.
  const refusals: Response[] = []
  for (const type of [
    'text/plain',
    'image/svg+xml',
    'application/json',
    'application/merge-patch+json',
    'application/xml',
  ]) {
    refusals.push(
      await call('PUT', '/v1/books/4/cover', {
        body: type === 'image/svg+xml' ? '<svg xmlns="http://www.w3.org/2000/svg"/>' : '{}',
        type,
        headers: { 'if-match': '*' },
      }),
    )
  }
  // No Content-Type at all (fetch adds none to bytes).
  refusals.push(
    await fetch(`${base}/v1/books/4/cover`, {
      method: 'PUT',
      headers: { authorization: WRITE, 'if-match': '*' },
      body: new Uint8Array(png),
    }),
  )
  for (const refused of refusals) {
    t.equal(refused.status, 415)
    t.equal(refused.headers.get('accept'), 'image/png, image/jpeg, image/gif, image/webp')
    t.match(await json(refused), {
      error: {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'A cover is one of image/png, image/jpeg, image/gif, image/webp',
      },
    })
  }
}

export async function versions(t: Test, { call, json }: Running): Promise<void> {
  const read = { authorization: READ }
  const v2 = await call('GET', '/v2/books/1', { headers: read })
  t.equal(v2.status, 200)
  t.equal(v2.headers.get('api-version'), '2')
  const body = await json(v2)
  t.match(body, {
    id: 1,
    author: { id: 1, name: 'Ursula K. Le Guin' },
    published: { date: '1969-03-01', year: 1969 },
  })
  t.notOk('authorId' in body)
  const tag = v2.headers.get('etag') as string
  t.equal(tag, '"v2.1.1"', 'v2, then the versions of the book and of its embedded author')
  const v1tag = (await call('GET', '/v1/books/1', { headers: read })).headers.get('etag')
  t.not(tag, v1tag, 'v1 and v2 representations have different tags')

  // Renaming the embedded author changes the book's v2 representation, and so its validator.
  const author = await call('GET', '/v1/authors/1', { headers: read })
  const rename = async (name: string, ifMatch: string) =>
    call('PATCH', '/v1/authors/1', {
      body: { name },
      type: 'application/merge-patch+json',
      headers: { 'if-match': ifMatch },
    })
  const renamed = await rename('Ursula Kroeber Le Guin', author.headers.get('etag') as string)
  t.equal(renamed.status, 200)
  const revalidated = await call('GET', '/v2/books/1', {
    headers: { ...read, 'if-none-match': tag },
  })
  t.equal(revalidated.status, 200, 'not a 304 with the old name')
  t.not(revalidated.headers.get('etag'), tag)
  t.match(await json(revalidated), { author: { name: 'Ursula Kroeber Le Guin' } })
  t.equal(
    revalidated.headers.get('last-modified'),
    renamed.headers.get('last-modified'),
    "Last-Modified is the author's, the later part",
  )
  const ranged = await call('GET', '/v2/books/1', {
    headers: { ...read, range: 'bytes=0-9', 'if-range': tag },
  })
  t.equal(ranged.status, 200, 'If-Range with the old tag: the whole new body, not a part of it')
  t.match(await json(ranged), { author: { name: 'Ursula Kroeber Le Guin' } })
  t.equal((await rename('Ursula K. Le Guin', renamed.headers.get('etag') as string)).status, 200)
  const v2list = await json<PageBody>(
    await call('GET', '/v2/books?authorId=2&sort=title', { headers: read }),
  )
  t.same(ids(v2list), [4, 5])

  const byAccept = await call('GET', '/books/1', {
    headers: { ...read, accept: 'application/vnd.api.v2+json' },
  })
  t.equal(byAccept.status, 200)
  t.match(byAccept.headers.get('content-type'), /^application\/vnd\.api\.v2\+json/)
  t.match(await json(byAccept), { author: { id: 1 } })
  const byQuery = await call('GET', '/books/1?version=2', { headers: read })
  t.match(await json(byQuery), { author: { id: 1 } })
  const byDefault = await call('GET', '/books/1', { headers: read })
  t.equal(byDefault.headers.get('api-version'), '1')
  t.match(await json(byDefault), { authorId: 1 })

  const moved = await call('GET', '/v1/titles/1?x=1', { headers: read })
  t.equal(moved.status, 301)
  t.equal(moved.headers.get('location'), '/v2/books/1?x=1')
  const conflict = await call('GET', '/v1/books?version=2', { headers: read })
  t.equal(conflict.status, 400)
  t.equal((await json<ErrorBody>(conflict)).error.code, 'CONFLICTING_VERSIONS')
  t.equal((await call('GET', '/books?version=7', { headers: read })).status, 400)
}

export async function exportJob(t: Test, { call, json }: Running): Promise<void> {
  const key = { 'idempotency-key': '"export-available"' }
  const accepted = await call('POST', '/v1/exports', {
    body: { status: 'available' },
    headers: key,
  })
  t.equal(accepted.status, 202)
  const location = accepted.headers.get('location') as string
  t.match(location, /^\/jobs\/[0-9a-f-]{36}$/)
  const job = await json(accepted)
  t.match(job, { jobId: location.slice('/jobs/'.length), status: 'queued', estimatedTime: 'PT5S' })
  // A retry with the key enqueues nothing: the same job, the same answer.
  const retried = await call('POST', '/v1/exports', { body: { status: 'available' }, headers: key })
  t.equal(retried.status, 202)
  t.equal(retried.headers.get('location'), location)
  t.equal(retried.headers.get('idempotent-replayed'), 'true')
  t.same(await json(retried), job)

  let status: Response | undefined
  await until(async () => {
    status = await call('GET', location, { headers: { authorization: READ } })
    return status.status !== 200
  }, 'the job finishes')
  t.equal(status?.status, 303, 'the finished job points at its result')
  const result = status?.headers.get('location') as string
  t.match(result, /^\/v1\/exports\/\d+$/)
  const exported = await call('GET', result, { headers: { authorization: READ } })
  t.equal(exported.status, 200)
  const document = await json<{ count: number; books: Body[]; filter: Body }>(exported)
  t.same(document.filter, { status: 'available' })
  t.equal(document.count, document.books.length)
  t.ok(document.books.every((b) => b.status === 'available'))
  t.equal(
    (
      await call('GET', '/jobs/00000000-0000-4000-8000-000000000000', {
        headers: { authorization: READ },
      })
    ).status,
    404,
  )
}

/** Every row of every table, to show a refused request changed nothing. */
async function snapshot({ db }: Running): Promise<string> {
  const parts: string[] = []
  for (const table of ['authors', 'books', 'book_covers', 'exports']) {
    const result = await db.query<{ rows: string }>(
      `select coalesce(string_agg(x::text, '|' order by x::text), '') as rows from ${table} x`,
    )
    parts.push(`${table}: ${result.rows[0]?.rows}`)
  }
  return parts.join('\n')
}

/**
 * Values the schemas once accepted but PostgreSQL refuses (SQLSTATE class 22, which were 500s):
 * an id or reference over int4, a NUL in text, year 0000. Each is a 400 naming the field (422
 * from a patch, whose result is checked against the resource's schema), and nothing is written.
 */
export async function unstorableValues(t: Test, running: Running): Promise<void> {
  const { call, json } = running
  const read = { authorization: READ }
  const before = await snapshot(running)
  const TOO_BIG = 2_147_483_648

  const refused = async (
    response: Response,
    field: string,
    status = 400,
    code = 'VALIDATION_ERROR',
  ): Promise<void> => {
    const label = `${response.url.slice(response.url.indexOf('/v'))}: ${field}`
    t.equal(response.status, status, label)
    t.match(await json(response), { error: { code, details: [{ field }] } }, label)
  }

  for (const path of [
    `/v1/books/${TOO_BIG}`,
    `/v1/authors/${TOO_BIG}`,
    `/v1/authors/${TOO_BIG}/books`,
    `/v1/books/${TOO_BIG}/cover`,
    `/v1/exports/${TOO_BIG}`,
    `/v2/books/${TOO_BIG}`,
  ]) {
    await refused(await call('GET', path, { headers: read }), 'params/id')
  }
  t.equal((await call('GET', '/v1/books/2147483647', { headers: read })).status, 404, 'max id')
  for (const path of ['/v1/books', '/v2/books']) {
    const filtered = await call('GET', `${path}?authorId=${TOO_BIG}`, { headers: read })
    t.equal(filtered.status, 400, `${path}?authorId over int4`)
    t.match(await json(filtered), { error: { details: [{ field: 'querystring/authorId' }] } })
  }

  const book = { title: 'X', isbn: '978-0000000009', authorId: 1 }
  const replacement = { ...book, status: 'available' }
  const bodies: [Record<string, unknown>, string][] = [
    [{ authorId: TOO_BIG }, 'body/authorId'],
    [{ title: 'a\u0000b' }, 'body/title'],
    [{ publishedAt: '0000-01-01' }, 'body/publishedAt'],
  ]
  for (const [change, field] of bodies) {
    await refused(await call('POST', '/v1/books', { body: { ...book, ...change } }), field)
    await refused(
      await call('PUT', '/v1/books/1', {
        body: { ...replacement, ...change },
        headers: { 'if-match': '*' },
      }),
      field,
    )
  }
  await refused(await call('PUT', `/v1/books/${TOO_BIG}`, { body: replacement }), 'params/id')
  await refused(await call('POST', '/v1/authors', { body: { name: 'a\u0000b' } }), 'body/name')
  await refused(
    await call('POST', '/v1/authors', { body: { name: 'A', bio: '\u0000' } }),
    'body/bio',
  )
  await refused(
    await call('PUT', '/v1/authors/1', {
      body: { name: 'a\u0000b' },
      headers: { 'if-match': '*' },
    }),
    'body/name',
  )
  // An export of an author that cannot exist is refused before it is queued (it was a 202
  // whose job then failed).
  await refused(await call('POST', '/v1/exports', { body: { authorId: TOO_BIG } }), 'body/authorId')

  // Patches: both formats, checked against the resource's schema.
  const current = async (path: string): Promise<string> =>
    (await call('GET', path, { headers: read })).headers.get('etag') as string
  for (const [change, field] of bodies) {
    await refused(
      await call('PATCH', '/v1/books/1', {
        body: change,
        type: 'application/merge-patch+json',
        headers: { 'if-match': await current('/v1/books/1') },
      }),
      field.replace('body', 'resource'),
      422,
      'PATCH_RESULT_INVALID',
    )
    const [[name, value]] = Object.entries(change) as [[string, unknown]]
    await refused(
      await call('PATCH', '/v1/books/1', {
        body: [{ op: 'add', path: `/${name}`, value }],
        type: 'application/json-patch+json',
        headers: { 'if-match': await current('/v1/books/1') },
      }),
      field.replace('body', 'resource'),
      422,
      'PATCH_RESULT_INVALID',
    )
  }
  await refused(
    await call('PATCH', '/v1/authors/1', {
      body: { name: 'a\u0000b' },
      type: 'application/merge-patch+json',
      headers: { 'if-match': await current('/v1/authors/1') },
    }),
    'resource/name',
    422,
    'PATCH_RESULT_INVALID',
  )
  t.equal(await snapshot(running), before, 'nothing was written')

  // The smallest date PostgreSQL stores is accepted (and given back as sent).
  const year1 = await call('POST', '/v1/books', {
    body: { ...book, publishedAt: '0001-01-01' },
  })
  t.equal(year1.status, 201)
  const created = await json(year1)
  t.equal(created.publishedAt, '0001-01-01')
  await running.db.query('delete from books where id = $1', [created.id])

  // The backstop: a data exception the schemas did not foresee is a 400, without the SQL.
  const db = guarded(running.db)
  for (const [sql, value] of [
    ['select $1::int as v', TOO_BIG],
    ['select $1::text as v', 'a\u0000b'],
    ['select $1::date as v', '0000-01-01'],
  ] as const) {
    const error = await db.query(sql, [value]).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    t.match(error, { statusCode: 400, code: 'INVALID_VALUE', expose: true }, sql)
    t.equal((error as Error).message, 'A value in the request cannot be stored', sql)
  }
}

/**
 * JSON bodies keep their types (a value of another type is a 400 naming it, never converted),
 * and an integer path parameter has one form: `/v1/books/1e0`, `/%201`, `/01` are no book 1.
 */
export async function strictValues(t: Test, running: Running): Promise<void> {
  const { call, json } = running
  const read = { authorization: READ }
  const before = await snapshot(running)
  const refused = async (response: Response, field: string, label: string): Promise<void> => {
    t.equal(response.status, 400, label)
    t.match(
      await json(response),
      { error: { code: 'VALIDATION_ERROR', details: [{ field }] } },
      label,
    )
  }
  const book = { title: 'X', isbn: '978-0000000009', authorId: 1 }
  const wrongTypes: [string, Record<string, unknown>, string][] = [
    ['/v1/authors', { name: 123 }, 'body/name'],
    ['/v1/books', { ...book, authorId: '1' }, 'body/authorId'],
    ['/v1/books', { ...book, authorId: true }, 'body/authorId'],
    ['/v1/books', { ...book, status: ['archived'] }, 'body/status'],
    ['/v1/books', { ...book, title: 7 }, 'body/title'],
    ['/v1/exports', { authorId: '1' }, 'body/authorId'],
  ]
  for (const [path, body, field] of wrongTypes) {
    await refused(await call('POST', path, { body }), field, `POST ${path} ${JSON.stringify(body)}`)
  }
  await refused(
    await call('PUT', '/v1/authors/1', { body: { name: 123 }, headers: { 'if-match': '*' } }),
    'body/name',
    'PUT /v1/authors/1',
  )
  for (const id of ['1e0', '%201', '01', '+1', '1.0', '0x1']) {
    await refused(
      await call('GET', `/v1/books/${id}`, { headers: read }),
      'params/id',
      `/v1/books/${id}`,
    )
  }
  await refused(
    await call('DELETE', '/v1/authors/01', { headers: { 'if-match': '*' } }),
    'params/id',
    'DELETE /v1/authors/01',
  )
  t.equal((await call('GET', '/v1/books/1', { headers: read })).status, 200, 'the id as written')
  // Query values are text: converted as before.
  t.equal((await call('GET', '/v1/books?authorId=1&limit=2', { headers: read })).status, 200)
  t.equal(await snapshot(running), before, 'nothing was written')
}

/** A 500 from the database: masked, in the error form, with the requestId of the response. */
export async function serverError(t: Test, running: Running): Promise<void> {
  await running.db.query('alter table exports rename to exports_elsewhere')
  try {
    const failed = await running.call('GET', '/v1/exports/1', { headers: { authorization: READ } })
    t.equal(failed.status, 500)
    const body = await running.json<ErrorBody>(failed)
    t.equal(body.error.code, 'INTERNAL_SERVER_ERROR')
    t.equal(body.error.message, 'Internal Server Error', 'no SQL leaks')
    t.equal(body.error.requestId, failed.headers.get('x-request-id'))
  } finally {
    await running.db.query('alter table exports_elsewhere rename to exports')
  }
}

/** Every convention, in an order where each part knows the state the previous ones left. */
export async function allConventions(t: Test, running: Running): Promise<void> {
  await t.test('collections: filter, sort, pages, Link, compression', (t) =>
    collections(t, running),
  )
  await t.test('reads: ETag, 304, HEAD, negotiation, languages, errors', (t) =>
    readsAndNegotiation(t, running),
  )
  await t.test('methods, auth, CORS preflight, docs', (t) => methodsAndAuth(t, running))
  await t.test('writes: 201, PUT/PATCH with If-Match, soft delete, override, authors', (t) =>
    writes(t, running),
  )
  await t.test('covers: ranges, conditional PUT, 415 with Accept', (t) => covers(t, running))
  await t.test('versions: prefix, Accept, query, moved', (t) => versions(t, running))
  await t.test('export job: 202, status, 303', (t) => exportJob(t, running))
  await t.test('values PostgreSQL cannot store: 400 or 422, nothing written', (t) =>
    unstorableValues(t, running),
  )
  await t.test('JSON keeps its types, ids have one form: 400, nothing written', (t) =>
    strictValues(t, running),
  )
  await t.test('database error: 500 with requestId', (t) => serverError(t, running))
}
