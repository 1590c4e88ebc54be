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

test('describe: the Bearer scheme and the scopes the route requires, its own or the default ones', async (t) => {
  const verify = async () => ({ id: 1 })
  const scheme = { type: 'http', scheme: 'bearer', description: 'RFC 6750 Bearer token' }
  const bare = auth.options({ verify })
  t.same(auth.describe?.(context() as never, bare as never)?.security, {
    name: 'bearerAuth',
    scheme,
    scopes: [],
  })
  const reading = auth.options({ verify, requirement: { scopes: ['read'] } })
  t.same(
    auth.describe?.(context() as never, reading as never)?.security?.scopes,
    ['read'],
    'a route without config.auth requires the default requirement, its scopes too',
  )
  t.same(auth.describe?.(context(true as never) as never, reading as never)?.security?.scopes, [
    'read',
  ])
  t.same(
    auth.describe?.(context({ scopes: ['write'] }) as never, reading as never)?.security?.scopes,
    ['write'],
    "the route's own scopes",
  )
})
