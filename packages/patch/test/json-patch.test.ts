import { ErrorCode } from '@restwell/errors'
import { test } from 'tap'
import { applyJsonPatch, type JsonPatchOperation } from '../src/index.js'
import { failure, summary } from './helpers.js'

/** Applies an untyped patch, as a client would send it. */
function apply(document: unknown, patch: unknown): unknown {
  return applyJsonPatch(document, patch as JsonPatchOperation[])
}

function fails(document: unknown, patch: unknown): ReturnType<typeof summary> {
  return summary(failure(() => apply(document, patch)))
}

test('RFC 6902 Appendix A examples', async (t) => {
  t.same(apply({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }]), {
    baz: 'qux',
    foo: 'bar',
  })
  t.same(apply({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }]), {
    foo: ['bar', 'qux', 'baz'],
  })
  t.same(apply({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }]), { foo: 'bar' })
  t.same(apply({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }]), {
    foo: ['bar', 'baz'],
  })
  t.same(apply({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }]), {
    baz: 'boo',
    foo: 'bar',
  })
  t.same(
    apply({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [
      { op: 'move', from: '/foo/waldo', path: '/qux/thud' },
    ]),
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  )
  t.same(
    apply({ foo: ['all', 'grass', 'cows', 'eat'] }, [
      { op: 'move', from: '/foo/1', path: '/foo/3' },
    ]),
    { foo: ['all', 'cows', 'eat', 'grass'] },
  )
  const a8 = { baz: 'qux', foo: ['a', 2, 'c'] }
  t.same(
    apply(a8, [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ]),
    a8,
  )
  t.same(fails({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]), {
    status: 409,
    code: ErrorCode.PATCH_TEST_FAILED,
    field: 'body/0/path',
  })
  t.same(apply({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }]), {
    foo: 'bar',
    child: { grandchild: {} },
  })
  t.same(apply({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }]), {
    foo: 'bar',
    baz: 'qux',
  })
  t.same(fails({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]), {
    status: 409,
    code: ErrorCode.PATCH_TARGET_MISSING,
    field: 'body/0/path',
  })
  t.same(apply({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }]), {
    '/': 9,
    '~1': 10,
  })
  t.same(
    fails({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]).code,
    'PATCH_TEST_FAILED',
  )
  t.same(apply({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }]), {
    foo: ['bar', ['abc', 'def']],
  })
})

test('malformed patch documents are 400 INVALID_PATCH, naming the operation and member', async (t) => {
  const doc = { a: 1 }
  const cases: Array<[unknown, string, RegExp]> = [
    [{ op: 'add' }, 'body', /must be an array/],
    [[1], 'body/0', /must be an object/],
    [[null], 'body/0', /must be an object/],
    [[['add']], 'body/0', /must be an object/],
    [[{ path: '/a' }], 'body/0/op', /needs an "op"/],
    [[{ op: 7, path: '/a' }], 'body/0/op', /needs an "op"/],
    [[{ op: 'spam', path: '/a' }], 'body/0/op', /unknown op "spam"/],
    [[{ op: 'remove' }], 'body/0/path', /no "path"/],
    [[{ op: 'remove', path: 3 }], 'body/0/path', /must be a string/],
    [[{ op: 'remove', path: 'a' }], 'body/0/path', /not a JSON Pointer/],
    [[{ op: 'remove', path: '/a~2' }], 'body/0/path', /not a JSON Pointer/],
    [[{ op: 'remove', path: '/a~' }], 'body/0/path', /not a JSON Pointer/],
    [[{ op: 'add', path: '/b' }], 'body/0/value', /no "value"/],
    [[{ op: 'replace', path: '/a' }], 'body/0/value', /no "value"/],
    [[{ op: 'test', path: '/a' }], 'body/0/value', /no "value"/],
    [[{ op: 'copy', path: '/b' }], 'body/0/from', /no "from"/],
    [[{ op: 'move', path: '/b', from: 1 }], 'body/0/from', /must be a string/],
    [[{ op: 'move', path: '/a/b', from: '/a' }], 'body/0/from', /own children/],
    [[{ op: 'move', path: '/a', from: '' }], 'body/0/from', /own children/],
    [[{ op: 'remove', path: '' }], 'body/0/path', /whole document/],
    [
      [
        { op: 'test', path: '/a', value: 1 },
        { op: 'remove', path: '/a' },
        { op: 'nope', path: '' },
      ],
      'body/2/op',
      /unknown op/,
    ],
  ]
  for (const [patch, field, message] of cases) {
    const error = failure(() => apply(doc, patch))
    t.same(
      summary(error),
      { status: 400, code: ErrorCode.INVALID_PATCH, field },
      JSON.stringify(patch),
    )
    t.match(error.message, message)
    t.equal(error.details[0]?.code, ErrorCode.INVALID_PATCH)
  }
})

