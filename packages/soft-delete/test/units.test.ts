import { isHttpError } from '@restwell/errors'
import fc from 'fast-check'
import { test } from 'tap'
import {
  filterDeleted,
  isDeleted,
  isIncluded,
  isRestoreBody,
  MAX_INCLUDE_TOKENS,
  markDeleted,
  readInclusion,
  represent,
  softDelete,
  representAll,
  restore,
  sqlCondition,
  toIsoUtc,
} from '../src/index.js'

test('isDeleted', async (t) => {
  t.ok(isDeleted({ deleted: true }))
  t.ok(isDeleted({ deletedAt: '2024-01-01' }))
  t.ok(isDeleted({ deletedAt: 0 }))
  t.notOk(isDeleted({ deletedAt: null }))
  t.notOk(isDeleted({ deleted: false, deletedAt: '2024-01-01' }))
  t.notOk(isDeleted({}))
  t.notOk(isDeleted(null))
  t.notOk(isDeleted([{ deleted: true }]))
  t.notOk(isDeleted('deleted'))
})

test('markDeleted is pure and idempotent; restore removes the fields', async (t) => {
  const book = { id: 1, title: 'x' }
  const now = new Date(Date.UTC(2026, 10, 22, 13, 0, 0))
  const deleted = markDeleted(book, now)
  t.strictSame(book, { id: 1, title: 'x' }, 'input not mutated')
  t.strictSame(deleted, { id: 1, title: 'x', deleted: true, deletedAt: '2026-11-22T13:00:00.000Z' })
  t.equal(markDeleted(deleted, new Date()), deleted, 'same object when already represented')
  t.strictSame(markDeleted({ id: 2, deleted_at: 1, deletedAt: '2020-01-01T01:00:00+01:00' }), {
    id: 2,
    deleted_at: 1,
    deletedAt: '2020-01-01T00:00:00.000Z',
    deleted: true,
  })
  t.strictSame(restore(deleted), book)
  t.strictSame(restore(book), book)
  t.match(markDeleted({ id: 3 }).deletedAt, /Z$/)
})

test('toIsoUtc and represent', async (t) => {
  t.equal(toIsoUtc(new Date(0)), '1970-01-01T00:00:00.000Z')
  t.equal(toIsoUtc(86_400_000), '1970-01-02T00:00:00.000Z')
  t.equal(toIsoUtc('2024-02-29T23:30:00-01:00'), '2024-03-01T00:30:00.000Z')
  t.throws(() => toIsoUtc('nope'), TypeError)
  t.throws(() => toIsoUtc(undefined), TypeError)
  t.throws(() => toIsoUtc(new Date(Number.NaN)), TypeError)
  t.throws(() => toIsoUtc({}), TypeError)
  const active = { id: 1 }
  t.equal(represent(active), active)
  t.equal(represent('x'), 'x')
})

test('representAll: every item as represent sends it, never mutating', async (t) => {
  const active = [{ id: 1 }, 'x', null]
  t.equal(representAll(active), active, 'the same array when nothing changes')
  const stored = { id: 2, deletedAt: 0 }
  const items = [{ id: 1 }, stored, { id: 3, deleted: true, deletedAt: 86_400_000 }]
  const shown = representAll(items)
  t.not(shown, items)
  t.equal(shown[0], items[0], 'unchanged items are the same objects')
  t.strictSame(shown, [
    { id: 1 },
    { id: 2, deletedAt: '1970-01-01T00:00:00.000Z', deleted: true },
    { id: 3, deleted: true, deletedAt: '1970-01-02T00:00:00.000Z' },
  ])
  t.strictSame(stored, { id: 2, deletedAt: 0 }, 'input not mutated')
  t.throws(() => representAll([{ id: 4, deleted: true }]), TypeError)
})

test('isIncluded, filterDeleted, sqlCondition', async (t) => {
  const items = [{ id: 1 }, { id: 2, deleted: true, deletedAt: 'x' }]
  t.strictSame(filterDeleted(items, 'active'), [{ id: 1 }])
  t.strictSame(filterDeleted(items, 'deleted'), [items[1]])
  const all = filterDeleted(items, 'all')
  t.strictSame(all, items)
  t.not(all, items, 'a new array')
  t.ok(isIncluded(items[1], 'all'))
  t.notOk(isIncluded(items[1], 'active'))
  t.equal(sqlCondition('all'), 'TRUE')
  t.equal(sqlCondition('active'), '"deleted_at" IS NULL')
  t.equal(sqlCondition('deleted', 'removed"at'), '"removed""at" IS NOT NULL')
})

