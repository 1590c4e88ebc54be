import { isConvention, mergeContributions } from '@restwell/core/internal'
import { test } from 'tap'
import { errors } from '../src/index.js'

const contributions = (raw: Parameters<typeof errors.options>[0]) =>
  mergeContributions([{ convention: errors, options: errors.options(raw) }])

test('the errors convention: one request step; the request id header is read and exposed', async (t) => {
  t.ok(isConvention(errors))
  t.same(errors.phases, ['request'])
  t.same(contributions({}), {
    queryParameters: [],
    requestHeaders: ['x-request-id'],
    responseHeaders: ['x-request-id', 'retry-after'],
  })
  t.same(contributions({ requestIdHeader: 'X-Correlation-Id' }), {
    queryParameters: [],
    requestHeaders: ['x-correlation-id'],
    responseHeaders: ['x-correlation-id', 'retry-after'],
  })
  t.same(contributions({ requestIdHeader: false }), {
    queryParameters: [],
    requestHeaders: [],
    responseHeaders: ['retry-after'],
  })
  t.throws(() => errors.options({ format: 'xml' } as never), { code: 'RESTWELL_INVALID_OPTION' })
})
