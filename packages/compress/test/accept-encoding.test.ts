/** `*` in Accept-Encoding (RFC 9110 §12.5.3): it stands for the codings the header does not name. */
import { request } from 'node:http'
import fc from 'fast-check'
import Fastify from 'fastify'
import { test } from 'tap'
import { expandAcceptEncoding } from '../src/compression.js'
import restwell from '../src/index.js'

const OFFERED = ['gzip', 'br', 'deflate'] as const

test('expandAcceptEncoding: * becomes the offered codings not named, with its parameters', async (t) => {
  t.equal(expandAcceptEncoding('gzip;q=0, *', OFFERED), 'gzip;q=0, br, deflate')
  t.equal(expandAcceptEncoding('*;q=0.5, gzip;q=0', OFFERED), 'br;q=0.5, deflate;q=0.5, gzip;q=0')
  t.equal(expandAcceptEncoding('GZIP;q=0, br;q=0,*', OFFERED), 'GZIP;q=0, br;q=0, deflate')
  t.equal(
    expandAcceptEncoding('x-gzip;q=0, *', OFFERED),
    'x-gzip;q=0, br, deflate',
    'x-gzip is gzip',
  )
  t.equal(
    expandAcceptEncoding('gzip, br, deflate, *;q=0', OFFERED),
    'gzip, br, deflate',
    'nothing left',
  )
  t.equal(expandAcceptEncoding('*', OFFERED), 'gzip, br, deflate')
  t.equal(expandAcceptEncoding('*, *;q=0', OFFERED), 'gzip, br, deflate', 'the first * decides')
  t.equal(expandAcceptEncoding(' * ; q=0 ', ['gzip']), 'gzip; q=0')
})

/** The q a member list gives `coding` (0 when not named), as the negotiator reads it. */
function qualityOf(header: string, coding: string): number {
  for (const member of header.split(',')) {
    const [name, ...params] = member.split(';')
    if (name?.trim().toLowerCase() !== coding) continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return q === undefined ? 1 : Number(q.slice(2))
  }
  return 0
}

test('expandAcceptEncoding: a named coding keeps its weight, the others get the wildcard', async (t) => {
  const coding = fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'zstd')
  const q = fc.constantFrom('0', '0.5', '1')
  const member = fc.oneof(
    fc.tuple(coding, q).map(([c, w]) => `${c};q=${w}`),
    q.map((w) => `*;q=${w}`),
  )
  fc.assert(
    fc.property(fc.array(member, { minLength: 1, maxLength: 6 }), (members) => {
      const header = members.join(', ')
      const out = expandAcceptEncoding(header, OFFERED)
      if (out.includes('*')) return false
      const wildcard = members.find((m) => m.startsWith('*'))
      for (const c of OFFERED) {
        const explicit = members.find((m) => m.startsWith(`${c};`))
        const want = explicit ?? (wildcard === undefined ? undefined : `${c}${wildcard.slice(1)}`)
        if (qualityOf(out, c) !== (want === undefined ? 0 : qualityOf(want, c))) return false
      }
      return true
    }),
    { numRuns: 500 },
  )
  t.pass('property held')
})

test('over a socket: gzip;q=0, * is never answered in gzip', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwell, { rateLimit: false })
  const big = { text: 'restwell '.repeat(400) }
  app.get('/big', { config: { auth: false } }, async () => big)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const codingFor = (acceptEncoding: string) =>
    new Promise<string | undefined>((resolve, reject) => {
      const req = request(
        { port, host: '127.0.0.1', path: '/big', headers: { 'accept-encoding': acceptEncoding } },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.headers['content-encoding']))
        },
      )
      req.on('error', reject)
      req.end()
    })
  t.equal(await codingFor('gzip;q=0, *'), 'br', 'the next offered coding')
  t.equal(await codingFor('*;q=0.5, gzip;q=0'), 'br')
  t.equal(await codingFor('gzip;q=0, br;q=0, *'), 'deflate')
  t.equal(await codingFor('gzip;q=0, br;q=0, deflate;q=0, *'), undefined, 'identity')
  t.equal(await codingFor('*'), 'gzip', 'no preference: the server order')
  t.equal(await codingFor('gzip'), 'gzip')
})
