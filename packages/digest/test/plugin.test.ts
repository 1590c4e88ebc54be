import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { BODY_DIGESTS, FULL_REPRESENTATION } from '@restwell/core/internal'
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { type DigestOptions, restwellDigest } from '../src/index.js'

const sha256 = (bytes: string | Buffer): string =>
  createHash('sha256').update(bytes).digest('base64')
const sha512 = (bytes: string | Buffer): string =>
  createHash('sha512').update(bytes).digest('base64')
const field = (algorithm: string, digest: string): string => `${algorithm}=:${digest}:`

const BOOK = { id: 1, title: 'Dune' }
const BOOK_TEXT = JSON.stringify(BOOK)

async function build(options: DigestOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellDigest, options)
  app.get('/books/1', async () => BOOK)
  app.get('/always', { config: { digest: { repr: true, content: true } } }, async () => BOOK)
  app.get('/off', { config: { digest: false } }, async () => BOOK)
  app.post(
    '/books',
    { schema: { body: { type: 'object', properties: { title: { type: 'string' } } } } },
    async (request, reply) => reply.code(201).send({ id: 2, ...(request.body as object) }),
  )
  app.put('/unchecked', { config: { digest: { verify: false } } }, async () => ({ ok: true }))
  return app
}

test('Want-Repr-Digest and Want-Content-Digest ask for the fields, by preference (RFC 9530 §4)', async (t) => {
  const app = await build()
  const plain = await app.inject('/books/1')
  t.notOk(plain.headers['repr-digest'], 'not asked: not sent')
  t.notOk(plain.headers['content-digest'])
  const asked = await app.inject({
    url: '/books/1',
    headers: { 'want-repr-digest': 'sha-512=3, sha-256=10', 'want-content-digest': 'sha-512=1' },
  })
  t.equal(asked.headers['repr-digest'], field('sha-256', sha256(BOOK_TEXT)))
  t.equal(asked.headers['content-digest'], field('sha-512', sha512(BOOK_TEXT)))
  const unusable = await app.inject({
    url: '/books/1',
    headers: { 'want-repr-digest': 'sha-256=x' },
  })
  t.notOk(unusable.headers['repr-digest'], 'a field that fails parsing is ignored, as not sent')
  const refused = await app.inject({
    url: '/books/1',
    headers: { 'want-repr-digest': 'sha-256=0, sha-512=0' },
  })
  t.notOk(refused.headers['repr-digest'], 'every algorithm refused: none sent')
  t.notOk(plain.headers.vary, 'no Vary: the fields are a hint (RFC 9530 §4)')
})

test('a route that says so sends both fields unasked; config.digest false sends none', async (t) => {
  const app = await build()
  const always = await app.inject('/always')
  t.equal(always.headers['repr-digest'], field('sha-256', sha256(BOOK_TEXT)))
  t.equal(always.headers['content-digest'], field('sha-256', sha256(BOOK_TEXT)))
  const off = await app.inject({ url: '/off', headers: { 'want-repr-digest': 'sha-256=1' } })
  t.notOk(off.headers['repr-digest'])
  const head = await app.inject({ method: 'HEAD', url: '/always' })
  t.equal(
    head.headers['repr-digest'],
    field('sha-256', sha256(BOOK_TEXT)),
    'HEAD: the representation',
  )
  t.equal(
    head.headers['content-digest'],
    field('sha-256', sha256('')),
    'HEAD: no content (RFC 9530 Appendix B.2)',
  )
})

test('the plugin options: algorithms, and repr/content on every route', async (t) => {
  const app = await build({ algorithms: ['sha-512'], repr: true })
  const res = await app.inject('/books/1')
  t.equal(res.headers['repr-digest'], field('sha-512', sha512(BOOK_TEXT)))
  t.notOk(res.headers['content-digest'])
  const fallback = await app.inject({
    url: '/books/1',
    headers: { 'want-repr-digest': 'sha-256=10' },
  })
  t.equal(fallback.headers['repr-digest'], field('sha-512', sha512(BOOK_TEXT)), 'not ours: our own')
  await t.rejects(build({ algorithms: ['md5'] } as unknown as DigestOptions), {
    name: 'OptionsError',
    message: /algorithms/,
  })
  await t.rejects(
    (async () => {
      const bad = Fastify()
      await bad.register(restwellDigest)
      bad.get('/x', { config: { digest: { repr: 'yes' } as never } }, async () => 'x')
      await bad.ready()
    })(),
    { message: /config\.digest of GET \/x/ },
  )
})

