import { Readable } from 'node:stream'
import { ErrorCode, httpErrors, restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { type Test, test } from 'tap'
import { restwellConditional } from '../src/index.js'
import type { ConditionalOptions } from '../src/index.js'

const BOOK = { id: 7, title: 'Dune', version: 3, updatedAt: '2024-05-01T10:00:00.000Z' }
const OLD = 'Wed, 01 May 2024 10:00:00 GMT'

async function build(options: ConditionalOptions = {}, errors = true): Promise<FastifyInstance> {
  const app = Fastify()
  if (errors) await app.register(restwellErrors)
  await app.register(restwellConditional, options)
  app.get('/books/7', async () => BOOK)
  app.get('/text', async (_req, reply) => reply.type('text/plain').send('hello world'))
  app.get('/buffer', async (_req, reply) =>
    reply.type('application/octet-stream').send(Buffer.from('0123456789')),
  )
  app.get('/stream', async (_req, reply) =>
    reply.type('text/plain').send(Readable.from(['a', 'b'])),
  )
  app.get('/stream-versioned', async (_req, reply) => {
    reply.etag('s1')
    return reply.type('text/plain').send(Readable.from(['a', 'b']))
  })
  app.get('/versioned', async (_req, reply) => {
    reply.etag(BOOK.version).lastModified(BOOK.updatedAt)
    return BOOK
  })
  app.get('/empty', async (_req, reply) => reply.send())
  app.get('/missing', async (_req, reply) => reply.code(404).send({ nope: true }))
  app.get('/off', { config: { conditional: false } }, async () => BOOK)
  return app
}

/** Appends a hook to every route added from now on, as a plugin's onRoute hook would. */
function appendToRoutes(
  app: FastifyInstance,
  name: 'onSend' | 'preSerialization',
  hook: (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done) => void,
): void {
  app.addHook('onRoute', (route) => {
    const slots = route as unknown as Record<string, unknown>
    slots[name] = [...[slots[name] ?? []].flat(), hook]
  })
}
type Done = (error: Error | null, payload?: unknown) => void

/** A HEAD with the GET's ETag in If-None-Match: 304, no Content-Length. */
async function headRevalidates(t: Test, app: FastifyInstance, url: string, etag: unknown) {
  const res = await app.inject({
    method: 'HEAD',
    url,
    headers: { 'if-none-match': etag as string },
  })
  t.equal(res.statusCode, 304)
  t.equal(res.headers['content-length'], undefined)
}

test('a GET 200 carries a strong ETag hashed from the bytes, stable across requests', async (t) => {
  const app = await build()
  const a = await app.inject('/books/7')
  const b = await app.inject('/books/7')
  t.equal(a.statusCode, 200)
  t.match(a.headers.etag, /^"[A-Za-z0-9_-]{27}"$/)
  t.equal(a.headers.etag, b.headers.etag)
  t.equal(a.headers['accept-ranges'], 'bytes')
  const text = await app.inject('/text')
  t.not(text.headers.etag, a.headers.etag)
})

test('If-None-Match with the ETag → 304, empty body, no content-type or content-length', async (t) => {
  const app = await build()
  const first = await app.inject('/books/7')
  const etag = first.headers.etag as string
  const res = await app.inject({ url: '/books/7', headers: { 'if-none-match': etag } })
  t.equal(res.statusCode, 304)
  t.equal(res.body, '')
  t.equal(res.headers.etag, etag)
  t.equal(res.headers['content-type'], undefined)
  t.equal(res.headers['content-length'], undefined)
  t.equal(res.headers['accept-ranges'], undefined)
})

test('If-None-Match: lists, *, weak comparison, malformed members, no match → 200', async (t) => {
  const app = await build()
  const etag = (await app.inject('/books/7')).headers.etag as string
  const list = await app.inject({
    url: '/books/7',
    headers: { 'if-none-match': `"other", W/${etag},"x"` },
  })
  t.equal(list.statusCode, 304, 'weak comparison: W/ matches the strong tag')
  t.equal(list.headers.etag, etag)
  const star = await app.inject({ url: '/books/7', headers: { 'if-none-match': '*' } })
  t.equal(star.statusCode, 304)
  const none = await app.inject({ url: '/books/7', headers: { 'if-none-match': '"nope", bad' } })
  t.equal(none.statusCode, 200)
  const junk = await app.inject({ url: '/books/7', headers: { 'if-none-match': 'W/x, "' } })
  t.equal(junk.statusCode, 200, 'malformed entity-tags are ignored')
})

test('HEAD: same ETag and Accept-Ranges as GET, 304 on match, Range ignored', async (t) => {
  const app = await build()
  const get = await app.inject('/books/7')
  const head = await app.inject({ method: 'HEAD', url: '/books/7' })
  t.equal(head.statusCode, 200)
  t.equal(head.headers.etag, get.headers.etag)
  t.equal(head.headers['accept-ranges'], 'bytes')
  t.equal(head.headers['content-length'], get.headers['content-length'])
  await headRevalidates(t, app, '/books/7', get.headers.etag)
  const hRange = await app.inject({ method: 'HEAD', url: '/text', headers: { range: 'bytes=0-1' } })
  t.equal(hRange.statusCode, 200, 'Range is defined for GET only (RFC 9110 §14.2)')
  t.equal(hRange.headers['content-range'], undefined)
})

test("HEAD: conditional's hook runs before Fastify's body-dropping one, so HEAD = GET", async (t) => {
  const app = Fastify()
  const seen: string[] = []
  // A plugin loaded before conditional appends its onSend hook in onRoute: on the HEAD twin of
  // a GET route that lands after Fastify's body-dropping hook, and sees no body there.
  appendToRoutes(app, 'onSend', (request, _reply, payload, done) => {
    seen.push(`${request.method} ${typeof payload}`)
    done(null, payload)
  })
  await app.register(restwellConditional)
  app.get('/books/7', async () => BOOK)
  const get = await app.inject('/books/7')
  const head = await app.inject({ method: 'HEAD', url: '/books/7' })
  t.match(get.headers.etag, /^"[A-Za-z0-9_-]{27}"$/)
  t.equal(head.headers.etag, get.headers.etag, 'the HEAD answer is hashed from the same bytes')
  t.equal(head.headers['accept-ranges'], 'bytes')
  t.equal(head.headers['content-length'], get.headers['content-length'])
  t.equal(head.body, '')
  t.same(seen, ['GET string', 'HEAD object'], "the other plugin's hook comes after the drop")
  await headRevalidates(t, app, '/books/7', get.headers.etag)
})

test('an answer that becomes an error after the precondition check is that error', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional)
  // A later plugin's preSerialization hook (soft delete's 410) refuses what the handler gave.
  appendToRoutes(app, 'preSerialization', (_request, _reply, payload, done) =>
    (payload as { deleted?: boolean }).deleted === true
      ? done(httpErrors.gone('The book was deleted', { code: 'RESOURCE_DELETED' }))
      : done(null, payload),
  )
  app.get('/books/:id', { config: { conditional: { etagField: 'version' } } }, async () => ({
    ...BOOK,
    deleted: true,
  }))
  app.get('/thrown', async (_request, reply) => {
    reply.etag('v1').lastModified(BOOK.updatedAt)
    throw httpErrors.notFound('No such book')
  })
  const gone = await app.inject({ url: '/books/7', headers: { 'if-none-match': '"3"' } })
  t.equal(gone.statusCode, 410, 'not a 304: preconditions apply to a 200 (RFC 9110 §13.2.1)')
  t.equal(gone.json().error.code, 'RESOURCE_DELETED', 'the error keeps its body')
  t.equal(gone.headers.etag, undefined, 'no validator of a representation not sent')
  // An error handler of the app's own that sends an object: serialized as JSON, not emptied.
  const own = Fastify()
  await own.register(restwellConditional)
  own.setErrorHandler((error: Error, _request, reply) => {
    reply.code(410).send({ gone: error.message })
  })
  // refuses the handler's body once; the error handler's own body then goes through
  appendToRoutes(own, 'preSerialization', (_request, reply, payload, done) =>
    reply.statusCode === 200 ? done(new Error('deleted')) : done(null, payload),
  )
  own.get('/books/:id', { config: { conditional: { etagField: 'version' } } }, async () => BOOK)
  const ownGone = await own.inject({ url: '/books/7', headers: { 'if-none-match': '"3"' } })
  t.equal(ownGone.statusCode, 410)
  t.same(ownGone.json(), { gone: 'deleted' })
  // …and one that sends text: the text as it is.
  const text = Fastify()
  await text.register(restwellConditional)
  text.setErrorHandler((error: Error, _request, reply) => {
    reply.code(410).type('text/plain').send(`gone: ${error.message}`)
  })
  appendToRoutes(text, 'preSerialization', (_request, reply, payload, done) =>
    reply.statusCode === 200 ? done(new Error('deleted')) : done(null, payload),
  )
  text.get('/books/:id', { config: { conditional: { etagField: 'version' } } }, async () => BOOK)
  const textGone = await text.inject({ url: '/books/7', headers: { 'if-none-match': '"3"' } })
  t.same([textGone.statusCode, textGone.body], [410, 'gone: deleted'])
  const notFound = await app.inject({ url: '/thrown', headers: { 'if-none-match': '"v1"' } })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.json().error.code, 'NOT_FOUND')
  t.equal(notFound.headers.etag, undefined)
  t.equal(notFound.headers['last-modified'], undefined)
})

