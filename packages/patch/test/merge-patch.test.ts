import { ErrorCode } from '@restwell/errors'
import { test } from 'tap'
import { applyMergePatch } from '../src/index.js'
import { failure, summary } from './helpers.js'

test('RFC 7396 Appendix A examples', async (t) => {
  const table: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ]
  for (const [original, patch, result] of table) {
    const before = JSON.stringify(original)
    t.same(applyMergePatch(original, patch), result, `${before} + ${JSON.stringify(patch)}`)
    t.equal(JSON.stringify(original), before, 'original unchanged')
  }
})

test('RFC 7396 section 3 example', async (t) => {
  const original = {
    title: 'Goodbye!',
    author: { givenName: 'John', familyName: 'Doe' },
    tags: ['example', 'sample'],
    content: 'This will be unchanged',
  }
  const patch = {
    title: 'Hello!',
    phoneNumber: '+01-123-456-7890',
    author: { familyName: null },
    tags: ['example'],
  }
  t.same(applyMergePatch(original, patch), {
    title: 'Hello!',
    author: { givenName: 'John' },
    tags: ['example'],
    content: 'This will be unchanged',
    phoneNumber: '+01-123-456-7890',
  })
})

test('the result shares no object with the document or the patch', async (t) => {
  const original = { keep: { deep: [1] }, change: { x: 1 } }
  const patch = { change: { y: { z: 1 } }, added: [{ a: 1 }] }
  const result = applyMergePatch<unknown>(original, patch) as {
    keep: unknown
    change: { y: unknown }
    added: unknown[]
  }
  t.not(result.keep, original.keep)
  t.not(result.change.y, patch.change.y)
  t.not(result.added[0], patch.added[0])
  t.same(original, { keep: { deep: [1] }, change: { x: 1 } })
  t.same(patch, { change: { y: { z: 1 } }, added: [{ a: 1 }] })
})

test('members named __proto__, constructor or prototype are 422 FORBIDDEN_PATH', async (t) => {
  const cases: Array<[string, string]> = [
    ['{"__proto__":{"polluted":1}}', 'body/__proto__'],
    ['{"a":{"constructor":{"prototype":{"polluted":1}}}}', 'body/a/constructor'],
    ['{"prototype":null}', 'body/prototype'],
    ['[{"__proto__":1}]', 'body/0/__proto__'],
  ]
  for (const [json, field] of cases) {
    const error = failure(() => applyMergePatch({ a: {} }, JSON.parse(json)))
    t.same(summary(error), { status: 422, code: ErrorCode.FORBIDDEN_PATH, field }, json)
  }
  t.equal(({} as { polluted?: unknown }).polluted, undefined)
})

test('a patch nested deeper than 128 levels is 400 INVALID_PATCH', async (t) => {
  let deep: unknown = null
  for (let i = 0; i < 150; i++) deep = { a: deep }
  const error = failure(() => applyMergePatch({}, deep))
  t.equal(error.statusCode, 400)
  t.equal(error.code, ErrorCode.INVALID_PATCH)
})

test('an own "__proto__" member of the document stays a plain member', async (t) => {
  const doc = JSON.parse('{"__proto__":{"x":1}}') as object
  const result = applyMergePatch(doc, { b: 1 }) as Record<string, unknown>
  t.equal(Object.getPrototypeOf(result), Object.prototype)
  t.ok(Object.hasOwn(result, '__proto__'))
  t.same(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, { x: 1 })
  t.not(
    Object.getOwnPropertyDescriptor(result, '__proto__')?.value,
    Object.getOwnPropertyDescriptor(doc, '__proto__')?.value,
    'the member is copied, not shared',
  )
  t.equal(result['b'], 1)
})