test('a malformed operation anywhere fails the patch before any operation runs', async (t) => {
  // Operation 0 would fail with 409 if it ran; the malformed operation 1 wins: 400.
  t.same(
    fails({}, [
      { op: 'remove', path: '/missing' },
      { op: 'add', path: '/x' },
    ]),
    { status: 400, code: ErrorCode.INVALID_PATCH, field: 'body/1/value' },
  )
})

test('operations that cannot apply are 409 PATCH_TARGET_MISSING with the index and member', async (t) => {
  const doc = { a: { b: [1, 2, 3] }, s: 'text', n: null }
  const cases: Array<[JsonPatchOperation, string, RegExp]> = [
    [{ op: 'remove', path: '/x' }, 'body/0/path', /"\/x" does not exist/],
    [{ op: 'replace', path: '/x', value: 1 }, 'body/0/path', /"\/x" does not exist/],
    [{ op: 'test', path: '/x/y', value: 1 }, 'body/0/path', /"\/x" does not exist/],
    [{ op: 'add', path: '/x/y', value: 1 }, 'body/0/path', /"\/x" does not exist/],
    [{ op: 'add', path: '/s/y', value: 1 }, 'body/0/path', /"\/s" is not an object or array/],
    [{ op: 'add', path: '/n/y', value: 1 }, 'body/0/path', /"\/n" is not an object or array/],
    [{ op: 'remove', path: '/s/y' }, 'body/0/path', /"\/s\/y" does not exist/],
    [{ op: 'replace', path: '/s/0', value: 1 }, 'body/0/path', /"\/s\/0" does not exist/],
    [{ op: 'add', path: '/a/b/4', value: 1 }, 'body/0/path', /index 4 is out of bounds/],
    [{ op: 'remove', path: '/a/b/3' }, 'body/0/path', /index 3 is out of bounds/],
    [{ op: 'replace', path: '/a/b/3', value: 0 }, 'body/0/path', /out of bounds/],
    [{ op: 'remove', path: '/a/b/-' }, 'body/0/path', /"-" names the element after the last/],
    [{ op: 'test', path: '/a/b/-', value: 1 }, 'body/0/path', /"-"/],
    [{ op: 'remove', path: '/a/b/01' }, 'body/0/path', /"01" is not an array index/],
    [{ op: 'add', path: '/a/b/00', value: 1 }, 'body/0/path', /"00" is not an array index/],
    [{ op: 'test', path: '/a/b/+1', value: 2 }, 'body/0/path', /not an array index/],
    [{ op: 'test', path: '/a/b/1.0', value: 2 }, 'body/0/path', /not an array index/],
    [{ op: 'test', path: '/a/b/', value: 2 }, 'body/0/path', /not an array index/],
    [{ op: 'test', path: '/a/b/9999999999999999', value: 2 }, 'body/0/path', /not an array index/],
    [{ op: 'test', path: '/a/b/999999999999999', value: 2 }, 'body/0/path', /out of bounds/],
    [{ op: 'add', path: '/a/b/x', value: 1 }, 'body/0/path', /"x" is not an array index/],
    [{ op: 'copy', from: '/x', path: '/y' }, 'body/0/from', /"\/x" does not exist/],
    [{ op: 'move', from: '/a/b/7', path: '/y' }, 'body/0/from', /out of bounds/],
    [{ op: 'move', from: '/x', path: '/x' }, 'body/0/from', /"\/x" does not exist/],
    [{ op: 'move', from: '/s', path: '/a/c/d' }, 'body/0/path', /"\/a\/c" does not exist/],
    [{ op: 'test', path: '/toString', value: 1 }, 'body/0/path', /"\/toString" does not exist/],
    [{ op: 'remove', path: '/hasOwnProperty' }, 'body/0/path', /does not exist/],
    [{ op: 'replace', path: '/valueOf', value: 1 }, 'body/0/path', /does not exist/],
    [{ op: 'copy', from: '/toString', path: '/t' }, 'body/0/from', /does not exist/],
  ]
  for (const [operation, field, message] of cases) {
    const error = failure(() => applyJsonPatch(doc, [operation]))
    t.same(
      summary(error),
      { status: 409, code: ErrorCode.PATCH_TARGET_MISSING, field },
      JSON.stringify(operation),
    )
    t.match(error.message, message, JSON.stringify(operation))
    t.match(error.message, /^Operation 0 \(/)
  }
})

test('JSON Pointer escapes, empty tokens and the "-" index', async (t) => {
  const doc = { 'a/b': 1, 'm~n': 2, '': 3, '~1': 4, arr: [1] }
  t.same(
    applyJsonPatch(doc, [
      { op: 'test', path: '/a~1b', value: 1 },
      { op: 'test', path: '/m~0n', value: 2 },
      { op: 'test', path: '/', value: 3 },
      { op: 'test', path: '/~01', value: 4 },
      { op: 'replace', path: '/a~1b', value: 10 },
      { op: 'add', path: '/arr/-', value: 2 },
      { op: 'add', path: '/arr/0', value: 0 },
      { op: 'add', path: '/x~0y~1z', value: 5 },
    ]),
    { 'a/b': 10, 'm~n': 2, '': 3, '~1': 4, arr: [0, 1, 2], 'x~y/z': 5 },
  )
  // "0" on an object is a member name; "-" on an object is a member name too.
  t.same(
    applyJsonPatch({}, [
      { op: 'add', path: '/0', value: 'a' },
      { op: 'add', path: '/-', value: 'b' },
    ]),
    {
      0: 'a',
      '-': 'b',
    },
  )
  t.same(applyJsonPatch([1, 2], [{ op: 'add', path: '/2', value: 3 }]), [1, 2, 3])
})

test('add, replace, move and copy at the root', async (t) => {
  t.same(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '', value: [1] }]), [1])
  t.same(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: 'x' }]), 'x')
  t.same(applyJsonPatch({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '' }]), { b: 1 })
  t.same(applyJsonPatch({ a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '' }]), { b: 1 })
  t.same(applyJsonPatch({ a: 1 }, [{ op: 'move', from: '', path: '' }]), { a: 1 })
  t.same(applyJsonPatch({ a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }]), { a: 1 })
  t.same(applyJsonPatch('scalar', [{ op: 'replace', path: '', value: 'other' }]), 'other')
})

