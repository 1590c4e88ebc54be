import { test } from 'tap'
import { methodOverride } from '../src/index.js'

const contributions = (raw: Parameters<typeof methodOverride.options>[0]) =>
  methodOverride.contributes?.(methodOverride.options(raw))

test('the convention names the request header and the query parameter it reads', async (t) => {
  t.same(contributions({}), {
    queryParameters: ['_method'],
    requestHeaders: ['x-http-method-override'],
  })
  t.same(
    contributions({ header: 'X-Method', query: 'm' }),
    { queryParameters: ['m'], requestHeaders: ['x-method'] },
    'under the names the options give them (a header in lower case, as CORS compares it)',
  )
  t.same(
    contributions({ header: false, query: false }),
    { queryParameters: [], requestHeaders: [] },
    'none for a carrier that is off',
  )
})
