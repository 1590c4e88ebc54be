import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { prefer } from '../src/index.js'

const context = (methods: string[], config?: object) => ({
  route: { method: methods, url: '/x', handler: async () => null },
  instance: {} as FastifyInstance,
  methods,
  config,
  name: `${methods.join(',')} /x`,
})

test('describe: Prefer and Preference-Applied, and the statuses a preference may bring', async (t) => {
  const settings = { maxWait: 10, queryParameters: [], context: {} as never, asyncRoutes: [] }
  const write = prefer.describe?.(
    context(['POST'], { async: { job: 'x' } }) as never,
    settings as never,
  )
  t.same(
    write?.requestHeaders?.map(([name]) => name),
    ['Prefer'],
  )
  t.same(
    write?.responseHeaders?.map(([name]) => name),
    ['Preference-Applied'],
  )
  t.same(
    write?.responses?.map(([status]) => status),
    [202, 303, 204, 400],
  )
  const read = prefer.describe?.(context(['GET'], { handling: false }) as never, settings as never)
  t.same(read?.responses, [], 'a read without handling: no status of its own')
  t.same(prefer.contributes?.(prefer.options({})), {
    requestHeaders: ['prefer'],
    responseHeaders: ['preference-applied'],
  })
})
