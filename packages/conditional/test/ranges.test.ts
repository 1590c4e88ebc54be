import { ErrorCode, restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'
import type { ConditionalOptions } from '../src/index.js'

const BODY = 'abcdefghijklmnopqrstuvwxyz0123456789' // 36 bytes
const OLD = 'Wed, 01 May 2024 10:00:00 GMT'

async function build(options: ConditionalOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional, options)
  app.get('/file', async (_req, reply) => reply.type('text/plain').send(BODY))
  app.get('/bin', async (_req, reply) =>
    reply.type('application/octet-stream').send(Buffer.from(BODY)),
  )
  app.get('/dated', async (_req, reply) => reply.lastModified(OLD).type('text/plain').send(BODY))
  app.get('/fresh', async (_req, reply) =>
    reply.lastModified(new Date()).type('text/plain').send(BODY),
  )
  app.get('/empty', async (_req, reply) => reply.type('text/plain').send(''))
  app.get('/no-ranges', { config: { conditional: { ranges: false } } }, async () => BODY)
  app.get('/json', async () => ({ body: BODY }))
  return app
}

test('single ranges: first-last, first-, -suffix → 206 + Content-Range', async (t) => {
  const app = await build()
  const full = await app.inject('/file')
  t.equal(full.headers['accept-ranges'], 'bytes')
  const cases: [string, string, string][] = [
    ['bytes=0-4', 'abcde', 'bytes 0-4/36'],
    ['bytes=30-', '456789', 'bytes 30-35/36'],
    ['bytes=-3', '789', 'bytes 33-35/36'],
    ['bytes=34-100', '89', 'bytes 34-35/36'],
    ['bytes=-100', BODY, 'bytes 0-35/36'],
    ['BYTES = 1-1', 'b', 'bytes 1-1/36'],
  ]
  for (const [range, body, contentRange] of cases) {
    const res = await app.inject({ url: '/file', headers: { range } })
    t.equal(res.statusCode, 206, range)
    t.equal(res.body, body, range)
    t.equal(res.headers['content-range'], contentRange, range)
    t.equal(res.headers['content-length'], String(Buffer.byteLength(body)))
    t.equal(res.headers.etag, full.headers.etag, 'a 206 carries the full representation’s ETag')
    t.equal(res.headers['accept-ranges'], 'bytes')
  }
  const bin = await app.inject({ url: '/bin', headers: { range: 'bytes=2-3' } })
  t.equal(bin.body, 'cd')
})

test('unsatisfiable → 416 with Content-Range: bytes */<total> in the error form', async (t) => {
  const app = await build()
  for (const range of ['bytes=36-', 'bytes=100-200', 'bytes=-0', 'bytes=40-50, 60-']) {
    const res = await app.inject({ url: '/file', headers: { range } })
    t.equal(res.statusCode, 416, range)
    t.equal(res.headers['content-range'], 'bytes */36')
    t.equal(res.json().error.code, ErrorCode.RANGE_NOT_SATISFIABLE)
    t.equal(res.headers.etag, undefined)
  }
})

test('invalid Range headers are ignored: 200 with the whole body', async (t) => {
  const app = await build()
  for (const range of ['bytes=5-1', 'items=0-1', 'bytes=a-b', 'bytes=', 'bytes=1', '0-1']) {
    const res = await app.inject({ url: '/file', headers: { range } })
    t.equal(res.statusCode, 200, range)
    t.equal(res.body, BODY)
  }
  const empty = await app.inject({ url: '/empty', headers: { range: 'bytes=0-1' } })
  t.equal(empty.statusCode, 200, 'an empty body is sent whole')
  const off = await app.inject({ url: '/no-ranges', headers: { range: 'bytes=0-1' } })
  t.equal(off.statusCode, 200)
  t.equal(off.headers['accept-ranges'], undefined)
})