test('handler-given validators: reply.etag() and reply.lastModified(), no hashing', async (t) => {
  const app = await build()
  const res = await app.inject('/versioned')
  t.equal(res.headers.etag, '"3"')
  t.equal(res.headers['last-modified'], OLD)
  const inm = await app.inject({ url: '/versioned', headers: { 'if-none-match': '"3"' } })
  t.equal(inm.statusCode, 304)
  t.equal(inm.headers['last-modified'], OLD, '304 keeps Last-Modified')
  const ims = await app.inject({ url: '/versioned', headers: { 'if-modified-since': OLD } })
  t.equal(ims.statusCode, 304)
  const later = await app.inject({
    url: '/versioned',
    headers: { 'if-modified-since': 'Thu, 02 May 2024 00:00:00 GMT' },
  })
  t.equal(later.statusCode, 304)
  const earlier = await app.inject({
    url: '/versioned',
    headers: { 'if-modified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' },
  })
  t.equal(earlier.statusCode, 200)
  t.same(earlier.json(), BOOK)
  const both = await app.inject({
    url: '/versioned',
    headers: { 'if-none-match': '"2"', 'if-modified-since': OLD },
  })
  t.equal(both.statusCode, 200, 'If-Modified-Since is ignored when If-None-Match is present')
  const invalid = await app.inject({
    url: '/versioned',
    headers: { 'if-modified-since': 'yesterday' },
  })
  t.equal(invalid.statusCode, 200, 'an invalid date is ignored')
})

