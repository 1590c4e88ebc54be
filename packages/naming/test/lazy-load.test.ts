/** pluralize is loaded when the first route is checked, not when the package is imported. */
import { createRequire } from 'node:module'
import { test } from 'tap'
import { checkRouteName, resolveNamingOptions } from '../src/index.js'

const loaded = (): boolean =>
  Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/pluralize/'))

test('importing the package leaves pluralize unloaded; the first check loads it', async (t) => {
  t.notOk(loaded(), 'not loaded by the import')
  const options = resolveNamingOptions({})
  t.same(checkRouteName('/books/:id', options), [], 'a plural collection passes')
  t.ok(loaded(), 'loaded by the first check')
  t.match(
    checkRouteName('/book', options),
    [{ rule: 'plural-collection' }],
    'a singular one does not',
  )
})
