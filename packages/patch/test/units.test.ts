import fc from 'fast-check'
import { test } from 'tap'
import { acceptPatchValue, patchFormatOf } from '../src/index.js'
import { ACCEPT_PATCH_BY_MASK, FORMATS_BY_MASK, formatMask } from '../src/content-type.js'
import { toJsonForm } from '../src/json.js'
import { arrayIndex, escapeToken, isProperPrefix, parsePointer } from '../src/pointer.js'
import {
  checkResult,
  parseReadOnly,
  readOnlyPointers,
  responseSchemaOf,
  standardValidator,
} from '../src/resource.js'

test('patchFormatOf reads the media type of a Content-Type', async (t) => {
  t.equal(patchFormatOf('application/json-patch+json'), 'json-patch')
  t.equal(patchFormatOf('Application/Merge-Patch+JSON; charset=utf-8'), 'merge-patch')
  t.equal(patchFormatOf(' \tapplication/json-patch+json \t;x=y'), 'json-patch')
  t.equal(patchFormatOf('application/json'), undefined)
  t.equal(patchFormatOf('application/json-patch+json2'), undefined)
  t.equal(patchFormatOf(''), undefined)
  t.equal(patchFormatOf(';'), undefined)
  t.equal(patchFormatOf(undefined), undefined)
  t.equal(patchFormatOf(`application/json-patch+json;${' '.repeat(2000)}`), undefined, 'too long')
})

test('patchFormatOf never throws and ignores parameters and case (property)', async (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (header) => {
      const format = patchFormatOf(header)
      return format === undefined || format === 'json-patch' || format === 'merge-patch'
    }),
  )
  fc.assert(
    fc.property(
      fc.constantFrom('application/json-patch+json', 'application/merge-patch+json'),
      fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      fc.string({ maxLength: 40 }),
      fc.constantFrom('', ' ', '\t', '  '),
      (type, upper, params, space) => {
        const cased = [...type].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')
        const format = type.includes('merge') ? 'merge-patch' : 'json-patch'
        return patchFormatOf(`${space}${cased}${space};${params}`) === format
      },
    ),
  )
  t.pass()
})

test('format masks: each subset of formats, its list and its Accept-Patch value', async (t) => {
  const subsets = [[], ['json-patch'], ['merge-patch'], ['merge-patch', 'json-patch']] as const
  for (const formats of subsets) {
    const mask = formatMask(formats)
    t.same([...(FORMATS_BY_MASK[mask] ?? [])].sort(), [...formats].sort())
    t.equal(
      ACCEPT_PATCH_BY_MASK[mask],
      formats.length === 0 ? undefined : acceptPatchValue(formats),
    )
  }
  t.equal(FORMATS_BY_MASK.length, 4)
})

test('acceptPatchValue lists formats in a fixed order', async (t) => {
  t.equal(
    acceptPatchValue(['merge-patch', 'json-patch']),
    'application/json-patch+json, application/merge-patch+json',
  )
  t.equal(acceptPatchValue(['merge-patch']), 'application/merge-patch+json')
})

test('pointer helpers', async (t) => {
  t.same(parsePointer(''), [])
  t.same(parsePointer('/'), [''])
  t.same(parsePointer('//'), ['', ''])
  t.same(parsePointer('/~01/~10'), ['~1', '/0'])
  t.equal(parsePointer('x'), undefined)
  t.equal(escapeToken('a~/b'), 'a~0~1b')
  t.equal(arrayIndex('0'), 0)
  t.equal(arrayIndex('10'), 10)
  for (const bad of ['', '01', '-1', '1e0', ' 1', '1 ', '0x1', '1.5', '１', '1234567890123456']) {
    t.equal(arrayIndex(bad), -1, bad)
  }
  t.ok(isProperPrefix(['a'], ['a', 'b']))
  t.ok(isProperPrefix([], ['a']))
  t.notOk(isProperPrefix(['a'], ['a']))
  t.notOk(isProperPrefix(['a', 'c'], ['a', 'b', 'c']))
})

test('readOnly: schema walk and option parsing', async (t) => {
  t.same(
    readOnlyPointers({
      type: 'object',
      properties: {
        id: { type: 'string', readOnly: true },
        meta: {
          type: 'object',
          properties: { createdAt: { readOnly: true }, note: { type: 'string' } },
        },
        flag: true,
        tags: { type: 'array', items: { properties: { x: { readOnly: true } } } },
      },
    }),
    [['id'], ['meta', 'createdAt']],
  )
  t.same(readOnlyPointers(undefined), [])
  t.same(readOnlyPointers({ type: 'string' }), [])
  let deep: Record<string, unknown> = { readOnly: true }
  for (let i = 0; i < 40; i++) deep = { properties: { x: deep } }
  t.same(readOnlyPointers(deep), [], 'nesting beyond the bound is not followed')
  t.same(parseReadOnly(['id', '/meta/createdAt', '/a~1b']), [
    ['id'],
    ['meta', 'createdAt'],
    ['a/b'],
  ])
  t.equal(parseReadOnly(['/a~2']), '/a~2')
})

test('responseSchemaOf finds the success schema', async (t) => {
  const book = { type: 'object' }
  t.equal(responseSchemaOf({ response: { 200: book } }), book)
  t.equal(responseSchemaOf({ response: { '2xx': book } }), book)
  t.equal(
    responseSchemaOf({ response: { 200: { content: { 'application/json': { schema: book } } } } }),
    book,
  )
  t.equal(
    responseSchemaOf({
      response: { 200: { content: { 'application/hal+json': { schema: book } } } },
    }),
    book,
  )
  t.equal(
    responseSchemaOf({ response: { 200: { content: { 'application/json': {} } } } }),
    undefined,
  )
  t.equal(responseSchemaOf({ response: { 404: book } }), undefined)
  t.equal(responseSchemaOf({ body: book }), undefined)
  t.equal(responseSchemaOf(undefined), undefined)
  class ZodLike {}
  const zod = new ZodLike()
  t.equal(responseSchemaOf({ response: { 200: zod } }), zod, 'a schema of another kind, as it is')
  t.equal(responseSchemaOf({ response: { 200: 'Book' } }), undefined)
})

