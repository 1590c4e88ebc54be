import type { RouteEntry, SendStep } from '@restwell/core'
import {
  addRouteHook,
  bodilessHead,
  markNotModified,
  notModifiedHeaders,
  REMOVED_ON_304,
  sendHook,
} from '@restwell/core/internal'
import { test } from 'tap'
import { app } from './helpers.js'

test('sendHook runs its steps in order; undefined keeps the payload, a value replaces it', async (t) => {
  const fastify = app()
  const order: string[] = []
  const step =
    (name: string, out?: unknown): SendStep =>
    (_request, _reply, payload) => {
      order.push(`${name}:${String(payload)}`)
      return out
    }
  const hook = sendHook('named', [step('a'), step('b', 'two'), step('c')])
  t.equal(hook.name, 'named', 'the name printRoutes shows')
  fastify.get('/x', { onSend: hook }, async () => 'one')
  const res = await fastify.inject('/x')
  t.equal(res.body, 'two')
  t.same(order, ['a:one', 'b:one', 'c:two'])
})

for (const [how, refuse] of [
  [
    'throws',
    () => {
      throw Object.assign(new Error('refused'), { statusCode: 412 })
    },
  ],
  ['returns', () => Object.assign(new Error('refused'), { statusCode: 412 })],
] as const) {
  test(`a step that ${how} an error ends the run with that error`, async (t) => {
    const fastify = app()
    const after: string[] = []
    fastify.get(
      '/x',
      { onSend: sendHook('s', [refuse as SendStep, () => void after.push('ran')]) },
      async () => 'ok',
    )
    const res = await fastify.inject('/x')
    t.equal(res.statusCode, 412)
    t.match(res.json(), { message: 'refused' })
    t.same(after, [], 'the steps after it did not run on the 200')
  })
}

test('addRouteHook adds last or first, whatever the route had', async (t) => {
  const route = { method: 'GET', url: '/' } as RouteEntry
  const a = () => undefined
  const b = () => undefined
  const c = () => undefined
  addRouteHook(route, 'onSend', a)
  t.same(route.onSend, [a])
  addRouteHook(route, 'onSend', b)
  addRouteHook(route, 'onSend', c, 'first')
  t.same(route.onSend, [c, a, b])
  const single = { method: 'GET', url: '/', preHandler: a } as unknown as RouteEntry
  addRouteHook(single, 'preHandler', b)
  t.same(single.preHandler, [a, b], 'a single function becomes a list')
})

test('notModifiedHeaders: a 304 loses its representation metadata, and keeps the rest', async (t) => {
  const fastify = app()
  fastify.get('/x', { onSend: sendHook('s', [notModifiedHeaders]) }, async (request, reply) => {
    reply.code(request.headers['x-status'] === '304' ? 304 : 200)
    for (const name of REMOVED_ON_304) reply.header(name, 'x')
    reply.header('content-type', 'text/plain').header('etag', '"a"').header('vary', 'Accept')
    reply.header('cache-control', 'no-cache').header('x-request-id', 'r1')
    return ''
  })
  const notModified = await fastify.inject({ url: '/x', headers: { 'x-status': '304' } })
  t.equal(notModified.statusCode, 304)
  for (const name of REMOVED_ON_304) {
    if (name !== 'content-length') t.equal(notModified.headers[name], undefined, name)
  }
  t.match(notModified.headers, {
    etag: '"a"',
    vary: 'Accept',
    'cache-control': 'no-cache',
    'x-request-id': 'r1',
  })
  const ok = await fastify.inject('/x')
  t.equal(ok.headers['content-language'], 'x', 'a 200 keeps them')
})

test('notModifiedHeaders: a header set on the raw response goes too; an absent one is no error', async (t) => {
  const fastify = app()
  fastify.get('/x', { onSend: sendHook('s', [notModifiedHeaders]) }, async (_request, reply) => {
    reply.raw.setHeader('content-disposition', 'inline')
    return reply.code(304).header('etag', '"a"').send()
  })
  const res = await fastify.inject('/x')
  t.equal(res.statusCode, 304)
  t.equal(res.headers['content-disposition'], undefined)
  t.equal(res.headers['content-language'], undefined)
  t.equal(res.headers.etag, '"a"')
})

test('bodilessHead: HEAD of a 204 or 304 has no Content-Length; other answers keep theirs', async (t) => {
  const fastify = app()
  fastify.get('/x', { onSend: sendHook('s', [bodilessHead]) }, async (request, reply) =>
    reply.code(Number(request.headers['x-status'] ?? 200)).send('body'),
  )
  for (const status of [204, 304]) {
    const head = await fastify.inject({
      method: 'HEAD',
      url: '/x',
      headers: { 'x-status': String(status) },
    })
    t.equal(head.statusCode, status)
    t.equal(head.headers['content-length'], undefined, `HEAD ${status}`)
    t.equal(head.body, '')
  }
  const head = await fastify.inject({ method: 'HEAD', url: '/x' })
  t.equal(head.headers['content-length'], '4', 'a 200 is sized as GET')
  const get = await fastify.inject({ url: '/x', headers: { 'x-status': '204' } })
  t.equal(get.statusCode, 204, 'GET is left to Fastify')
})

test('sendHook: the steps it is told a 304 skips run on any other answer, and not once it is a 304', async (t) => {
  const fastify = app()
  const ran: string[] = []
  const mark =
    (name: string): SendStep =>
    () => {
      ran.push(name)
      return undefined
    }
  const bodyOnly = mark('body')
  const turn: SendStep = (request, reply) => {
    ran.push('turn')
    if (request.headers['x-turn'] !== undefined) reply.code(304)
    return undefined
  }
  const steps = [mark('first'), bodyOnly, turn, bodyOnly, mark('last')]
  fastify.get(
    '/x',
    { onSend: sendHook('s', steps, new Set([bodyOnly])) },
    async (request, reply) => {
      if (request.headers['x-early'] !== undefined) reply.code(304)
      return ''
    },
  )
  await fastify.inject('/x')
  t.same(ran, ['first', 'body', 'turn', 'body', 'last'], 'a 200: every step')
  ran.length = 0
  await fastify.inject({ url: '/x', headers: { 'x-turn': '1' } })
  t.same(ran, ['first', 'body', 'turn', 'last'], 'made a 304 on the way: the later ones skipped')
  ran.length = 0
  await fastify.inject({ url: '/x', headers: { 'x-early': '1' } })
  t.same(ran, ['first', 'turn', 'last'], 'a 304 already: skipped from the start')
})

test('sendHook: a 200 decided to be a 304 (markNotModified) skips them too, unless it became an error', async (t) => {
  const fastify = app()
  const ran: string[] = []
  const bodyOnly: SendStep = () => {
    ran.push('body')
    return undefined
  }
  const after: SendStep = () => {
    ran.push('after')
    return undefined
  }
  fastify.get(
    '/x',
    { onSend: sendHook('s', [bodyOnly, after], new Set([bodyOnly])) },
    async (request, reply) => {
      markNotModified(reply)
      if (request.headers['x-fail'] !== undefined) reply.code(500)
      return ''
    },
  )
  await fastify.inject('/x')
  t.same(ran, ['after'], 'marked, still a 200: skipped')
  ran.length = 0
  await fastify.inject({ url: '/x', headers: { 'x-fail': '1' } })
  t.same(ran, ['body', 'after'], 'marked, then an error: every step')
})
