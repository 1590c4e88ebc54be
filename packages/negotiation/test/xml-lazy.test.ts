/** fast-xml-parser is loaded on first use of XML, not when the package is imported. */
import { createRequire } from 'node:module'
import { test } from 'tap'
import { fromXml, toXml } from '../src/index.js'

const loaded = (): boolean =>
  Object.keys(createRequire(import.meta.url).cache).some((file) =>
    file.includes('/fast-xml-parser/'),
  )

test('importing the package leaves fast-xml-parser unloaded; the first XML loads it', async (t) => {
  t.notOk(loaded(), 'not loaded by the import')
  const xml = toXml({ id: 1, title: 'Dune' }, 'book')
  t.ok(loaded(), 'loaded by the first toXml')
  t.same(fromXml(xml), { id: 1, title: 'Dune' }, 'and the same builder and parser serve again')
})