test('checkResult reads the problems of any validator', async (t) => {
  const detailsOf = (result: unknown): unknown => {
    try {
      checkResult(() => result, {})
      return 'valid'
    } catch (error) {
      return (error as { details: unknown }).details
    }
  }
  t.equal(detailsOf({ value: {} }), 'valid')
  t.equal(detailsOf(undefined), 'valid')
  t.same(detailsOf({ error: { issues: [{ path: ['a', 0], message: 'bad', code: 'too_big' }] } }), [
    { field: 'resource/a/0', message: 'bad', code: 'TOO_BIG' },
  ])
  t.same(detailsOf({ error: { issues: [null, { path: 'a' }] } }), [
    { field: 'resource', message: 'is invalid', code: 'INVALID' },
    { field: 'resource', message: 'is invalid', code: 'INVALID' },
  ])
  t.same(detailsOf({ error: [{ instancePath: '/b', message: 'no', keyword: 'type' }] }), [
    { field: 'resource/b', message: 'no', code: 'TYPE' },
  ])
  t.same(detailsOf(false), [])
})

test('standardValidator: a Standard Schema’s own validate, its issues as the error', async (t) => {
  for (const schema of [{}, { '~standard': null }, { '~standard': 1 }, { '~standard': {} }]) {
    t.equal(standardValidator(schema), undefined, JSON.stringify(schema))
  }
  const answers: unknown[] = [
    { value: 1 },
    null,
    { issues: [{ message: 'm', path: [{ key: 'a' }, 0] }] },
  ]
  const validate = standardValidator({ '~standard': { validate: () => answers.shift() } })!
  t.same(validate({}), { value: 1 })
  t.equal(validate({}), null)
  t.same(validate({}), { error: { issues: [{ message: 'm', path: [{ key: 'a' }, 0] }] } })
  const refused = standardValidator({
    '~standard': { validate: () => ({ issues: [{ message: 'm', path: [{ key: 'a' }, 0] }] }) },
  })!
  t.throws(() => checkResult(refused, {}), { message: /does not match its schema/ })
  try {
    checkResult(refused, {})
  } catch (error) {
    t.same((error as { details: unknown }).details, [
      { field: 'resource/a/0', message: 'm', code: 'INVALID' },
    ])
  }
})

test('toJsonForm: what the serializer sees, copied only where a toJSON value is', async (t) => {
  // A plain JSON document is returned itself: no copy.
  const plain = { a: 1, b: 'x', c: null, d: [1, 'y', null, { e: [] }], f: { g: true } }
  t.equal(toJsonForm(plain), plain)
  t.equal(toJsonForm(plain.d), plain.d)
  t.equal(toJsonForm('s'), 's')
  t.equal(toJsonForm(null), null)
  // Opaque objects without toJSON are kept as they are.
  const map = new Map()
  t.equal((toJsonForm({ map }) as { map: unknown }).map, map)

  const when = new Date('2020-01-01T00:00:00.000Z')
  const iso = '2020-01-01T00:00:00.000Z'
  t.equal(toJsonForm(when), iso)
  const doc = {
    at: when,
    n: 1,
    same: { k: 1 },
    nested: { at: when, also: when },
    list: [0, { k: 1 }, when, { at: when }],
  }
  const snapshot = { ...doc }
  const form = toJsonForm(doc) as typeof doc
  t.same(form, {
    at: iso,
    n: 1,
    same: { k: 1 },
    nested: { at: iso, also: iso },
    list: [0, { k: 1 }, iso, { at: iso }],
  })
  // The input is unchanged; untouched branches are shared, not copied.
  t.same(doc, snapshot)
  t.equal(doc.at, when)
  t.equal(doc.list[2], when)
  t.equal(form.same, doc.same)
  t.equal(form.list[1], doc.list[1])

  // Member names are kept as data (`__proto__`), and a null-prototype object is followed.
  const bare = Object.assign(Object.create(null) as Record<string, unknown>, { at: when })
  Object.defineProperty(bare, '__proto__', { value: 1, enumerable: true })
  const bareForm = toJsonForm(bare) as Record<string, unknown>
  t.equal(bareForm['at'], iso)
  t.ok(Object.hasOwn(bareForm, '__proto__'))
  t.equal(Object.getOwnPropertyDescriptor(bareForm, '__proto__')?.value, 1)

  // toJSON gets the member name or index, as JSON.stringify passes it; what it returns is
  // followed (a Date inside), but not replaced again.
  const keys: string[] = []
  const custom = {
    toJSON(key: string) {
      keys.push(key)
      return { at: when, inner: { toJSON: () => 'inner' }, self: this === custom }
    },
  }
  t.same(toJsonForm({ m: custom, l: [custom] }), {
    m: { at: iso, inner: 'inner', self: true },
    l: [{ at: iso, inner: 'inner', self: true }],
  })
  t.same(keys, ['m', '0'])
  t.same(toJsonForm({ m: custom }), JSON.parse(JSON.stringify({ m: custom })))
  const returnsSelf = {
    x: when,
    toJSON() {
      return this
    },
  }
  t.same(toJsonForm(returnsSelf), { x: iso, toJSON: returnsSelf.toJSON })
})
