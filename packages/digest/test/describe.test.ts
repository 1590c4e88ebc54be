import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { digest } from '../src/index.js'

const context = (
  methods: string[],
  config?: { repr?: boolean; content?: boolean; verify?: boolean },
) => ({
  route: { method: methods, url: '/books', handler: async () => null },
  instance: {} as FastifyInstance,
  methods,
  config,
  name: `${methods.join(',')} /books`,
})

test('describe: what a route says in OpenAPI', async (t) => {
  const settings = digest.options({})
  const read = digest.describe?.(context(['GET', 'HEAD']) as never, settings)
  t.same(
    read?.requestHeaders?.map(([name]) => name),
    ['Want-Repr-Digest', 'Want-Content-Digest'],
    'a read: the preferences only',
  )
  t.same(read?.responseHeaders, [])
  t.equal(read?.responses, undefined)
  const write = digest.describe?.(
    context(['POST'], { repr: true, content: true }) as never,
    settings,
  )
  t.same(
    write?.requestHeaders?.map(([name]) => name),
    ['Want-Repr-Digest', 'Want-Content-Digest', 'Content-Digest', 'Repr-Digest'],
  )
  t.same(
    write?.responseHeaders?.map(([name]) => name),
    ['Repr-Digest', 'Content-Digest'],
  )
  t.same(
    write?.responses?.map(([status]) => status),
    [400],
  )
  const unchecked = digest.describe?.(context(['PUT'], { verify: false }) as never, settings)
  t.equal(unchecked?.responses, undefined, 'verify: false checks nothing')
})

test('contributes: the four fields, for CORS to allow and expose', async (t) => {
  const fields = ['content-digest', 'repr-digest', 'want-content-digest', 'want-repr-digest']
  t.same(digest.contributes?.(digest.options({})), {
    requestHeaders: fields,
    responseHeaders: fields,
  })
})
