import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { auth } from '../src/index.js'

const context = (config?: object) => ({
  route: { method: 'GET', url: '/x', handler: async () => null },
  instance: {} as FastifyInstance,
  methods: ['GET'],
  config,
  name: 'GET /x',
})

test('describe: 401 with the challenge and 403 on a protected route only', async (t) => {
  const verify = async () => ({ id: 1 })
  const byDefault = auth.options({ verify })
  const said = auth.describe?.(context() as never, byDefault as never)
  t.same(
    said?.responses?.map(([status]) => status),
    [401, 403],
  )
  t.same(
    said?.responses?.[0]?.[2]?.headers?.map(([name]) => name),
    ['WWW-Authenticate'],
  )
  const open = auth.options({ verify, defaultProtected: false })
  t.equal(auth.describe?.(context() as never, open as never), undefined, 'a public route')
  t.ok(auth.describe?.(context({ scopes: ['read'] }) as never, open as never), 'one that asks')
})