test('a 304 decided before serialization never serializes the body', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  let serialized = 0
  app.get(
    '/counted',
    {
      preSerialization: (_req, _reply, payload, done) => done(null, payload),
    },
    async (_req, reply) => {
      reply.serializer((value) => {
        serialized++
        return JSON.stringify(value)
      })
      reply.etag('v1')
      return { big: 'x'.repeat(1000) }
    },
  )
  const ok = await app.inject('/counted')
  t.equal(ok.statusCode, 200)
  t.equal(serialized, 1)
  const res = await app.inject({ url: '/counted', headers: { 'if-none-match': '"v1"' } })
  t.equal(res.statusCode, 304)
  t.equal(res.body, '')
  t.equal(serialized, 1, 'the route serializer did not run for the 304')
})

test('etagField and lastModifiedField read the returned object before serialization', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  app.get(
    '/books/:id',
    { config: { conditional: { etagField: 'version', lastModifiedField: 'updatedAt' } } },
    async () => BOOK,
  )
  app.get(
    '/dated',
    { config: { conditional: { lastModifiedField: 'at', etag: false } } },
    async () => ({ at: new Date(Date.parse(BOOK.updatedAt)) }),
  )
  app.get(
    '/bad-fields',
    { config: { conditional: { etagField: 'v', lastModifiedField: 'at' } } },
    async () => ({ v: { nested: true }, at: 'not a date' }),
  )
  app.get('/array', { config: { conditional: { etagField: 'v' } } }, async () => 'plain text')
  const res = await app.inject('/books/7')
  t.equal(res.headers.etag, '"3"')
  t.equal(res.headers['last-modified'], OLD)
  const nm = await app.inject({ url: '/books/7', headers: { 'if-none-match': '"3"' } })
  t.equal(nm.statusCode, 304)
  const dated = await app.inject({ url: '/dated', headers: { 'if-modified-since': OLD } })
  t.equal(dated.statusCode, 304)
  t.equal(dated.headers.etag, undefined)
  const bad = await app.inject('/bad-fields')
  t.match(bad.headers.etag, /^"[A-Za-z0-9_-]{27}"$/, 'unusable fields fall back to hashing')
  t.equal(bad.headers['last-modified'], undefined)
  const text = await app.inject('/array')
  t.match(text.headers.etag, /^"/)
})

