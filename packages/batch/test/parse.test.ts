import fc from 'fast-check'
import { test } from 'tap'
import { FORBIDDEN_HEADERS, FORBIDDEN_QUERY } from '../src/options.js'
import { comparablePath, dependencyOrder, METHODS, parseBatch } from '../src/parse.js'

const limits = {
  maxOperations: 20,
  batchPath: '/batch',
  forbiddenHeaders: new Set(FORBIDDEN_HEADERS),
  forbiddenQuery: new Set(FORBIDDEN_QUERY),
}

/** The 400's first detail, or 'ok'. */
function problem(body: unknown): string {
  try {
    parseBatch(body, limits)
    return 'ok'
  } catch (error) {
    const { statusCode, code, details } = error as {
      statusCode: number
      code: string
      details: { field: string; message: string }[]
    }
    return `${statusCode} ${code} ${details[0]?.field}: ${details[0]?.message}`
  }
}

const op = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  method: 'GET',
  url: `/books/${id}`,
  ...extra,
})

test('parseBatch accepts a batch and normalizes it', async (t) => {
  const batch = parseBatch(
    {
      atomic: true,
      requests: [
        op('b', { dependsOn: ['a'], url: '/books/b?limit=1' }),
        op('a', {
          method: 'POST',
          url: '/books',
          headers: { 'Content-Type': 'text/plain' },
          body: 'x',
        }),
      ],
    },
    limits,
  )
  t.same(batch, {
    atomic: true,
    operations: [
      { id: 'b', method: 'GET', url: '/books/b?limit=1', headers: {}, dependsOn: [1] },
      {
        id: 'a',
        method: 'POST',
        url: '/books',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
        dependsOn: [],
      },
    ],
  })
  t.equal(parseBatch({ requests: [op('a')] }, limits).atomic, false)
})

test('parseBatch refuses a malformed batch with a 400 naming the field', async (t) => {
  const cases: [unknown, RegExp][] = [
    [null, /^400 VALIDATION_ERROR body: must be a JSON object/],
    [[op('a')], /body: must be a JSON object/],
    [{ requests: [op('a')], extra: 1 }, /extra: is not a batch field/],
    [{ requests: [op('a')], atomic: 'yes' }, /atomic: must be a boolean/],
    [{ requests: 'x' }, /requests: must be an array/],
    [{ requests: [] }, /requests: must hold at least one/],
    [
      { requests: Array.from({ length: 21 }, (_, i) => op(`${i}`)) },
      /holds 21 operations; at most 20/,
    ],
    [{ requests: [1] }, /requests\[0\]: must be an object/],
    [{ requests: [op('a', { when: 1 })] }, /requests\[0\]\.when: is not an operation field/],
    [{ requests: [op('')] }, /requests\[0\]\.id: must be a string of 1 to 100/],
    [{ requests: [op('x'.repeat(101))] }, /\.id: must be a string/],
    [{ requests: [op('a', { id: 7 })] }, /\.id: must be a string/],
    [{ requests: [op('a'), op('a')] }, /requests\[1\]\.id: "a" is the id of another/],
    [{ requests: [op('a', { method: 'get' })] }, /\.method: must be one of GET, HEAD/],
    [{ requests: [op('a', { method: 'TRACE' })] }, /\.method: must be one of/],
    [{ requests: [op('a', { url: '' })] }, /\.url: must be a string of 1 to 2048/],
    [{ requests: [op('a', { url: `/${'x'.repeat(2048)}` })] }, /\.url: must be a string/],
    [{ requests: [op('a', { url: 3 })] }, /\.url: must be a string/],
    [{ requests: [op('a', { url: 'books' })] }, /\.url: must be a path on this API/],
    [{ requests: [op('a', { url: 'https://evil.example/books' })] }, /path on this API/],
    [{ requests: [op('a', { url: '//evil.example/books' })] }, /path on this API/],
    [{ requests: [op('a', { url: '/books#top' })] }, /path on this API/],
    [{ requests: [op('a', { url: '/books /x' })] }, /path on this API/],
    [{ requests: [op('a', { url: '/\\evil.example' })] }, /path on this API/],
    [{ requests: [op('a', { url: '/batch' })] }, /\.url: may not be a batch/],
    [{ requests: [op('a', { url: '/Batch/?x=1' })] }, /may not be a batch/],
    [{ requests: [op('a', { url: '/%62atch' })] }, /may not be a batch/],
    [
      { requests: [op('a', { url: '/books?_method=DELETE' })] },
      /\.url: may not override the method \(`_method`\)/,
    ],
    [{ requests: [op('a', { headers: [] })] }, /\.headers: must be an object/],
    [{ requests: [op('a', { headers: { 'a b': 'x' } })] }, /\.headers\.a b: is not a header name/],
    [
      { requests: [op('a', { headers: { accept: 1 } })] },
      /\.headers\.accept: must be a string without line breaks/,
    ],
    [
      { requests: [op('a', { headers: { accept: 'a\r\nx: y' } })] },
      /must be a string without line breaks/,
    ],
    [
      { requests: [op('a', { headers: { Accept: 'a', accept: 'b' } })] },
      /\.headers\.accept: is given twice/,
    ],
    [{ requests: [op('a', { headers: { Host: 'evil' } })] }, /\.headers\.Host: may not be set/],
    [
      { requests: [op('a', { headers: { 'X-HTTP-Method-Override': 'DELETE' } })] },
      /may not be set/,
    ],
    [{ requests: [op('a', { body: {} })] }, /\.body: may not be sent with GET/],
    [{ requests: [op('a', { method: 'HEAD', body: 'x' })] }, /may not be sent with HEAD/],
    [{ requests: [op('a', { dependsOn: 'b' })] }, /\.dependsOn: must be an array/],
    [
      { requests: [op('a', { dependsOn: ['z'] })] },
      /\.dependsOn: names no operation of this batch \("z"\)/,
    ],
    [{ requests: [op('a', { dependsOn: [1] })] }, /names no operation of this batch \(1\)/],
    [
      { requests: [op('a', { dependsOn: ['a'] })] },
      /\.dependsOn: may not name the operation itself/,
    ],
    [{ requests: [op('a'), op('b', { dependsOn: ['a', 'a'] })] }, /names "a" twice/],
    [
      { requests: [op('a', { dependsOn: ['b'] }), op('b', { dependsOn: ['a'] }), op('c')] },
      /requests: has a cycle of `dependsOn` \(among a, b\)/,
    ],
    [
      {
        requests: Array.from({ length: 12 }, (_, i) =>
          op(`${i}`, { dependsOn: [`${(i + 1) % 12}`] }),
        ),
      },
      /among 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, \.\.\.\)/,
    ],
  ]
  for (const [body, expected] of cases)
    t.match(problem(body), expected, JSON.stringify(body).slice(0, 80))
})

