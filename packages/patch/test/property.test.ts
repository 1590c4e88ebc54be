// Property-based tests (fast-check): no input is ever mutated, a failure is always an
// HttpError, nothing reaches a prototype, and both functions agree with their RFCs' laws.
import { isHttpError } from '@restwell/errors'
import fc from 'fast-check'
import jsonPatch from 'fast-json-patch'
import { test } from 'tap'
import { applyJsonPatch, applyMergePatch, type JsonPatchOperation } from '../src/index.js'
import { formatPointer, parsePointer } from '../src/pointer.js'

/** Tokens chosen so generated paths often hit, often miss, and probe every pointer rule. */
const TOKENS = [
  'a',
  'b',
  'c',
  '0',
  '1',
  '2',
  '-',
  '01',
  '',
  '~',
  '/',
  'toString',
  '__proto__',
  'constructor',
  'prototype',
]
const SAFE_TOKENS = ['a', 'b', 'c', '0', '1', '2', '-', '', '~', '/']

function jsonDoc(keys: readonly string[]): fc.Arbitrary<unknown> {
  const key = fc.constantFrom(...keys)
  return fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(
        fc.constant(null),
        fc.boolean(),
        fc.integer({ min: -3, max: 3 }),
        fc.constantFrom('x', 'y', ''),
      ),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    ),
  })).value
}

function pointer(tokens: readonly string[]): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...tokens), { maxLength: 4 }).map(formatPointer)
}

function operation(tokens: readonly string[]): fc.Arbitrary<JsonPatchOperation> {
  const path = pointer(tokens)
  const value = jsonDoc(tokens)
  return fc.oneof(
    fc.record({ op: fc.constant('add' as const), path, value }),
    fc.record({ op: fc.constant('remove' as const), path }),
    fc.record({ op: fc.constant('replace' as const), path, value }),
    fc.record({ op: fc.constant('move' as const), from: path, path }),
    fc.record({ op: fc.constant('copy' as const), from: path, path }),
    fc.record({ op: fc.constant('test' as const), path, value }),
  )
}

/** A serialization that keeps own `__proto__` members, to compare before and after. */
function snapshot(value: unknown): string {
  return JSON.stringify(value)
}