test('errors, 304, 204 and streams: what has a representation is digested', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellDigest, { repr: true, content: true })
  app.get('/missing', async () => {
    throw new Error('nope')
  })
  app.get('/not-modified', async (_request, reply) => reply.code(304).send())
  app.delete('/gone', async (_request, reply) => reply.code(204).send())
  app.get('/stream', async () => Readable.from(['a', 'b']))
  app.get('/mine', async (_request, reply) =>
    reply.header('repr-digest', 'sha-256=:AAAA:').send('x'),
  )
  app.get('/empty', async (_request, reply) => reply.send())
  const error = await app.inject('/missing')
  t.equal(
    error.headers['repr-digest'],
    field('sha-256', sha256(error.body)),
    'the error body (Appendix B.8)',
  )
  t.notOk(
    (await app.inject('/not-modified')).headers['repr-digest'],
    'a 304 has no representation data',
  )
  t.notOk((await app.inject({ method: 'DELETE', url: '/gone' })).headers['content-digest'])
  t.notOk(
    (await app.inject('/stream')).headers['content-digest'],
    'a stream: not known before the headers',
  )
  const mine = await app.inject('/mine')
  t.equal(mine.headers['repr-digest'], 'sha-256=:AAAA:', 'the handler its own field')
  t.equal(mine.headers['content-digest'], field('sha-256', sha256('x')))
  t.equal((await app.inject('/empty')).headers['content-digest'], field('sha-256', sha256('')))
})

test('a 206 describes the whole in Repr-Digest, the part in Content-Digest; kept digests are reused', async (t) => {
  const app = Fastify()
  await app.register(restwellDigest, { repr: true, content: true })
  const whole = '0123456789'
  const kept = { 'sha-256': Buffer.alloc(32, 7) }
  // What @restwell/conditional's 206 and a cache of compressed bodies leave (core contracts), as
  // app hooks, which run before the plugin's.
  app.addHook('onSend', async (request, reply, payload) => {
    const slots = reply as unknown as Record<symbol, unknown>
    if (request.url === '/ranged' && request.headers.range !== undefined) {
      slots[FULL_REPRESENTATION] = whole
      reply.code(206).header('content-range', 'bytes 0-3/10')
      return whole.slice(0, 4)
    }
    if (request.url === '/kept') slots[BODY_DIGESTS] = kept
    if (request.url === '/partial') {
      reply.code(206)
      return 'part'
    }
    return payload
  })
  app.get('/ranged', async () => whole)
  app.get('/kept', async () => 'cached body')
  app.get('/partial', async () => whole)
  const ranged = await app.inject({ url: '/ranged', headers: { range: 'bytes=0-3' } })
  t.equal(ranged.statusCode, 206)
  t.equal(ranged.headers['repr-digest'], field('sha-256', sha256(whole)))
  t.equal(ranged.headers['content-digest'], field('sha-256', sha256('0123')))
  const reused = await app.inject('/kept')
  const fake = field('sha-256', Buffer.alloc(32, 7).toString('base64'))
  t.equal(reused.headers['repr-digest'], fake, 'the digest kept with the body, not hashed again')
  t.equal(reused.headers['content-digest'], fake)
  const kept512 = await app.inject({ url: '/kept', headers: { 'want-repr-digest': 'sha-512=9' } })
  t.equal(kept512.headers['repr-digest'], field('sha-512', sha512('cached body')))
  t.ok((kept as Record<string, Buffer>)['sha-512'], 'a digest made is kept for the next send')
  const partial = await app.inject('/partial')
  t.notOk(
    partial.headers['repr-digest'],
    'a part whose whole is unknown: no Repr-Digest, never a wrong one',
  )
  t.equal(partial.headers['content-digest'], field('sha-256', sha256('part')))
})