test('getValidator on a GET answers 304 before the handler runs', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  let handled = 0
  const store = new Map([['7', { ...BOOK }]])
  app.get<{ Params: { id: string } }>(
    '/books/:id',
    {
      config: {
        conditional: {
          getValidator: async (request) => {
            const book = store.get((request.params as { id: string }).id)
            return book && { etag: book.version, lastModified: book.updatedAt }
          },
        },
      },
    },
    async (request, reply) => {
      handled++
      const book = store.get(request.params.id)
      if (book === undefined) return reply.code(404).send({ missing: true })
      return book
    },
  )
  const res = await app.inject('/books/7')
  t.equal(res.headers.etag, '"3"')
  t.equal(res.headers['last-modified'], OLD)
  t.equal(handled, 1)
  const nm = await app.inject({ url: '/books/7', headers: { 'if-none-match': '"3"' } })
  t.equal(nm.statusCode, 304)
  t.equal(nm.headers.etag, '"3"')
  t.equal(handled, 1, 'the handler did not run')
  const changed = await app.inject({ url: '/books/7', headers: { 'if-none-match': '"2"' } })
  t.equal(changed.statusCode, 200)
  t.equal(handled, 2)
  const im = await app.inject({ url: '/books/7', headers: { 'if-match': '"2"' } })
  t.equal(im.statusCode, 412, 'If-Match on a GET fails with 412')
  t.equal(im.headers.etag, undefined)
  const missing = await app.inject({ url: '/books/8', headers: { 'if-none-match': '*' } })
  t.equal(missing.statusCode, 404, 'preconditions are ignored when the answer is not 2xx')
})

test('If-Match / If-Unmodified-Since on GET: 412 in the error form, before 304', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/versioned',
    headers: { 'if-match': '"2"', 'if-none-match': '"3"' },
  })
  t.equal(res.statusCode, 412)
  t.equal(res.json().error.code, ErrorCode.PRECONDITION_FAILED)
  t.equal(res.json().error.details[0].field, 'headers/if-match')
  t.equal(res.headers.etag, undefined)
  const ius = await app.inject({
    url: '/versioned',
    headers: { 'if-unmodified-since': 'Tue, 30 Apr 2024 00:00:00 GMT' },
  })
  t.equal(ius.statusCode, 412)
  t.equal(ius.json().error.details[0].field, 'headers/if-unmodified-since')
  const ok = await app.inject({ url: '/versioned', headers: { 'if-match': '"3"' } })
  t.equal(ok.statusCode, 200)
  const hashed = await app.inject({ url: '/books/7', headers: { 'if-match': '"zzz"' } })
  t.equal(hashed.statusCode, 412, 'If-Match is checked against the hashed ETag too')
})

test('streams: no ETag unless the handler gives one; a given one is honoured', async (t) => {
  const app = await build()
  const res = await app.inject('/stream')
  t.equal(res.body, 'ab')
  t.equal(res.headers.etag, undefined)
  t.equal(res.headers['accept-ranges'], undefined)
  const star = await app.inject({ url: '/stream', headers: { 'if-none-match': '*' } })
  t.equal(star.statusCode, 304, 'If-None-Match: * needs no ETag')
  const given = await app.inject('/stream-versioned')
  t.equal(given.headers.etag, '"s1"')
  const nm = await app.inject({ url: '/stream-versioned', headers: { 'if-none-match': '"s1"' } })
  t.equal(nm.statusCode, 304)
  t.equal(nm.body, '')
})

