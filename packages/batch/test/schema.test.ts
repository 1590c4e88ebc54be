import { Ajv } from 'ajv'
import { test } from 'tap'
import { FORBIDDEN_HEADERS, FORBIDDEN_QUERY } from '../src/options.js'
import { parseBatch } from '../src/parse.js'
import { batchRequestSchema, operationUrlPattern } from '../src/schema.js'

const limits = {
  maxOperations: 20,
  batchPath: '/v1/batch',
  forbiddenHeaders: new Set(FORBIDDEN_HEADERS),
  forbiddenQuery: new Set(FORBIDDEN_QUERY),
}

const ajv = new Ajv({ strict: false })
const valid = ajv.compile(batchRequestSchema(limits))

/** Whether the schema and the parser both take `operation`, as one word each. */
function verdicts(operation: Record<string, unknown>): [string, string] {
  const body = { requests: [{ id: 'a', method: 'GET', url: '/books', ...operation }] }
  let parsed = 'ok'
  try {
    parseBatch(body, limits)
  } catch {
    parsed = 'refused'
  }
  return [valid(body) ? 'ok' : 'refused', parsed]
}

test('the documented operation refuses what the parser refuses', async (t) => {
  for (const refused of [
    { method: 'GET', body: { a: 1 } },
    { method: 'HEAD', body: 'x' },
    { url: '//evil.example/books' },
    { url: 'books' },
    { url: '/books#top' },
    { url: '/books list' },
    { url: '/v1/batch' },
    { url: '/V1/Batch/' },
    { url: '/v1/batch?atomic=1' },
    { url: '/books?_method=DELETE' },
    { url: '/books?limit=5&_method=DELETE' },
    { url: '/books?_method' },
    { headers: { 'x-http-method-override': 'DELETE' } },
    { headers: { 'x-method-override': 'PUT' } },
    { headers: { host: 'evil.example' } },
    { headers: { 'x-a': 'line\nbreak' } },
  ]) {
    t.same(verdicts(refused), ['refused', 'refused'], JSON.stringify(refused))
  }
  for (const accepted of [
    {},
    { method: 'POST', body: { title: 'x' } },
    { method: 'DELETE', url: '/books/1' },
    { url: '/v1/batches' },
    { url: '/v1/batch-jobs' },
    { url: '/books?x_method=1&limit=5' },
    { url: '/books?method=1' },
    { headers: { accept: 'application/xml', 'if-none-match': '"1"' } },
  ]) {
    t.same(verdicts(accepted), ['ok', 'ok'], JSON.stringify(accepted))
  }
})

test('operationUrlPattern: any case for the batch path, each forbidden parameter', async (t) => {
  const pattern = new RegExp(
    operationUrlPattern({ ...limits, batchPath: '/b.x', forbiddenQuery: new Set(['a', 'z.q']) }),
    'u',
  )
  t.notOk(pattern.test('/B.X'))
  t.ok(pattern.test('/bxx'), 'a dot in the path is a dot, not any character')
  t.notOk(pattern.test('/books?z.q=1'))
  t.ok(pattern.test('/books?zxq=1'))
  t.notOk(pattern.test('/books?b=1&a'))
})