test('isRestoreBody', async (t) => {
  const yes = [
    { deleted: false },
    { deletedAt: null },
    [{ op: 'replace', path: '/deleted', value: false }],
    [{ op: 'add', path: '/deleted', value: false }],
    [{ op: 'remove', path: '/deleted' }],
    [
      { op: 'test', path: '/id', value: 1 },
      { op: 'remove', path: '/deletedAt' },
    ],
    [{ op: 'replace', path: '/deletedAt', value: null }],
    [{ op: 'add', path: '/deletedAt', value: null }],
  ]
  const no = [
    undefined,
    null,
    'deleted=false',
    {},
    { deleted: true },
    { deleted: true, deletedAt: null },
    { deleted: 'false' },
    [],
    [null, 1],
    [{ op: 'replace', path: '/deleted', value: true }],
    [{ op: 'copy', path: '/deleted', from: '/x' }],
    [{ op: 'replace', path: '/deletedAt', value: '2024-01-01' }],
    [{ op: 'move', path: '/deletedAt', from: '/x' }],
    [{ op: 'remove', path: '/title' }],
  ]
  for (const body of yes) t.ok(isRestoreBody(body), JSON.stringify(body))
  for (const body of no) t.notOk(isRestoreBody(body), JSON.stringify(body) ?? 'undefined')
})

test('readInclusion', async (t) => {
  t.equal(readInclusion({}, 'deleted', 'include'), 'active')
  t.equal(readInclusion({ include: ['author', 'x,deleted'] }, 'deleted', 'include'), 'all')
  t.equal(readInclusion({ include: [' deleted '] }, 'deleted', 'include'), 'all')
  t.equal(readInclusion({ include: 'a,,b' }, 'deleted', 'include'), 'active')
  t.equal(readInclusion({ include: 5 }, 'deleted', 'include'), 'active')
  const far = `${Array(MAX_INCLUDE_TOKENS).fill('x').join(',')},deleted`
  t.equal(
    readInclusion({ include: far }, 'deleted', 'include'),
    'active',
    'tokens beyond the bound are not read',
  )
  t.throws(() => readInclusion({ deleted: 'toString' }, 'deleted', 'include'), {
    code: 'INVALID_FILTER',
  })
  t.equal(readInclusion({ deleted: 'only' }, 'deleted', false), 'deleted')
})

test('property: readInclusion throws only 400 INVALID_FILTER errors and never hangs', async () => {
  const value = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.constantFrom('exclude', 'include', 'only', 'deleted', 'a,deleted'),
    fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
  )
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom('deleted', 'include', 'x'), value), (query) => {
      try {
        return ['active', 'all', 'deleted'].includes(readInclusion(query, 'deleted', 'include'))
      } catch (error) {
        return isHttpError(error) && error.statusCode === 400 && error.code === 'INVALID_FILTER'
      }
    }),
    { numRuns: 3000 },
  )
})

test('property: markDeleted is idempotent and restore undoes it', async () => {
  fc.assert(
    fc.property(
      fc.dictionary(
        fc.string().filter((k) => k !== 'deleted' && k !== 'deletedAt' && k !== '__proto__'),
        fc.jsonValue(),
      ),
      fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(8.64e15) }),
      (resource, now) => {
        const once = markDeleted(resource, now)
        const twice = markDeleted(once, new Date(now.getTime() + 1000))
        return (
          twice.deletedAt === once.deletedAt &&
          once.deletedAt === now.toISOString() &&
          isDeleted(once) &&
          JSON.stringify(restore(twice)) === JSON.stringify(resource)
        )
      },
    ),
    { numRuns: 500 },
  )
})

test('property: isRestoreBody never throws', async () => {
  fc.assert(
    fc.property(fc.anything(), (body) => typeof isRestoreBody(body) === 'boolean'),
    { numRuns: 2000 },
  )
})

test('the convention contributes the query parameters it reads', async (t) => {
  t.same(softDelete.contributes?.(softDelete.options({})), {
    queryParameters: ['deleted', 'include'],
  })
  t.same(softDelete.contributes?.(softDelete.options({ param: 'trash', includeParam: false })), {
    queryParameters: ['trash'],
  })
})
