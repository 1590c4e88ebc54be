import { isConvention, mergeContributions } from '@restwell/core/internal'
import { test } from 'tap'
import { jobs } from '../src/index.js'

test('the jobs convention: no step of a request; Location and Retry-After are exposed', async (t) => {
  t.ok(isConvention(jobs))
  t.same(jobs.phases, [], 'routes and decorators only: it may come after the umbrella')
  t.same(mergeContributions([{ convention: jobs, options: jobs.options({}) }]), {
    queryParameters: [],
    requestHeaders: [],
    responseHeaders: ['location', 'retry-after'],
  })
})
