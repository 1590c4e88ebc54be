import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { negotiation } from '../src/index.js'

const context = (config?: object) => ({
  route: { method: 'GET', url: '/x', handler: async () => null },
  instance: {} as FastifyInstance,
  methods: ['GET'],
  config,
  name: 'GET /x',
})

const says = (config?: object, raw: object = {}) =>
  negotiation.describe?.(
    context(config) as never,
    {
      options: negotiation.options(raw as never),
    } as never,
  )

test('describe: 406 with Accept; Content-Language on successes where languages are served', async (t) => {
  const plain = says()
  t.same(
    plain?.responses?.map(([status]) => status),
    [406],
  )
  t.same(
    plain?.responses?.[0]?.[2]?.headers?.map(([name]) => name),
    ['Accept'],
  )
  t.notOk(plain?.statusHeaders, 'no language: no Content-Language')
  const app = says(undefined, { languages: ['en', 'fr'] })
  t.same(
    app?.statusHeaders?.map(([status, headers]) => [status, headers[0]?.[0]]),
    [['success', 'Content-Language']],
  )
  t.ok(says({ languages: ['en'] })?.statusHeaders, "the route's own languages")
})