test('non-200 answers, empty bodies and config.conditional: false are left alone', async (t) => {
  const app = await build()
  const missing = await app.inject({ url: '/missing', headers: { 'if-none-match': '*' } })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers.etag, undefined)
  const empty = await app.inject('/empty')
  t.equal(empty.statusCode, 200)
  t.equal(empty.headers.etag, undefined)
  const off = await app.inject({ url: '/off', headers: { 'if-none-match': '*' } })
  t.equal(off.statusCode, 200)
  t.equal(off.headers.etag, undefined)
  t.equal(off.headers['accept-ranges'], undefined)
  const head = await app.inject({ method: 'HEAD', url: '/off' })
  t.equal(head.headers.etag, undefined)
})

test('an ETag header set by hand is kept and compared', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  app.get('/manual', async (_req, reply) => reply.header('etag', 'W/"m1"').send('x'))
  app.get('/bad', async (_req, reply) => reply.header('etag', 'no quotes').send('x'))
  app.get('/lm', async (_req, reply) => reply.header('last-modified', OLD).send('x'))
  const res = await app.inject({ url: '/manual', headers: { 'if-none-match': '"m1"' } })
  t.equal(res.statusCode, 304)
  t.equal(res.headers.etag, 'W/"m1"')
  const bad = await app.inject({ url: '/bad', headers: { 'if-none-match': '*' } })
  t.equal(bad.statusCode, 304)
  const bad2 = await app.inject('/bad')
  t.equal(bad2.headers.etag, 'no quotes', 'a malformed header is kept as is, never replaced')
  const lm = await app.inject({ url: '/lm', headers: { 'if-modified-since': OLD } })
  t.equal(lm.statusCode, 304)
})

test('weak option and reply.etag forms', async (t) => {
  const app = await build({ weak: true })
  app.get('/quoted', async (_req, reply) => reply.etag('"q1"').send('x'))
  app.get('/weak-quoted', async (_req, reply) => reply.etag('"q1"', { weak: true }).send('x'))
  app.get('/weak-given', async (_req, reply) => reply.etag('W/"q2"').send('x'))
  app.get('/odd', async (_req, reply) => reply.etag('has space "and quotes"').send('x'))
  app.get('/empty-tag', async (_req, reply) => reply.etag('').send('x'))
  app.get('/future', async (_req, reply) => reply.lastModified(Date.now() + 86_400_000).send('x'))
  app.get('/bad-date', async (_req, reply) => reply.lastModified('not a date').send('x'))
  t.match((await app.inject('/text')).headers.etag, /^W\/"/)
  t.equal((await app.inject('/quoted')).headers.etag, '"q1"')
  t.equal((await app.inject('/weak-quoted')).headers.etag, 'W/"q1"')
  t.equal((await app.inject('/weak-given')).headers.etag, 'W/"q2"')
  t.match((await app.inject('/odd')).headers.etag, /^"[A-Za-z0-9_-]{27}"$/)
  t.match((await app.inject('/empty-tag')).headers.etag, /^"[A-Za-z0-9_-]{27}"$/)
  const future = await app.inject('/future')
  t.ok(Date.parse(future.headers['last-modified'] as string) <= Date.now())
  const bad = await app.inject('/bad-date')
  t.equal(bad.statusCode, 500)
  const weakIm = await app.inject({ url: '/weak-given', headers: { 'if-match': 'W/"q2"' } })
  t.equal(weakIm.statusCode, 412, 'If-Match uses strong comparison: weak tags never match')
})

test("a 304 or 206 the handler makes itself varies as its 200 does; a POST's does not", async (t) => {
  const app = Fastify()
  await app.register(restwellConditional, { varyAcceptEncoding: true })
  // As a static file server answers: it checks If-None-Match and Range itself.
  const file = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('etag', '"f1"')
    if (request.headers['if-none-match'] === '"f1"') return reply.code(304).send()
    if (request.headers.range !== undefined) {
      return reply.code(206).header('content-range', 'bytes 0-1/4').send('ab')
    }
    return reply.send('abcd')
  }
  app.get('/file', file)
  app.post('/file', file)
  t.equal((await app.inject('/file')).headers.vary, 'Accept-Encoding')
  const fresh = await app.inject({ url: '/file', headers: { 'if-none-match': '"f1"' } })
  t.equal(fresh.statusCode, 304)
  t.equal(fresh.headers.vary, 'Accept-Encoding')
  const head = await app.inject({
    method: 'HEAD',
    url: '/file',
    headers: { 'if-none-match': '"f1"' },
  })
  t.equal(head.statusCode, 304)
  t.equal(head.headers.vary, 'Accept-Encoding')
  const part = await app.inject({ url: '/file', headers: { range: 'bytes=0-1' } })
  t.equal(part.statusCode, 206)
  t.equal(part.headers.vary, 'Accept-Encoding')
  const post = await app.inject({ method: 'POST', url: '/file', headers: { range: 'bytes=0-1' } })
  t.equal(post.statusCode, 206)
  t.equal(post.headers.vary, undefined)
  const plain = Fastify()
  await plain.register(restwellConditional)
  plain.get('/file', file)
  t.equal(
    (await plain.inject({ url: '/file', headers: { 'if-none-match': '"f1"' } })).headers.vary,
    undefined,
  )
})

