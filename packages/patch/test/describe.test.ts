import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { patch } from '../src/index.js'

const context = (methods: string[], config?: object) => ({
  route: { method: methods, url: '/x', handler: async () => null },
  instance: {} as FastifyInstance,
  methods,
  config,
  name: `${methods.join(',')} /x`,
})

test('describe: 409 and 422 on a patch route, Accept-Patch on its 405 and 415 when it opts in', async (t) => {
  const every = { options: patch.options({}) } as never
  const byMethod = patch.describe?.(context(['PATCH']) as never, every)
  t.same(
    byMethod?.responses?.map(([status]) => status),
    [409, 422],
  )
  t.notOk(byMethod?.statusHeaders, 'Accept-Patch only where the route sets config.patch')
  const opted = patch.describe?.(context(['POST'], {}) as never, every)
  t.same(
    opted?.statusHeaders?.map(([status, headers]) => [status, headers[0]?.[0]]),
    [
      [405, 'Accept-Patch'],
      [415, 'Accept-Patch'],
    ],
  )
  t.equal(patch.describe?.(context(['PUT']) as never, every), undefined, 'not a patch route')
  const some = { options: patch.options({ everyPatchRoute: false }) } as never
  t.equal(patch.describe?.(context(['PATCH']) as never, some), undefined, 'not taken')
})
