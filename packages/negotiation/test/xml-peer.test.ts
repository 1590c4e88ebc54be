/** `fromXml` without fast-xml-parser installed (an optional peer dependency) says what to install. */
import Module from 'node:module'
import { test } from 'tap'
import { fromXml, toXml } from '../src/index.js'

type Resolve = (request: string, ...rest: unknown[]) => string
const loader = Module as unknown as { _resolveFilename: Resolve }

test('without fast-xml-parser: toXml still writes, fromXml throws an Error naming the package', async (t) => {
  const resolve = loader._resolveFilename
  let failure: Error = new Error('EACCES: permission denied')
  loader._resolveFilename = function (this: unknown, request, ...rest) {
    if (request === 'fast-xml-parser') throw failure
    return resolve.call(this, request, ...rest)
  }
  t.teardown(() => {
    loader._resolveFilename = resolve
  })
  const xml = toXml({ id: 1 }, 'book')
  t.match(xml, '<book><id type="number">1</id></book>', 'XML is written without it')
  t.throws(() => fromXml(xml), failure, 'a failure other than "not found" is passed on')
  failure = Object.assign(new Error("Cannot find module 'fast-xml-parser'"), {
    code: 'MODULE_NOT_FOUND',
  })
  const error = t.throws(() => fromXml(xml)) as Error & { statusCode?: unknown; cause?: unknown }
  t.match(error.message, /fast-xml-parser, an optional peer dependency: install it/)
  t.equal(error.statusCode, undefined, 'not an HTTP error: a setup problem, not a bad body')
  t.match(error.cause, { code: 'MODULE_NOT_FOUND' })

  loader._resolveFilename = resolve
  t.same(fromXml(xml), { id: 1 }, 'once installed, the next call reads it')
})
