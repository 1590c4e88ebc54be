/** The coding an `Accept-Encoding` prefers (RFC 9110 §12.5.3); `*` stands for the codings not named. */
import { request } from 'node:http'
import { acceptsCoding } from '@restwell/conditional'
import fc from 'fast-check'
import Fastify from 'fastify'
import { test } from 'tap'
import { preferredCoding, restwellCompress } from '../src/index.js'

const OFFERED = ['gzip', 'br', 'deflate'] as const

test('preferredCoding: * becomes the offered codings not named, with its weight', async (t) => {
  t.equal(preferredCoding('gzip;q=0, *', OFFERED), 'br')
  t.equal(preferredCoding('*;q=0.5, gzip;q=0', OFFERED), 'br')
  t.equal(preferredCoding('GZIP;q=0, br;q=0,*', OFFERED), 'deflate')
  t.equal(preferredCoding('x-gzip;q=0, *', OFFERED), 'br', 'x-gzip is gzip')
  t.equal(preferredCoding('gzip, br, deflate, *;q=0', OFFERED), 'gzip', 'nothing left to *')
  t.equal(preferredCoding('br;q=0.5, *', OFFERED), 'gzip', '* weighs more than a named coding')
  t.equal(preferredCoding('*', OFFERED), 'gzip', 'no preference: the server order')
  t.equal(preferredCoding('*, *;q=0', OFFERED), 'gzip', 'the first * decides')
  t.equal(preferredCoding(' * ; q=0 ', ['gzip']), null)
  t.equal(preferredCoding('gzip;q=0, br;q=0, deflate;q=0, *', OFFERED), null, 'identity')
  t.equal(preferredCoding('', OFFERED), null)
  t.equal(preferredCoding('identity', OFFERED), null)
  t.equal(preferredCoding('deflate;q=0.5, br;q=0.8', OFFERED), 'br', 'the highest weight')
  t.equal(preferredCoding('deflate, br', OFFERED), 'br', 'ties: the server order')
  t.equal(
    preferredCoding('gzip;q=0, gzip', OFFERED),
    'gzip',
    'a coding named twice: its best weight',
  )
})

/** The weight a member list gives `coding`: its best named weight, else the first `*`'s, else 0. */
function weightOf(members: readonly string[], coding: string): number {
  const q = (member: string) => {
    const param = member.split(';')[1]
    return param === undefined ? 1 : Number(param.trim().slice(2))
  }
  const named = members.filter((m) => m.split(';')[0]!.trim().toLowerCase() === coding)
  if (named.length > 0) return Math.max(...named.map(q))
  const wildcard = members.find((m) => m.startsWith('*'))
  return wildcard === undefined ? 0 : q(wildcard)
}

test('preferredCoding: the offered coding of the highest weight, the first offered among equals', async (t) => {
  const coding = fc.constantFrom('gzip', 'GZip', 'br', 'deflate', 'identity', 'zstd')
  const q = fc.constantFrom('0', '0.5', '1')
  const member = fc.oneof(
    fc.tuple(coding, q).map(([c, w]) => `${c};q=${w}`),
    q.map((w) => `*;q=${w}`),
  )
  fc.assert(
    fc.property(fc.array(member, { minLength: 1, maxLength: 6 }), (members) => {
      const weights = OFFERED.map((c) => weightOf(members, c))
      const best = Math.max(...weights)
      const want = best === 0 ? null : OFFERED[weights.indexOf(best)]
      return preferredCoding(members.join(', '), OFFERED) === want
    }),
    { numRuns: 500 },
  )
  t.pass('property held')
})

test('preferredCoding reads Accept-Encoding as @restwell/conditional does: a malformed member is skipped', async (t) => {
  for (const header of ['gzip;q=2', 'gzip;q=abc', 'gzip;q=0.5, br;q=x', 'gzip;', 'gzip ; q=1']) {
    const chosen = preferredCoding(header, ['gzip'])
    t.equal(chosen === 'gzip', acceptsCoding(header, 'gzip'), header)
  }
  t.equal(preferredCoding('gzip;q=2', OFFERED), null, 'a weight above 1 is no weight')
})

test('preferredCoding never throws, whatever the field holds', async (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (header) => {
      const chosen = preferredCoding(header, OFFERED)
      return chosen === null || OFFERED.includes(chosen)
    }),
    { numRuns: 1000 },
  )
  t.pass('property held')
})

test('over a socket: gzip;q=0, * is never answered in gzip', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwellCompress)
  const big = { text: 'restwell '.repeat(400) }
  app.get('/big', async () => big)
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
