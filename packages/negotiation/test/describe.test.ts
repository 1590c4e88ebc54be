import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { negotiation } from '../src/index.js'

const context = (config?: object, methods = ['GET']) => ({
  route: { method: methods, url: '/x', handler: async () => null },
  instance: {} as FastifyInstance,
  methods,
  config,
  name: `${methods.join(',')} /x`,
})

const says = (config?: object, raw: object = {}, methods = ['GET']) =>
  negotiation.describe?.(
    context(config, methods) as never,
    {
      options: negotiation.options(raw as never),
    } as never,
  )

const names = (said: ReturnType<typeof says>) =>
  said?.statusHeaders?.map(([status, headers]) => [status, headers.map(([name]) => name)])

test('describe: 406 with Accept, Accept-Query on a QUERY 415, Content-Language with languages', async (t) => {
  const plain = says()
  t.same(
    plain?.responses?.map(([status]) => status),
    [406],
  )
  t.same(
    plain?.responses?.[0]?.[2]?.headers?.map(([name]) => name),
    ['Accept'],
  )
  t.same(names(plain), [], 'no language: no Content-Language')
  t.same(names(says(undefined, {}, ['QUERY'])), [[415, ['Accept-Query']]])
  t.same(names(says(undefined, { languages: ['en', 'fr'] })), [['success', ['Content-Language']]])
  t.same(names(says({ languages: ['en'] })), [['success', ['Content-Language']]], "the route's own")
})