test('copy makes an independent value; add of the same value twice makes two', async (t) => {
  const value = { deep: { n: 1 } }
  const result = applyJsonPatch({} as Record<string, { deep: { n: number } }>, [
    { op: 'add', path: '/a', value },
    { op: 'add', path: '/b', value },
    { op: 'copy', from: '/a', path: '/c' },
    { op: 'replace', path: '/a/deep/n', value: 2 },
  ])
  t.same(result, { a: { deep: { n: 2 } }, b: { deep: { n: 1 } }, c: { deep: { n: 1 } } })
  t.equal(value.deep.n, 1, 'the operation value is untouched')
  t.not(result.b, value, 'the result shares nothing with the patch')
})

test('the input document is never mutated and the result shares no object with it', async (t) => {
  const doc = { a: { b: [1, { c: 2 }] }, d: 'x' }
  const snapshot = JSON.stringify(doc)
  const result = applyJsonPatch(doc, [
    { op: 'add', path: '/a/b/-', value: 3 },
    { op: 'remove', path: '/d' },
  ])
  t.equal(JSON.stringify(doc), snapshot)
  t.not(result.a, doc.a)
  t.not(result.a.b[1], doc.a.b[1], 'untouched subtrees are copies too')
})

test('atomic: a failing operation after successful ones changes nothing', async (t) => {
  const doc = { list: [1, 2, 3], name: 'x' }
  const snapshot = JSON.stringify(doc)
  const error = failure(() =>
    applyJsonPatch(doc, [
      { op: 'remove', path: '/list/0' },
      { op: 'replace', path: '/name', value: 'y' },
      { op: 'add', path: '/new', value: 1 },
      { op: 'test', path: '/name', value: 'x' },
    ]),
  )
  t.same(summary(error), { status: 409, code: ErrorCode.PATCH_TEST_FAILED, field: 'body/3/path' })
  t.match(error.message, /^Operation 3 \(test "\/name"\)/)
  t.equal(JSON.stringify(doc), snapshot)
})

test('test compares by JSON value: member order free, types strict, Dates as ISO strings', async (t) => {
  const when = new Date('2020-01-02T03:04:05.000Z')
  const doc = { o: { x: 1, y: [1, { z: null }] }, when, n: 1 }
  t.same(
    applyJsonPatch(doc, [
      { op: 'test', path: '/o', value: { y: [1, { z: null }], x: 1 } },
      { op: 'test', path: '/when', value: '2020-01-02T03:04:05.000Z' },
      { op: 'test', path: '/n', value: 1.0 },
    ]),
    doc,
  )
  const differs: unknown[] = [
    { x: 1 },
    { x: 1, y: [1, { z: null }], extra: 1 },
    { x: 1, y: [1] },
    { x: 1, y: [1, { z: 0 }] },
    { x: '1', y: [1, { z: null }] },
    [1],
    null,
  ]
  for (const value of differs) {
    t.equal(
      failure(() => applyJsonPatch(doc, [{ op: 'test', path: '/o', value }])).code,
      'PATCH_TEST_FAILED',
    )
  }
  t.equal(
    failure(() => applyJsonPatch(doc, [{ op: 'test', path: '/o/y', value: { 0: 1 } }])).code,
    'PATCH_TEST_FAILED',
  )
  t.equal(
    failure(() => applyJsonPatch(doc, [{ op: 'test', path: '/n', value: '1' }])).code,
    'PATCH_TEST_FAILED',
  )
  // An opaque value without toJSON only equals itself.
  const opaque = new Map()
  t.same(applyJsonPatch({ m: opaque }, [{ op: 'test', path: '/m', value: opaque }]), { m: opaque })
  t.equal(
    failure(() => applyJsonPatch({ m: opaque }, [{ op: 'test', path: '/m', value: {} }])).code,
    'PATCH_TEST_FAILED',
  )
})

