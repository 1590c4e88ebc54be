import { test } from 'tap'
import { versioning } from '../src/index.js'

const contributions = (raw: Parameters<typeof versioning.options>[0]) =>
  versioning.contributes?.(versioning.options(raw))

test('the convention names the query parameter it reads and the headers it sends', async (t) => {
  t.same(contributions({}), {
    queryParameters: ['version'],
    responseHeaders: ['API-Version', 'Deprecation', 'Sunset'],
  })
  t.same(
    contributions({ queryParameter: 'v', responseHeader: 'X-Api-Version' }),
    { queryParameters: ['v'], responseHeaders: ['X-Api-Version', 'Deprecation', 'Sunset'] },
    'under the names the options give them',
  )
  t.same(
    contributions({ carriers: { query: false }, responseHeader: false }),
    { queryParameters: [], responseHeaders: ['Deprecation', 'Sunset'] },
    'none for a carrier or a header that is off',
  )
})

test("the version headers go on a versioned route's answers only", async (t) => {
  const state = { versions: { configured: undefined }, options: versioning.options({}) }
  const headers = (url: string) =>
    versioning.routeResponseHeaders?.({ route: { url } } as never, state as never)
  t.same(headers('/v2/books'), ['API-Version', 'Deprecation', 'Sunset'])
  t.same(headers('/books'), [], 'not versioned')
})