test('etag: false hashes nothing but still honours validators', async (t) => {
  const app = await build({ etag: false, ranges: false })
  const res = await app.inject('/books/7')
  t.equal(res.headers.etag, undefined)
  t.equal(res.headers['accept-ranges'], undefined)
  t.equal(
    (await app.inject({ url: '/versioned', headers: { 'if-none-match': '"3"' } })).statusCode,
    304,
  )
})

test('Vary and Cache-Control set by the route are kept on the 304', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional, { varyAcceptEncoding: true })
  app.get('/v', async (_req, reply) =>
    reply
      .header('vary', 'accept')
      .header('cache-control', 'max-age=60')
      .header('content-location', '/v.json')
      .header('expires', 'Thu, 01 Jan 2099 00:00:00 GMT')
      .header('content-language', 'en')
      .send({ a: 1 }),
  )
  app.get('/star', async (_req, reply) => reply.header('vary', '*').send({ a: 1 }))
  app.get('/arr', async (_req, reply) => reply.header('vary', ['accept', 'origin']).send({ a: 1 }))
  const ok = await app.inject('/v')
  t.equal(ok.headers.vary, 'Accept, Accept-Encoding', 'one spelling per field')
  const res = await app.inject({
    url: '/v',
    headers: { 'if-none-match': ok.headers.etag as string },
  })
  t.equal(res.statusCode, 304)
  t.equal(res.headers.vary, 'Accept, Accept-Encoding')
  t.equal(res.headers['cache-control'], 'max-age=60')
  t.equal(res.headers['content-location'], '/v.json')
  t.equal(res.headers.expires, 'Thu, 01 Jan 2099 00:00:00 GMT')
  t.equal(res.headers['content-language'], undefined)
  t.equal((await app.inject('/star')).headers.vary, '*')
  t.equal((await app.inject('/arr')).headers.vary, 'Accept, Origin, Accept-Encoding')
})

test('registration: options validated, order with @fastify/compress enforced', async (t) => {
  await t.rejects(
    async () => {
      const app = Fastify()
      await app.register(restwellConditional, { maxRanges: 0 })
    },
    { name: 'OptionsError', message: /maxRanges/ },
  )
  await t.rejects(
    async () => {
      const app = Fastify()
      await app.register(restwellConditional)
      app.get(
        '/x',
        { config: { conditional: { weak: 'yes' as unknown as boolean } } },
        async () => 1,
      )
      await app.ready()
    },
    { message: /config\.conditional of GET \/x.*weak/ },
  )
  await t.rejects(
    async () => {
      const app = Fastify()
      await app.register(restwellConditional)
      app.put('/x', { config: { conditional: { requirePrecondition: true } } }, async () => 1)
      await app.ready()
    },
    {
      name: 'OptionsError',
      option: 'config.conditional.requirePrecondition',
      message: /route PUT \/x\).*requirePrecondition" is set without getValidator/,
    },
  )
  await t.rejects(
    async () => {
      const app = Fastify()
      app.decorateReply('compress', null as never)
      await app.register(restwellConditional)
    },
    { message: /before @fastify\/compress/ },
  )
})

