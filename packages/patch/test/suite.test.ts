// Every case of the public JSON Patch test suite (json-patch-test-suite: tests.json and
// spec_tests.json) that is not marked disabled: expected documents equal, expected errors raised.
import { createRequire } from 'node:module'
import { isHttpError } from '@restwell/errors'
import { test } from 'tap'
import { applyJsonPatch, type JsonPatchOperation } from '../src/index.js'

interface SuiteCase {
  comment?: string
  doc?: unknown
  patch?: JsonPatchOperation[]
  expected?: unknown
  error?: string
  disabled?: boolean
}

const require = createRequire(import.meta.url)
const files: Record<string, SuiteCase[]> = {
  'tests.json': require('json-patch-test-suite/tests.json'),
  'spec_tests.json': require('json-patch-test-suite/spec_tests.json'),
}

for (const [file, cases] of Object.entries(files)) {
  test(`json-patch-test-suite ${file}`, async (t) => {
    let run = 0
    cases.forEach((c, i) => {
      if (c.disabled === true || c.patch === undefined) return
      run++
      const name = `#${i} ${c.comment ?? c.error ?? JSON.stringify(c.patch)}`
      const before = JSON.stringify(c.doc)
      if (c.error !== undefined) {
        let thrown: unknown
        try {
          applyJsonPatch(c.doc, c.patch)
        } catch (error) {
          thrown = error
        }
        t.ok(isHttpError(thrown) && [400, 409].includes(thrown.statusCode), `${name}: raises`)
      } else {
        const result = applyJsonPatch(c.doc, c.patch)
        t.same(result, 'expected' in c ? c.expected : c.doc, name)
      }
      t.equal(JSON.stringify(c.doc), before, `${name}: input unchanged`)
    })
    t.ok(run > 10, `${run} cases run`)
  })
}