test('a request Content-Digest is checked before the handler (draft-ietf-httpapi-digest-fields-problem-types)', async (t) => {
  const app = await build()
  let stored = 0
  app.post('/store', async () => {
    stored++
    return { ok: true }
  })
  const body = '{"title":"Dune"}'
  const post = (headers: Record<string, string>, url = '/books', payload: string | Buffer = body) =>
    app.inject({
      method: 'POST',
      url,
      payload,
      headers: { 'content-type': 'application/json', ...headers },
    })
  t.equal((await post({ 'content-digest': field('sha-256', sha256(body)) })).statusCode, 201)
  t.equal(
    (await post({ 'repr-digest': field('sha-512', sha512(body)) })).statusCode,
    201,
    'Repr-Digest too',
  )
  t.equal(
    (await post({ 'content-digest': `${field('sha-256', sha256(body))}, md5=:AAAA:` })).statusCode,
    201,
    'an algorithm not taken beside one taken is ignored',
  )
  const wrong = field('sha-256', sha256('{"title":"Dunf"}'))
  const mismatch = await post({ 'content-digest': wrong }, '/store')
  t.equal(mismatch.statusCode, 400)
  t.equal(stored, 0, 'nothing is stored')
  const error = mismatch.json().error
  t.equal(error.code, 'DIGEST_MISMATCHED_VALUES')
  t.same(error.details, [
    {
      field: 'headers/content-digest',
      message: `the sha-256 digest ${wrong.slice('sha-256='.length)} does not match the content`,
    },
  ])
  t.notMatch(mismatch.body, sha256(body), 'never the digest the server computed')
  const invalid = await post({
    'content-digest': 'sha-256=:AAAA:',
    'repr-digest': 'sha-512=:AAAA:',
  })
  t.equal(invalid.json().error.code, 'DIGEST_INVALID_VALUES')
  t.same(
    invalid.json().error.details.map((d: { field: string }) => d.field),
    ['headers/content-digest', 'headers/repr-digest'],
  )
  const unsupported = await post({ 'content-digest': 'md5=:AAAA:', 'repr-digest': 'sha=:AAAA:' })
  t.equal(unsupported.statusCode, 400)
  t.equal(unsupported.json().error.code, 'DIGEST_UNSUPPORTED_ALGORITHMS')
  t.equal(
    unsupported.headers['want-content-digest'],
    'sha-256=10, sha-512=9',
    'what the server takes',
  )
  t.equal(unsupported.headers['want-repr-digest'], 'sha-256=10, sha-512=9')
  t.equal(
    (await post({ 'content-digest': 'sha-256=:AAAA' })).statusCode,
    201,
    'unparseable: ignored',
  )
  t.equal((await post({ 'content-digest': '' })).statusCode, 201, 'empty: nothing to check')
  t.equal(
    (await app.inject({ method: 'PUT', url: '/unchecked', headers: { 'content-digest': wrong } }))
      .statusCode,
    200,
    'verify: false',
  )
  const both = await post({
    'content-digest': field('sha-256', sha256(body)),
    'repr-digest': field('sha-256', sha256('x')),
  })
  t.equal(both.json().error.details[0].field, 'headers/repr-digest', 'each field is checked')
})

test('the problem form names the registered problem types', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors, { format: 'problem' })
  await app.register(restwellDigest)
  app.post('/things', async () => ({ ok: true }))
  const res = await app.inject({
    method: 'POST',
    url: '/things',
    payload: '{}',
    headers: {
      'content-type': 'application/json',
      'content-digest': field('sha-256', sha256('x')),
    },
  })
  t.equal(res.headers['content-type'], 'application/problem+json')
  t.equal(
    res.json().type,
    'https://iana.org/assignments/http-problem-types#digest-mismatched-values',
  )
  t.equal(res.json().status, 400)
})

test('an encoded request body is digested as received, before it is decoded', async (t) => {
  const app = Fastify()
  await app.register(restwellDigest)
  app.post(
    '/upload',
    {
      // A decoder of the app's own, registered before the plugin: the digest still sees the gzip bytes.
      preParsing: async (request, _reply, payload) => {
        if (request.headers['content-encoding'] !== 'gzip') return payload
        const { createGunzip } = await import('node:zlib')
        const gunzip = Object.assign(createGunzip(), { receivedEncodedLength: 0 })
        payload.on('data', (chunk: Buffer) => {
          gunzip.receivedEncodedLength += chunk.length
        })
        return payload.pipe(gunzip)
      },
    },
    async (request) => request.body,
  )
  const zipped = gzipSync('{"a":1}')
  const res = await app.inject({
    method: 'POST',
    url: '/upload',
    payload: zipped,
    headers: {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-digest': field('sha-256', sha256(zipped)),
    },
  })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { a: 1 })
})