test('comparablePath: decoded, lower case, no query nor trailing slash', async (t) => {
  t.equal(comparablePath('/A/%42/?x'), '/a/b')
  t.equal(comparablePath('/%zz'), '/%zz', 'a bad escape is compared as it is')
})

test('dependencyOrder puts each operation after its dependencies and leaves cycles out', async (t) => {
  t.same(dependencyOrder([[1], [], [0, 1]]), [1, 0, 2])
  t.same(dependencyOrder([[1], [0], []]), [2])
})

const idArb = fc.string({ minLength: 1, maxLength: 8 })
const urlArb = fc
  .array(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { minLength: 1, maxLength: 3 })
  .map((segments) => `/${segments.join('/')}`)
  .filter((url) => comparablePath(url) !== '/batch')

test('property: a well-formed batch parses, in order, with every dependency before its dependent', async () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(idArb, { minLength: 1, maxLength: 20 }),
      fc.array(fc.tuple(fc.constantFrom(...METHODS), urlArb, fc.array(fc.nat(), { maxLength: 3 }))),
      (ids, shapes) => {
        // Dependencies only on earlier operations: never a cycle.
        const requests = ids.map((id, i) => {
          const [method, url, picks] = shapes[i % Math.max(shapes.length, 1)] ?? ['GET', '/x', []]
          const dependsOn = i === 0 ? [] : [...new Set(picks.map((p) => ids[p % i] as string))]
          return { id, method, url, dependsOn }
        })
        const batch = parseBatch({ requests }, limits)
        if (batch.operations.length !== ids.length) return false
        const order = dependencyOrder(batch.operations.map((o) => o.dependsOn))
        const position = new Map(order.map((index, at) => [index, at]))
        return batch.operations.every((o, i) =>
          o.dependsOn.every((d) => (position.get(d) as number) < (position.get(i) as number)),
        )
      },
    ),
  )
})

test('property: any JSON value either parses or is a 400 with one detail; never another error', async () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.jsonValue(),
        fc.record({ requests: fc.jsonValue() }),
        fc.record({
          requests: fc.array(
            fc.record(
              {
                id: fc.oneof(idArb, fc.jsonValue()),
                method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
                url: fc.oneof(urlArb, fc.string()),
                headers: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.jsonValue())),
                body: fc.jsonValue(),
                dependsOn: fc.array(fc.oneof(idArb, fc.jsonValue())),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 25 },
          ),
          atomic: fc.oneof(fc.boolean(), fc.jsonValue()),
        }),
      ),
      (body) => {
        try {
          parseBatch(body, limits)
          return true
        } catch (error) {
          // The field may be any key the client sent (`" "` too): it is named as sent.
          const { statusCode, code, details } = error as {
            statusCode?: unknown
            code?: unknown
            details?: { field?: unknown; message?: unknown }[]
          }
          return (
            statusCode === 400 &&
            code === 'VALIDATION_ERROR' &&
            details?.length === 1 &&
            typeof details[0]?.field === 'string' &&
            typeof details[0].message === 'string' &&
            details[0].message.length > 0
          )
        }
      },
    ),
    // Keys that are blank or empty, as fast-check once found ({" ": []}).
    { examples: [[{ ' ': [] }], [{ '': 1 }], [{ requests: [{ ' ': 1 }] }]] },
  )
})

test('property: a batch with a cycle of dependsOn is always refused', async () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 20 }), fc.nat(), (size, shift) => {
      const requests = Array.from({ length: size }, (_, i) =>
        op(`op${i}`, { dependsOn: [`op${(i + 1) % size}`] }),
      )
      const rotated = [...requests.slice(shift % size), ...requests.slice(0, shift % size)]
      return /has a cycle/.test(problem({ requests: rotated }))
    }),
  )
})