test('multiple ranges → multipart/byteranges; overlapping and adjacent ranges merged', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/file', headers: { range: 'bytes=0-1, 10-11' } })
  t.equal(res.statusCode, 206)
  const type = res.headers['content-type'] as string
  const boundary = /^multipart\/byteranges; boundary=([0-9a-f]{24})$/.exec(type)?.[1]
  t.ok(boundary, type)
  t.equal(res.headers['content-range'], undefined)
  t.equal(
    res.body,
    `--${boundary}\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/36\r\n\r\nab\r\n` +
      `--${boundary}\r\nContent-Type: text/plain\r\nContent-Range: bytes 10-11/36\r\n\r\nkl\r\n` +
      `--${boundary}--\r\n`,
  )
  const merged = await app.inject({ url: '/file', headers: { range: 'bytes=5-9, 0-3, 2-6, -1' } })
  t.equal(merged.statusCode, 206)
  const parts = merged.body
    .split('Content-Range: ')
    .slice(1)
    .map((p) => p.split('\r\n')[0])
  t.same(parts, ['bytes 0-9/36', 'bytes 35-35/36'], 'sorted and coalesced')
  const one = await app.inject({ url: '/file', headers: { range: 'bytes=0-3,4-7' } })
  t.equal(one.headers['content-range'], 'bytes 0-7/36', 'adjacent ranges become one part')
  const bin = await app.inject({ url: '/bin', headers: { range: 'bytes=0-0,-1' } })
  t.match(bin.body, 'Content-Type: application/octet-stream')
})

test('more than maxRanges range-specs are ignored (200), so a header cannot amplify', async (t) => {
  const app = await build({ maxRanges: 2 })
  const two = await app.inject({ url: '/file', headers: { range: 'bytes=0-0,2-2' } })
  t.equal(two.statusCode, 206)
  const three = await app.inject({ url: '/file', headers: { range: 'bytes=0-0,2-2,4-4' } })
  t.equal(three.statusCode, 200)
  t.equal(three.body, BODY)
})

test('If-Range: a matching strong ETag or strong date applies the range, else 200', async (t) => {
  const app = await build()
  const etag = (await app.inject('/file')).headers.etag as string
  const match = await app.inject({
    url: '/file',
    headers: { range: 'bytes=0-0', 'if-range': etag },
  })
  t.equal(match.statusCode, 206)
  const other = await app.inject({
    url: '/file',
    headers: { range: 'bytes=0-0', 'if-range': '"x"' },
  })
  t.equal(other.statusCode, 200)
  const weak = await app.inject({
    url: '/file',
    headers: { range: 'bytes=0-0', 'if-range': `W/${etag}` },
  })
  t.equal(weak.statusCode, 200, 'If-Range uses the strong comparison')
  const gz = await app.inject({
    url: '/file',
    headers: { range: 'bytes=0-0', 'if-range': `${etag.slice(0, -1)}-gzip"` },
  })
  t.equal(gz.statusCode, 200, 'the tag of a gzip copy does not name the identity bytes')
  const date = await app.inject({ url: '/dated', headers: { range: 'bytes=0-0', 'if-range': OLD } })
  t.equal(date.statusCode, 206)
  const otherDate = await app.inject({
    url: '/dated',
    headers: { range: 'bytes=0-0', 'if-range': 'Thu, 02 May 2024 10:00:00 GMT' },
  })
  t.equal(otherDate.statusCode, 200)
  const fresh = await app.inject('/fresh')
  const weakDate = await app.inject({
    url: '/fresh',
    headers: { range: 'bytes=0-0', 'if-range': fresh.headers['last-modified'] as string },
  })
  t.equal(weakDate.statusCode, 200, 'a Last-Modified less than a second old is weak')
  const junk = await app.inject({
    url: '/dated',
    headers: { range: 'bytes=0-0', 'if-range': 'junk' },
  })
  t.equal(junk.statusCode, 200)
  const noDate = await app.inject({
    url: '/file',
    headers: { range: 'bytes=0-0', 'if-range': OLD },
  })
  t.equal(noDate.statusCode, 200, 'a date cannot match a representation without Last-Modified')
})

test('§13.2.2 order: If-None-Match before Range; If-Match failure before Range', async (t) => {
  const app = await build()
  const etag = (await app.inject('/file')).headers.etag as string
  const nm = await app.inject({
    url: '/file',
    headers: { range: 'bytes=0-0', 'if-none-match': etag },
  })
  t.equal(nm.statusCode, 304)
  t.equal(nm.headers['content-range'], undefined)
  const im = await app.inject({ url: '/file', headers: { range: 'bytes=0-0', 'if-match': '"x"' } })
  t.equal(im.statusCode, 412)
  const ok = await app.inject({ url: '/file', headers: { range: 'bytes=0-0', 'if-match': etag } })
  t.equal(ok.statusCode, 206)
  const json = await app.inject({ url: '/json', headers: { range: 'bytes=0-0' } })
  t.equal(json.statusCode, 206, 'a serialized object is a byte body too')
  t.equal(json.body, '{')
})
