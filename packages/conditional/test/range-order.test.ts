/**
 * The parts of a multipart/byteranges 206 follow the order of the Range header (RFC 9110
 * §15.3.7.2), after overlapping or adjacent ranges are coalesced (§14.2): a coalesced part
 * takes the place of its earliest member.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { FULL_REPRESENTATION } from '@restwell/core/internal'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'

const BODY = Buffer.from(Array.from({ length: 1000 }, (_, i) => 65 + (i % 26)))

async function build(): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellConditional)
  app.get('/file', async (_req, reply) => reply.type('application/octet-stream').send(BODY))
  return app
}

/** The Content-Range and the bytes of each part of a multipart/byteranges body. */
function partsOf(contentType: string, body: Buffer): Array<{ range: string; bytes: Buffer }> {
  const boundary = /boundary=([0-9a-f]+)$/.exec(contentType)?.[1] as string
  const text = body.toString('latin1')
  return text
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head = '', rest = ''] = part.split('\r\n\r\n')
      const range = /Content-Range: (.*)/.exec(head)?.[1] as string
      return { range, bytes: Buffer.from(rest.slice(0, -2), 'latin1') }
    })
}

test('bytes=500-599,0-99: the parts come in the order asked', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/file', headers: { range: 'bytes=500-599,0-99' } })
  t.equal(res.statusCode, 206)
  const parts = partsOf(res.headers['content-type'] as string, res.rawPayload)
  t.same(
    parts.map((p) => p.range),
    ['bytes 500-599/1000', 'bytes 0-99/1000'],
  )
  t.same(parts[0]?.bytes, BODY.subarray(500, 600))
  t.same(parts[1]?.bytes, BODY.subarray(0, 100))
})

test('coalesced ranges take the place of their earliest member', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/file',
    headers: { range: 'bytes=900-, 0-9, 10-19, -150, 400-409, 5-12' },
  })
  t.equal(res.statusCode, 206)
  const parts = partsOf(res.headers['content-type'] as string, res.rawPayload)
  t.same(
    parts.map((p) => p.range),
    ['bytes 850-999/1000', 'bytes 0-19/1000', 'bytes 400-409/1000'],
  )
  t.same(parts[0]?.bytes, BODY.subarray(850))
  t.same(parts[1]?.bytes, BODY.subarray(0, 20))
})

test('a 206 leaves the whole it was cut from for a later step (FULL_REPRESENTATION)', async (t) => {
  const app = await build()
  const seen: unknown[] = []
  app.addHook('onResponse', async (_request, reply) => {
    seen.push((reply as unknown as Record<symbol, unknown>)[FULL_REPRESENTATION])
  })
  const part = await app.inject({ url: '/file', headers: { range: 'bytes=0-99,500-599' } })
  t.equal(part.statusCode, 206)
  t.same(seen[0], BODY, 'the whole representation, not its parts')
  await app.inject('/file')
  t.equal(seen[1], undefined, 'a whole answer leaves nothing')
})
