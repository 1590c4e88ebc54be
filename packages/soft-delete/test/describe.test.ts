import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { softDelete } from '../src/index.js'

const context = (methods: string[], config?: object, routeConfig?: object) => ({
  route: { method: methods, url: '/x', handler: async () => null, config: routeConfig },
  instance: {} as FastifyInstance,
  methods,
  config,
  name: `${methods.join(',')} /x`,
})

test('describe: 410 on a read of one item with gone', async (t) => {
  const gone = softDelete.options({ gone: true })
  const said = softDelete.describe?.(context(['GET'], {}) as never, gone)
  t.same(
    said?.responses?.map(([status]) => status),
    [410],
  )
  t.ok(softDelete.describe?.(context(['HEAD'], {}) as never, gone), 'HEAD too')
  const none = (methods: string[], config?: object, routeConfig?: object, options = gone) =>
    softDelete.describe?.(context(methods, config, routeConfig) as never, options)
  t.equal(none(['GET']), undefined, 'a route that does not ask')
  t.equal(none(['DELETE'], {}), undefined, 'not a read')
  t.equal(none(['GET'], {}, { pagination: true }), undefined, 'a collection')
  t.ok(none(['GET'], {}, { pagination: false }), 'pagination off: one item')
  t.equal(none(['GET'], { gone: false }), undefined, 'gone off on the route')
  t.equal(none(['GET'], {}, {}, softDelete.options({})), undefined, 'gone off by default')
  t.ok(none(['GET'], { gone: true }, {}, softDelete.options({})), 'gone on the route')
})