/**
 * The JSON value with object members in sorted order: equal for equal JSON values (RFC 8259:
 * members are unordered). A `move` onto its own path is a no-op here and a remove + add in
 * fast-json-patch, which puts the member last: the same object, another member order.
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  )
}

function objectsOf(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value === 'object' && value !== null) {
    into.add(value)
    for (const child of Object.values(value)) objectsOf(child, into)
  }
  return into
}

function sharesObject(result: unknown, sources: Set<object>): boolean {
  for (const object of objectsOf(result)) if (sources.has(object)) return true
  return false
}

const prototypeNames = (): string =>
  [Object.prototype, Array.prototype, Function.prototype]
    .map((proto) => Object.getOwnPropertyNames(proto).sort().join(','))
    .join('|')

test('applyJsonPatch: inputs never change, failures are HttpErrors, no prototype is reached', async (t) => {
  const protoBefore = prototypeNames()
  fc.assert(
    fc.property(jsonDoc(TOKENS), fc.array(operation(TOKENS), { maxLength: 6 }), (doc, ops) => {
      const docBefore = snapshot(doc)
      const opsBefore = snapshot(ops)
      try {
        const result = applyJsonPatch(doc, ops)
        if (sharesObject(result, objectsOf(doc, objectsOf(ops)))) return false
      } catch (error) {
        if (!isHttpError(error) || ![400, 409, 422].includes(error.statusCode)) return false
      }
      return (
        snapshot(doc) === docBefore &&
        snapshot(ops) === opsBefore &&
        ({} as { polluted?: unknown }).polluted === undefined &&
        Object.getPrototypeOf({}) === Object.prototype
      )
    }),
    { numRuns: 2000 },
  )
  t.equal(
    prototypeNames(),
    protoBefore,
    'no property added to Object, Array or Function prototypes',
  )
})

test('applyJsonPatch: a failing patch leaves the input as it was, whatever ran before the failure', async (t) => {
  let failures = 0
  fc.assert(
    fc.property(
      jsonDoc(SAFE_TOKENS),
      fc.array(operation(SAFE_TOKENS), { minLength: 2, maxLength: 6 }),
      (doc, ops) => {
        const before = snapshot(doc)
        try {
          applyJsonPatch(doc, ops)
          return snapshot(doc) === before
        } catch {
          failures++
          return snapshot(doc) === before
        }
      },
    ),
    { numRuns: 1000 },
  )
  t.ok(failures > 100, `${failures} failing patches checked`)
})

test('applyJsonPatch agrees with fast-json-patch on patches without the cases it gets wrong', async (t) => {
  // fast-json-patch reads inherited members and takes "01" as index 1 for add; the token set
  // here avoids both, so the two implementations must agree on success, failure and result.
  let agreed = 0
  fc.assert(
    fc.property(
      jsonDoc(SAFE_TOKENS),
      fc.array(operation(SAFE_TOKENS), { maxLength: 5 }),
      (doc, ops) => {
        // Deliberate difference: removing the whole document is refused here (400).
        fc.pre(!ops.some((op) => op.op === 'remove' && op.path === ''))
        let ours: { ok: boolean; value?: unknown }
        try {
          ours = { ok: true, value: applyJsonPatch(doc, ops) }
        } catch {
          ours = { ok: false }
        }
        let theirs: { ok: boolean; value?: unknown }
        try {
          const copy = JSON.parse(JSON.stringify(ops)) as jsonPatch.Operation[]
          theirs = { ok: true, value: jsonPatch.applyPatch(doc, copy, true, false).newDocument }
        } catch {
          theirs = { ok: false }
        }
        agreed++
        if (process.env['DIFF'] && !ours.ok && theirs.ok)
          console.error('DIFF', JSON.stringify([doc, ops, theirs.value]))
        // Where fast-json-patch is lenient (a member set on a number, a pointer into a string)
        // this implementation refuses; everything it accepts, fast-json-patch accepts alike.
        return !ours.ok || (theirs.ok && canonical(ours.value) === canonical(theirs.value))
      },
    ),
    {
      numRuns: 1500,
      // Found by CI (seed -98968494): the member order differed, the values did not.
      examples: [[{ b: 0, a: null }, [{ op: 'move', from: '/b', path: '/b' }]]],
    },
  )
  t.ok(agreed >= 1500)
})

test('applyMergePatch: inputs never change, results are new, the patch is idempotent', async (t) => {
  const protoBefore = prototypeNames()
  fc.assert(
    fc.property(jsonDoc(TOKENS), jsonDoc(TOKENS), (doc, patch) => {
      const docBefore = snapshot(doc)
      const patchBefore = snapshot(patch)
      try {
        const once = applyMergePatch(doc, patch)
        if (sharesObject(once, objectsOf(doc, objectsOf(patch)))) return false
        if (snapshot(applyMergePatch(once, patch)) !== snapshot(once)) return false
      } catch (error) {
        if (!isHttpError(error) || error.statusCode !== 422) return false
      }
      return snapshot(doc) === docBefore && snapshot(patch) === patchBefore
    }),
    { numRuns: 2000 },
  )
  t.equal(prototypeNames(), protoBefore)
  t.equal(({} as { polluted?: unknown }).polluted, undefined)
})

test('JSON Pointer: parse never throws and inverts format', async (t) => {
  fc.assert(
    fc.property(fc.string(), (text) => {
      const tokens = parsePointer(text)
      return tokens === undefined || formatPointer(tokens) === text
    }),
  )
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: fc.constantFrom('a', '~', '/', '0', '1', 'é') })),
      (tokens) => {
        const parsed = parsePointer(formatPointer(tokens))
        return (
          parsed !== undefined &&
          parsed.length === tokens.length &&
          parsed.every((x, i) => x === tokens[i])
        )
      },
    ),
  )
  t.pass()
})
