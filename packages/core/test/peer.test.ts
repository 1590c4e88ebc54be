import { test } from 'tap'
import { isModuleNotFound } from '../src/internal.js'

test('isModuleNotFound reads ESM and CommonJS codes, or the message alone', async (t) => {
  const missing = await import(`not-installed-${Date.now()}`).catch((error: unknown) => error)
  t.equal(isModuleNotFound(missing), true, 'a real failed import()')
  t.equal(isModuleNotFound({ code: 'MODULE_NOT_FOUND' }), true)
  t.equal(isModuleNotFound(new Error("Cannot find package 'x' imported from y.js")), true)
  t.equal(isModuleNotFound(new Error("Cannot find module 'x'")), true)
  t.equal(isModuleNotFound({ code: 'ERR_REQUIRE_ESM', message: 'syntax error' }), false)
  t.equal(isModuleNotFound(null), false)
  t.equal(isModuleNotFound('Cannot find module x'), false, 'a string is no error')
})
