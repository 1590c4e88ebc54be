import fc from 'fast-check'
import { test } from 'tap'
import {
  joinUrl,
  MAX_QUERY_PARAMS,
  queryValues,
  splitUrl,
  withoutQueryParam,
} from '../src/index.js'

test('splitUrl and joinUrl', async (t) => {
  t.same(splitUrl('/a?b=1'), { path: '/a', query: 'b=1' })
  t.same(splitUrl('/a'), { path: '/a', query: undefined })
  t.same(splitUrl('/a?'), { path: '/a', query: '' })
  t.equal(joinUrl('/a', 'b=1'), '/a?b=1')
  t.equal(joinUrl('/a', ''), '/a')
  t.equal(joinUrl('/a', undefined), '/a')
})

test('queryValues decodes names and values', async (t) => {
  t.same(queryValues('_method=PUT&a=1', '_method'), ['PUT'])
  t.same(queryValues('%5Fmethod=put&_method=DELETE', '_method'), ['put', 'DELETE'])
  t.same(queryValues('_method&x', '_method'), [''])
  t.same(queryValues('a=b+c&a=%E0%A4%A', 'a'), ['b c', '%E0%A4%A'], 'bad escapes stay as sent')
  t.same(queryValues('', 'a'), [])
  const many = Array.from({ length: MAX_QUERY_PARAMS + 5 }, () => 'a=1').join('&')
  t.equal(queryValues(many, 'a').length, MAX_QUERY_PARAMS, 'at most MAX_QUERY_PARAMS pairs read')
})

test('withoutQueryParam keeps the other pairs byte for byte', async (t) => {
  t.equal(withoutQueryParam('a=1&_method=PUT&b=%20', '_method'), 'a=1&b=%20')
  t.equal(withoutQueryParam('_method=PUT', '_method'), '')
  t.equal(withoutQueryParam('%5fmethod=PUT&&c', '_method'), 'c')
})

test('property: the helpers never throw, and the parameter is gone afterwards', async (t) => {
  const piece = fc.constantFrom('a', '_method', '%5F', '=', '&', '%', '+', 'x', 'PUT', '%2')
  const query = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''))
  fc.assert(
    fc.property(query, (q) => {
      const values = queryValues(q, '_method')
      const rest = withoutQueryParam(q, '_method')
      return (
        Array.isArray(values) &&
        queryValues(rest, '_method').length === 0 &&
        rest.length <= q.length &&
        withoutQueryParam(rest, '_method') === rest
      )
    }),
  )
  t.pass('property held')
})