test('a write route given a version or date field but no getValidator is refused: it would ignore If-Match', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  const versioned = { conditional: { etagField: 'version' } }
  t.throws(() => app.patch('/books/:id', { config: versioned }, async () => ({})), {
    name: 'OptionsError',
    code: 'RESTWELL_INVALID_OPTION',
    option: 'config.conditional.etagField',
    message: /route PATCH \/books\/:id\).*has no effect on a write.*getValidator/,
  })
  t.throws(
    () =>
      app.delete(
        '/books/:id',
        { config: { conditional: { lastModifiedField: 'updatedAt' } } },
        async () => ({}),
      ),
    { option: 'config.conditional.lastModifiedField', message: /stored date/ },
  )
  // Where the fields serve a read, or the stored state is given, or the write creates (POST).
  app.get('/books/:id', { config: versioned }, async () => ({ id: 1, version: 2 }))
  app.route({
    method: ['GET', 'PUT'],
    url: '/shelves/:id',
    config: versioned,
    handler: async () => ({}),
  })
  app.post('/books', { config: versioned }, async () => ({ id: 2, version: 1 }))
  app.put(
    '/books/:id',
    { config: { conditional: { etagField: 'version', getValidator: () => ({ etag: '2' }) } } },
    async () => ({ id: 1, version: 3 }),
  )
  await app.ready()
  const stale = await app.inject({ method: 'PUT', url: '/books/1', headers: { 'if-match': '"1"' } })
  t.equal(stale.statusCode, 412, 'with getValidator, a stale If-Match is refused')
})

test('OPTIONS and other methods are not touched', async (t) => {
  const app = await build()
  app.options('/books/7', async () => 'opts')
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/books/7',
    headers: { 'if-match': '"x"' },
  })
  t.equal(res.statusCode, 200)
  t.equal(res.headers.etag, undefined)
})

test('works without @restwell/errors: Fastify default handler sends the 412 status', async (t) => {
  const app = await build({}, false)
  const res = await app.inject({ url: '/versioned', headers: { 'if-match': '"9"' } })
  t.equal(res.statusCode, 412)
  t.equal(res.json().code, ErrorCode.PRECONDITION_FAILED)
})

test('field validators lose to handler-given ones; odd field values are skipped', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  const conditional = { etagField: 'version', lastModifiedField: 'at' }
  app.get('/given', { config: { conditional } }, async (_req, reply) => {
    reply.etag('handler').lastModified(OLD)
    return { version: 'field', at: '2020-01-01T00:00:00Z' }
  })
  app.get('/number', { config: { conditional } }, async () => ({ at: Date.parse(OLD) }))
  app.get('/object', { config: { conditional } }, async () => ({ version: 1, at: {} }))
  const given = await app.inject('/given')
  t.equal(given.headers.etag, '"handler"')
  t.equal(given.headers['last-modified'], OLD)
  const num = await app.inject({ url: '/number', headers: { 'if-modified-since': OLD } })
  t.equal(num.statusCode, 304)
  const obj = await app.inject({ url: '/object', headers: { 'if-none-match': '"1"' } })
  t.equal(obj.statusCode, 304)
  t.equal(obj.headers['last-modified'], undefined)
})

test('getValidator with a date only: 304 by If-Modified-Since, no ETag', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional, { etag: false })
  app.get(
    '/dated',
    { config: { conditional: { getValidator: () => ({ lastModified: OLD }) } } },
    async () => 'x',
  )
  const res = await app.inject({ url: '/dated', headers: { 'if-modified-since': OLD } })
  t.equal(res.statusCode, 304)
  t.equal(res.headers.etag, undefined)
  t.equal(res.headers['last-modified'], OLD)
})

test('a route onSend hook given as a function; a multipart part without a type', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  app.get(
    '/untyped',
    {
      onSend: (_req, reply, _payload, done) => {
        reply.removeHeader('content-type')
        done()
      },
    },
    async (_req, reply) => reply.send(Buffer.from('abcdef')),
  )
  const res = await app.inject({ url: '/untyped', headers: { range: 'bytes=0-0,2-2' } })
  t.equal(res.statusCode, 206)
  t.notMatch(res.body, 'Content-Type')
  t.match(res.headers['content-type'], /^multipart\/byteranges/)
})