test('opaque values such as Dates are kept, not converted', async (t) => {
  const when = new Date(0)
  const result = applyJsonPatch({ when, n: 1 }, [{ op: 'replace', path: '/n', value: 2 }])
  t.equal(result.when, when)
  t.equal(
    failure(() => applyJsonPatch({ when }, [{ op: 'add', path: '/when/x', value: 1 }])).code,
    'PATCH_TARGET_MISSING',
    'a pointer does not enter an opaque object',
  )
})

test('paths through __proto__, constructor or prototype are 422 FORBIDDEN_PATH', async (t) => {
  const patches: Array<[JsonPatchOperation, string]> = [
    [{ op: 'add', path: '/__proto__/polluted', value: 1 }, 'body/0/path'],
    [{ op: 'add', path: '/constructor/prototype/polluted', value: 1 }, 'body/0/path'],
    [{ op: 'replace', path: '/a/__proto__', value: {} }, 'body/0/path'],
    [{ op: 'test', path: '/prototype', value: 1 }, 'body/0/path'],
    [{ op: 'copy', from: '/__proto__', path: '/x' }, 'body/0/from'],
    [{ op: 'move', from: '/a', path: '/constructor' }, 'body/0/path'],
    [
      { op: 'add', path: '/a', value: JSON.parse('{"nested":{"__proto__":{"polluted":1}}}') },
      'body/0/value/nested/__proto__',
    ],
    [
      { op: 'add', path: '/a', value: JSON.parse('{"__proto__":{"polluted":1}}') },
      'body/0/value/__proto__',
    ],
    [
      { op: 'add', path: '/a', value: [{ constructor: { prototype: { polluted: 1 } } }] },
      'body/0/value/0/constructor',
    ],
  ]
  for (const [operation, field] of patches) {
    const error = failure(() => applyJsonPatch({ a: {} }, [operation]))
    t.same(
      summary(error),
      { status: 422, code: ErrorCode.FORBIDDEN_PATH, field },
      JSON.stringify(operation),
    )
  }
  t.equal(({} as { polluted?: unknown }).polluted, undefined)
  t.equal(Object.hasOwn(Object.prototype, 'polluted'), false)
})

test('values nested deeper than 128 levels are 400', async (t) => {
  let deep: unknown = 1
  for (let i = 0; i < 200; i++) deep = [deep]
  const error = failure(() => applyJsonPatch({}, [{ op: 'add', path: '/d', value: deep }]))
  t.equal(error.statusCode, 400)
  t.match(error.details[0]?.field, /^body\/0\/value(\/0)+$/)
  let object: unknown = 1
  for (let i = 0; i < 200; i++) object = { k: object }
  t.equal(
    failure(() => applyJsonPatch({}, [{ op: 'add', path: '/d', value: object }])).statusCode,
    400,
  )
  let fine: unknown = 1
  for (let i = 0; i < 60; i++) fine = { k: [fine] }
  t.ok(applyJsonPatch({}, [{ op: 'add', path: '/d', value: fine }]))
})

test('long client input is cut in messages', async (t) => {
  const error = failure(() => applyJsonPatch({}, [{ op: 'remove', path: `/${'x'.repeat(500)}` }]))
  t.ok(error.message.length < 300)
  t.match(error.message, /\.\.\."/)
})

test('an own "__proto__" member of the document is kept as data, never as a prototype', async (t) => {
  const doc = JSON.parse('{"__proto__":{"x":1},"a":1}') as Record<string, unknown>
  const result = applyJsonPatch(doc, [{ op: 'replace', path: '/a', value: 2 }]) as Record<
    string,
    unknown
  >
  t.equal(Object.getPrototypeOf(result), Object.prototype)
  t.ok(Object.hasOwn(result, '__proto__'))
  t.equal((result as { x?: unknown }).x, undefined)
  const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 })
  t.same(applyJsonPatch(nullProto, [{ op: 'add', path: '/b', value: 2 }]), { a: 1, b: 2 })
})
