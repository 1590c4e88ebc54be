/** A streamed body answered 304 or 412 is released (destroyed or cancelled), never left open. */
import { Readable, Writable } from 'node:stream'
import { ReadableStream } from 'node:stream/web'
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

interface Built {
  app: FastifyInstance
  /** The bodies the handlers returned, in order. */
  bodies: unknown[]
  logs: Array<{ level: number; msg: string }>
}

async function build(make: () => unknown): Promise<Built> {
  const bodies: unknown[] = []
  const logs: Array<{ level: number; msg: string }> = []
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(JSON.parse(String(chunk)))
      callback()
    },
  })
  const app = Fastify({ logger: { level: 'warn', stream } })
  await app.register(restwellErrors)
  await app.register(restwellConditional)
  app.get('/body', async (_req, reply) => {
    const body = make()
    bodies.push(body)
    reply.type('text/plain').etag('v1')
    return reply.send(body)
  })
  return { app, bodies, logs }
}

for (const [label, headers, status] of [
  ['304 (If-None-Match)', { 'if-none-match': '"v1"' }, 304],
  ['412 (If-Match)', { 'if-match': '"v0"' }, 412],
] as const) {
  test(`a Node stream answered ${label} is destroyed`, async (t) => {
    const { app, bodies } = await build(() => Readable.from(['a', 'b']))
    const res = await app.inject({ url: '/body', headers })
    t.equal(res.statusCode, status)
    const head = await app.inject({ method: 'HEAD', url: '/body', headers })
    t.equal(head.statusCode, status)
    t.equal(bodies.length, 2)
    for (const body of bodies) t.ok((body as Readable).destroyed, 'destroyed')
  })

  test(`a web stream answered ${label} is cancelled`, async (t) => {
    let cancelled = 0
    const { app } = await build(
      () =>
        new ReadableStream({
          cancel() {
            cancelled++
          },
        }),
    )
    const res = await app.inject({ url: '/body', headers })
    t.equal(res.statusCode, status)
    await tick()
    t.equal(cancelled, 1)
  })

  test(`a Response's body answered ${label} is cancelled`, async (t) => {
    let cancelled = 0
    const { app } = await build(
      () =>
        new Response(
          new ReadableStream({
            cancel() {
              cancelled++
            },
          }) as unknown as ConstructorParameters<typeof Response>[0],
        ),
    )
    const res = await app.inject({ url: '/body', headers })
    t.equal(res.statusCode, status)
    await tick()
    t.equal(cancelled, 1)
  })
}

test('a stream still read on 200 is not touched; a Response without a body is fine', async (t) => {
  const { app, bodies } = await build(() => Readable.from(['a', 'b']))
  const res = await app.inject('/body')
  t.equal(res.statusCode, 200)
  t.equal(res.body, 'ab')
  const empty = await build(() => new Response(null))
  const nm = await empty.app.inject({ url: '/body', headers: { 'if-none-match': '"v1"' } })
  t.equal(nm.statusCode, 304)
  t.equal(bodies.length, 1)
})

test('an error a discarded stream raises while torn down is logged, not thrown', async (t) => {
  const { app, logs } = await build(
    () =>
      new Readable({
        read() {},
        destroy(_error, callback) {
          callback(new Error('close failed'))
        },
      }),
  )
  const res = await app.inject({ url: '/body', headers: { 'if-none-match': '"v1"' } })
  t.equal(res.statusCode, 304)
  const web = await build(
    () =>
      new ReadableStream({
        cancel() {
          throw new Error('cancel failed')
        },
      }),
  )
  const cancelled = await web.app.inject({ url: '/body', headers: { 'if-match': '"v0"' } })
  t.equal(cancelled.statusCode, 412)
  await tick()
  await tick()
  t.match(logs, [{ level: 40, msg: /discarded response stream/ }])
  t.match(web.logs, [{ level: 40, msg: /discarded response stream/ }])
})
