import {
  BODYLESS_METHODS,
  CONTENT_METHODS,
  READ_METHODS,
  REFUSED_METHODS,
  SAFE_METHODS,
  STANDARD_METHODS,
  UNSAFE_METHODS,
  VALIDATED_METHODS,
} from '@restwell/core/internal'
import { test } from 'tap'

test('the method sets of RFC 9110 §9 agree with one another', async (t) => {
  const standard = new Set(STANDARD_METHODS)
  for (const method of standard) {
    t.equal(SAFE_METHODS.has(method), !UNSAFE_METHODS.has(method), `${method}: safe or unsafe`)
  }
  for (const set of [
    SAFE_METHODS,
    UNSAFE_METHODS,
    READ_METHODS,
    CONTENT_METHODS,
    VALIDATED_METHODS,
  ]) {
    for (const method of set) t.ok(standard.has(method), `${method} is routed`)
  }
  for (const method of READ_METHODS) t.ok(SAFE_METHODS.has(method), `${method}: a read is safe`)
  for (const method of VALIDATED_METHODS)
    t.ok(SAFE_METHODS.has(method), `${method}: validated reads are safe`)
  for (const method of CONTENT_METHODS)
    t.notOk(BODYLESS_METHODS.has(method), `${method}: body read`)
  for (const method of REFUSED_METHODS) t.notOk(standard.has(method), `${method}: never routed`)
  t.same(STANDARD_METHODS.slice(0, 2), ['GET', 'HEAD'], 'Allow lists GET and HEAD first')
})

test('QUERY (RFC 10008) is routed, safe, carries content and is validated like GET', async (t) => {
  t.ok(STANDARD_METHODS.includes('QUERY'))
  t.equal(STANDARD_METHODS.at(-1), 'QUERY', 'Allow lists it after the methods of RFC 9110')
  t.ok(SAFE_METHODS.has('QUERY'))
  t.notOk(UNSAFE_METHODS.has('QUERY'))
  t.ok(CONTENT_METHODS.has('QUERY'))
  t.notOk(READ_METHODS.has('QUERY'), 'it does not transfer the target resource')
  t.notOk(BODYLESS_METHODS.has('QUERY'))
  t.ok(VALIDATED_METHODS.has('QUERY'))
})
