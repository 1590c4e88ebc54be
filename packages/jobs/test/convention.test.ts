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

test('describe: the job on its status route, 303 to the result, 409 from the result route', async (t) => {
  const instance = { jobs: { statusUrl: (id: string) => `/api/tasks/${id}` } }
  const say = (url: string) =>
    jobs.describe?.(
      { route: { url }, instance, methods: ['GET'], config: undefined, name: url } as never,
      {} as never,
    )
  const status = say('/api/tasks/:id')?.responses ?? []
  t.same(
    status.map(([code]) => code),
    [200, 303],
  )
  const job = status[0]?.[2]?.content as { properties: Record<string, unknown> }
  t.same(Object.keys(job.properties), [
    'jobId',
    'status',
    'estimatedTime',
    'createdAt',
    'updatedAt',
    'progress',
    'error',
  ])
  t.same(status[1]?.[2]?.headers, [['Location', 'The result']])
  t.equal(status[1]?.[2]?.content, job, 'the job in the 303 too')
  const result = say('/api/tasks/:id/result')?.responses ?? []
  t.same(
    result.map(([code]) => code),
    [303, 409],
  )
  t.equal(result[0]?.[2]?.content, undefined, 'a 303 of the result has no body')
  t.equal(say('/api/books/:id'), undefined, 'a route of the app')
  t.equal(say('/tasks/:id'), undefined, 'the prefix is part of the path')
})
