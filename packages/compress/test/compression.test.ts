import { Readable } from 'node:stream'
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib'
import fastifyCompress from '@fastify/compress'
import { restwellConditional } from '@restwell/conditional'
import { addRouteHook, sendHook, serializeHook } from '@restwell/core/internal'
import { asList, IDENTITY_DIGEST, ITEMS_DIGEST_PREFIX } from '@restwell/core/internal'
import Fastify, {
  type FastifyInstance,
  type LightMyRequestResponse,
  type onSendHookHandler,
} from 'fastify'
import tap, { test } from 'tap'
import {
  bodyCache,
  cacheSize,
  compressStep,
  declareCompressionState,
  earlyLookupStep,
  MAX_CACHED_ACCEPT_ENCODING,
  routeCompression,
} from '../src/compression.js'
import {
  type CompressionSettings,
  compress,
  resolveCompression,
  restwellCompress,
} from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const big = (n: number, fill = 'x') => ({ text: fill.repeat(n) })

/**
 * The compression step and its early lookup on every route (after the route's own hooks), and a
 * spy after them that records each body sent (a body served from the cache is the Buffer stored).
 */
async function withCache(maxBytes = 1_000_000) {
  const app = Fastify()
  apps.push(app)
  const store = bodyCache(maxBytes)
  declareCompressionState(app)
  const settings: CompressionSettings = {
    threshold: 1024,
    syncThreshold: 65_536,
    encodings: ['gzip', 'br'],
    gzipLevel: 6,
    brotliQuality: 4,
    cacheBytes: maxBytes,
  }
  const sent: unknown[] = []
  const spy: onSendHookHandler = (_request, _reply, payload, done) => {
    sent.push(payload)
    done(null, payload)
  }
  app.addHook('onRoute', (route) => {
    if ((route as { compress?: unknown }).compress === false) return
    const steps = routeCompression(store, settings)
    const early = earlyLookupStep(steps)
    addRouteHook(route, 'preSerialization', serializeHook('restwellCompressEarly', [early]))
    route.onSend = [
      ...asList(route.onSend),
      sendHook('restwellCompress', [compressStep(steps)]),
      spy,
    ]
  })
  return { app, cache: { size: () => cacheSize(store) }, sent }
}

function comparable(res: LightMyRequestResponse) {
  const { date: _date, ...headers } = res.headers
  return { status: res.statusCode, headers, body: res.rawPayload.toString('base64') }
}

test('the second identical request is served from the cache, byte for byte', async (t) => {
  const { app, cache, sent } = await withCache()
  app.get('/page', async () => big(5000))
  app.get('/twice', async () => big(6000))
  const ask = () => app.inject({ url: '/page', headers: { 'accept-encoding': 'gzip' } })
  const first = await ask()
  const second = await ask()
  t.equal(first.headers['content-encoding'], 'gzip')
  t.same(comparable(second), comparable(first))
  t.same(JSON.parse(gunzipSync(second.rawPayload).toString()), big(5000))
  t.equal(sent.length, 2)
  t.equal(sent[1], sent[0], 'the second body is the Buffer the first compression produced')
  t.same(cache.size(), { entries: 1, bytes: first.rawPayload.length })
  const both = await Promise.all(
    [1, 2].map(() => app.inject({ url: '/twice', headers: { 'accept-encoding': 'gzip' } })),
  )
  t.same(comparable(both[1]!), comparable(both[0]!))
  t.same(cache.size().entries, 2, 'requests at once keep one entry')
  t.equal(cache.size().bytes, first.rawPayload.length + both[0]!.rawPayload.length)
  const br = await app.inject({ url: '/page', headers: { 'accept-encoding': 'br' } })
  t.equal(br.headers['content-encoding'], 'br', 'another Accept-Encoding is another entry')
  t.equal(cache.size().entries, 3)
})

test('a digest left on the reply (IDENTITY_DIGEST) is the key: the bytes are not hashed again', async (t) => {
  const { app } = await withCache()
  let call = 0
  // Two different bodies under one digest: only a key made from the digest returns the first
  // body's compressed bytes for the second (what conditional's contract promises never happens).
  app.get('/named', async (_request, reply) => {
    ;(reply as unknown as Record<symbol, string>)[IDENTITY_DIGEST] = 'named-by-hand'
    return big(5000, ++call === 1 ? 'a' : 'b')
  })
  const ask = () => app.inject({ url: '/named', headers: { 'accept-encoding': 'gzip' } })
  const first = await ask()
  const second = await ask()
  t.same(JSON.parse(gunzipSync(first.rawPayload).toString()), big(5000, 'a'))
  t.same(second.rawPayload, first.rawPayload, 'served under the digest, not the bytes')
})

/** Sets a digest derived from item versions (as conditional does) before serialization. */
function itemsDigest(digest: string) {
  return (_request: unknown, reply: object, done: () => void) => {
    ;(reply as Record<symbol, string>)[IDENTITY_DIGEST] = `${ITEMS_DIGEST_PREFIX}${digest}`
    done()
  }
}

test('a digest derived from item versions is looked up before serialization: a hit serializes nothing', async (t) => {
  const { app, cache } = await withCache()
  let serialized = 0
  const counting = (data: unknown) => {
    serialized++
    return JSON.stringify(data)
  }
  app.addHook('preHandler', (_request, reply, done) => {
    reply.serializer(counting)
    done()
  })
  app.get('/items', { preHandler: itemsDigest('v1') }, async (_request, reply) =>
    reply.type('application/vnd.items+json').send(big(5000, 'i')),
  )
  const gzip = { 'accept-encoding': 'gzip' }
  const first = await app.inject({ url: '/items', headers: gzip })
  t.equal(serialized, 1)
  t.equal(cache.size().entries, 1)
  const second = await app.inject({ url: '/items', headers: gzip })
  t.equal(serialized, 1, 'the hit was never serialized')
  t.same(comparable(second), comparable(first), 'the same answer, Content-Type included')
  t.equal(second.headers['content-type'], 'application/vnd.items+json')

  const ranged = await app.inject({ url: '/items', headers: { ...gzip, range: 'bytes=0-9' } })
  t.equal(ranged.statusCode, 200)
  t.equal(serialized, 2, 'a Range request takes the ordinary path')
  await app.inject({ url: '/items' })
  t.equal(serialized, 3, 'no Accept-Encoding: nothing to look up')
})

test('only a GET with a derived digest is looked up early', async (t) => {
  const { app } = await withCache()
  let serialized = 0
  app.addHook('preHandler', (_request, reply, done) => {
    reply.serializer((data: unknown) => {
      serialized++
      return JSON.stringify(data)
    })
    done()
  })
  app.route({
    method: ['GET', 'POST'],
    url: '/both',
    preHandler: itemsDigest('both'),
    handler: async () => big(5000, 'p'),
  })
  app.get('/hashed', async (_request, reply) => {
    ;(reply as unknown as Record<symbol, string>)[IDENTITY_DIGEST] = 'sha1-of-the-bytes'
    return big(5000, 'h')
  })
  const gzip = { 'accept-encoding': 'gzip' }
  for (let i = 0; i < 2; i++) {
    await app.inject({ method: 'POST', url: '/both', headers: gzip })
    await app.inject({ url: '/hashed', headers: gzip })
  }
  t.equal(serialized, 4, 'a POST and a hashed digest are serialized every time')
  await app.inject({ url: '/both', headers: gzip })
  t.equal(serialized, 4, 'a GET of the same bytes (same route, same digest) is served early')
})

test('an entry found early is sent even if evicted before onSend', async (t) => {
  const { app, cache } = await withCache(70)
  let evict = false
  app.get(
    '/a',
    {
      preHandler: itemsDigest('a'),
      // an async hook of the route's own lets another request run in between
      onSend: async (_request, _reply, payload) => {
        if (evict) await app.inject({ url: '/b', headers: { 'accept-encoding': 'gzip' } })
        return payload
      },
    },
    async () => big(5000, 'a'),
  )
  app.get('/b', async () => big(5000, 'b'))
  const gzip = { 'accept-encoding': 'gzip' }
  const first = await app.inject({ url: '/a', headers: gzip })
  evict = true
  const second = await app.inject({ url: '/a', headers: gzip })
  t.same(second.rawPayload, first.rawPayload, 'the entry found early was sent')
  t.equal(cache.size().entries, 1, 'and not put back: /b holds the budget')
  t.equal(cache.size().bytes <= 70, true)
})

test('what is not cached', async (t) => {
  const { app, cache } = await withCache()
  app.get('/small', async () => big(10))
  app.get('/huge', async () => big(70_000))
  app.get('/missing', async (_request, reply) => reply.code(404).send(big(5000)))
  app.get('/stream', async (_request, reply) =>
    reply.type('text/plain').send(Readable.from(['y'.repeat(5000)])),
  )
  app.get('/encoded', async (_request, reply) =>
    reply.header('content-encoding', 'identity').send(big(5000)),
  )
  app.get('/ranged', async (_request, reply) =>
    reply.header('content-range', 'bytes 0-1/2').send(big(5000)),
  )
  app.get('/off', { compress: false }, async () => big(5000))
  app.get('/own-hooks', { onSend: (_r, _p, payload, done) => done(null, payload) }, async () =>
    big(5000, 'o'),
  )
  const gzip = { 'accept-encoding': 'gzip' }
  for (const url of ['/small', '/huge', '/missing', '/stream', '/encoded', '/ranged', '/off']) {
    await app.inject({ url, headers: gzip })
  }
  await app.inject({ url: '/own-hooks', headers: { 'accept-encoding': 'identity' } })
  await app.inject({ url: '/own-hooks' })
  await app.inject({ url: '/own-hooks', headers: { ...gzip, 'x-no-compression': '1' } })
  await app.inject({
    url: '/own-hooks',
    headers: { 'accept-encoding': `gzip;q=1, ${'x'.repeat(MAX_CACHED_ACCEPT_ENCODING)}` },
  })
  t.same(cache.size(), { entries: 0, bytes: 0 })
  t.equal((await app.inject({ url: '/own-hooks', headers: gzip })).statusCode, 200)
  t.equal(cache.size().entries, 1, 'a route with its own onSend hook is cached too')
})

test('what compression leaves alone: no Accept-Encoding, small bodies, 204, 206, refused codings', async (t) => {
  const { app } = await withCache()
  app.get('/page', async () => big(5000))
  app.get('/small', async () => big(10))
  app.get('/empty', async (_request, reply) => reply.code(204).send())
  app.get<{ Params: { status: string } }>('/status/:status', async (request, reply) =>
    reply.code(Number(request.params.status)).send(big(5000)),
  )
  app.get('/image', async (_request, reply) => reply.type('image/png').send(Buffer.alloc(5000)))
  app.get('/svg', async (_request, reply) =>
    reply.type('image/svg+xml').send(`<svg>${'x'.repeat(5000)}</svg>`),
  )
  app.get('/script', async (_request, reply) =>
    reply.type('application/javascript').send('x'.repeat(5000)),
  )
  const plain = await app.inject('/page')
  t.equal(plain.headers['content-encoding'], undefined)
  t.same(plain.json(), big(5000))
  const small = await app.inject({ url: '/small', headers: { 'accept-encoding': 'gzip' } })
  t.equal(small.headers['content-encoding'], undefined)
  t.same(small.json(), big(10))
  const refused = await app.inject({
    url: '/page',
    headers: { 'accept-encoding': 'gzip;q=0, identity' },
  })
  t.equal(refused.headers['content-encoding'], undefined, 'nothing offered is acceptable')
  const wildcard = await app.inject({ url: '/page', headers: { 'accept-encoding': 'gzip;q=0, *' } })
  t.equal(wildcard.headers['content-encoding'], 'br', '* stands for the codings not named')
  const alias = await app.inject({ url: '/page', headers: { 'accept-encoding': 'X-GZIP' } })
  t.equal(alias.headers['content-encoding'], 'gzip', 'x-gzip is gzip, names in any case')
  const empty = await app.inject({ url: '/empty', headers: { 'accept-encoding': 'gzip' } })
  t.equal(empty.statusCode, 204)
  t.equal(empty.headers['content-encoding'], undefined)
  for (const status of [204, 206, 304]) {
    const bodied = await app.inject({
      url: `/status/${status}`,
      headers: { 'accept-encoding': 'gzip' },
    })
    t.equal(bodied.statusCode, status)
    t.equal(
      bodied.headers['content-encoding'],
      undefined,
      `a ${status} with a body is not compressed`,
    )
  }
  const image = await app.inject({ url: '/image', headers: { 'accept-encoding': 'gzip' } })
  t.equal(image.headers['content-encoding'], undefined, 'an image is not compressible')
  const svg = await app.inject({ url: '/svg', headers: { 'accept-encoding': 'gzip' } })
  t.equal(svg.headers['content-encoding'], 'gzip', '+xml is')
  const script = await app.inject({ url: '/script', headers: { 'accept-encoding': 'gzip' } })
  t.equal(script.headers['content-encoding'], 'gzip', 'mime-db says JavaScript is')
})

test('a web stream and a large body stream through the compressor', async (t) => {
  const { app } = await withCache()
  app.get('/web', async (_request, reply) =>
    reply.type('text/plain').send(Readable.toWeb(Readable.from(['w'.repeat(5000)]))),
  )
  app.get('/large', async () => big(70_000, 'l'))
  const web = await app.inject({ url: '/web', headers: { 'accept-encoding': 'gzip' } })
  t.equal(web.headers['content-encoding'], 'gzip')
  t.equal(web.headers['content-length'], undefined)
  t.equal(gunzipSync(web.rawPayload).toString(), 'w'.repeat(5000))
  const large = await app.inject({ url: '/large', headers: { 'accept-encoding': 'gzip' } })
  t.equal(large.headers['content-encoding'], 'gzip')
  t.same(JSON.parse(gunzipSync(large.rawPayload).toString()), big(70_000, 'l'))
})

test("a route's own compress settings: restwell's, checked at registration", async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellCompress)
  app.get('/br', { compress: { encodings: ['br'], threshold: 10 } }, async () => big(100))
  app.get('/off', { compress: false }, async () => big(5000))
  const br = await app.inject({ url: '/br', headers: { 'accept-encoding': 'gzip, br' } })
  t.equal(br.headers['content-encoding'], 'br')
  const off = await app.inject({ url: '/off', headers: { 'accept-encoding': 'gzip' } })
  t.equal(off.headers['content-encoding'], undefined)
  const bad = Fastify()
  apps.push(bad)
  await bad.register(restwellCompress)
  t.throws(
    () => bad.get('/own', { compress: { onUnsupportedEncoding: () => 'no' } as object }, () => 'x'),
    /compress of GET \/own\): option "onUnsupportedEncoding"/,
    'the route and the option are named when the route is added',
  )
})

test('least recently used entries go once the bytes are spent; an oversize body is never kept', async (t) => {
  const { app, cache } = await withCache(60)
  app.get('/a', async () => big(5000, 'a'))
  app.get('/b', async () => big(5000, 'b'))
  app.get('/random', async () => ({ text: crypto.getRandomValues(new Uint8Array(3000)).join() }))
  const gzip = { 'accept-encoding': 'gzip' }
  await app.inject({ url: '/a', headers: gzip })
  t.equal(cache.size().entries, 1)
  await app.inject({ url: '/a', headers: gzip })
  await app.inject({ url: '/b', headers: gzip })
  t.equal(cache.size().entries, 1, 'a evicted for b')
  t.ok(cache.size().bytes <= 60)
  const before = cache.size()
  const random = await app.inject({ url: '/random', headers: gzip })
  t.equal(random.headers['content-encoding'], 'gzip')
  t.ok(random.rawPayload.length > 60)
  t.same(cache.size(), before, 'a body over the whole budget is not kept')
})

test('with @restwell/conditional: cached and uncached answers are the same, 304 still comes first', async (t) => {
  const build = async (cacheBytes?: number) => {
    const app = Fastify()
    apps.push(app)
    await app.register(restwellConditional)
    await app.register(restwellCompress, cacheBytes === undefined ? {} : { cacheBytes })
    app.get('/items', async () =>
      Array.from({ length: 40 }, (_, id) => ({ id, title: `Item ${id} ${'t'.repeat(40)}` })),
    )
    return app
  }
  const cached = await build()
  const plain = await build(0)
  const gzip = { 'accept-encoding': 'gzip, br' }
  const answers = async (app: FastifyInstance) => {
    const out = []
    for (let i = 0; i < 3; i++)
      out.push(comparable(await app.inject({ url: '/items', headers: gzip })))
    return out
  }
  const a = await answers(cached)
  const b = await answers(plain)
  t.same(a, b)
  t.equal(a[0]!.headers['content-encoding'], 'gzip')
  t.match(a[0]!.headers.etag, /-gzip"$/)
  const etag = String(a[0]!.headers.etag)
  const notModified = await cached.inject({
    url: '/items',
    headers: { ...gzip, 'if-none-match': etag },
  })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.rawPayload.length, 0)
})

test('a web Response from the handler is still sent, with or without Accept-Encoding', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellCompress)
  app.get(
    '/fetched',
    async () =>
      new Response(JSON.stringify(big(5000)), {
        headers: { 'content-type': 'application/json' },
      }),
  )
  const plain = await app.inject('/fetched')
  t.equal(plain.statusCode, 200)
  t.same(plain.json(), big(5000))
  const gzip = await app.inject({ url: '/fetched', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzip.statusCode, 200)
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.same(JSON.parse(gunzipSync(gzip.rawPayload).toString()), big(5000))
})

test('a web Response of a type not worth compressing is sent as it is', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellCompress)
  const png = Buffer.alloc(5000, 7)
  app.get('/image', async () => new Response(png, { headers: { 'content-type': 'image/png' } }))
  const res = await app.inject({ url: '/image', headers: { 'accept-encoding': 'gzip' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], undefined)
  t.same(res.rawPayload, png)
})

test('a streamed body that fails while compressed is cut, and the failure logged', async (t) => {
  const lines: string[] = []
  const app = Fastify({
    logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } },
  })
  apps.push(app)
  const store = bodyCache(0)
  declareCompressionState(app)
  app.addHook('onRoute', (route) => {
    const steps = routeCompression(store, {
      threshold: 1,
      syncThreshold: 65_536,
      encodings: ['gzip'],
      gzipLevel: 6,
      brotliQuality: 4,
      cacheBytes: 0,
    })
    route.onSend = [...asList(route.onSend), sendHook('restwellCompress', [compressStep(steps)])]
  })
  app.get('/failing', async (_request, reply) =>
    reply.type('text/plain').send(
      new Readable({
        read() {
          this.destroy(new Error('disk gone'))
        },
      }),
    ),
  )
  // A payload no step knows (a route hook of its own made it) is left to Fastify, which refuses it.
  app.get(
    '/odd',
    {
      onSend: [(_request, _reply, _payload, done) => done(null, 42 as unknown as string), ...[]],
    },
    async () => 'x',
  )
  await app.inject({ url: '/failing', headers: { 'accept-encoding': 'gzip' } }).catch(() => {})
  t.ok(
    lines.some((line) => /compression of a streamed body failed/.test(line)),
    'the failure is logged',
  )
  const odd = await app.inject({ url: '/odd', headers: { 'accept-encoding': 'gzip' } })
  t.equal(odd.statusCode, 500)
  t.equal(odd.headers['content-encoding'], undefined)
})

test('every coding, in one call or streamed; Buffers and bodiless or untyped Responses', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellCompress, { encodings: ['deflate', 'br'] })
  const text = 't'.repeat(5000)
  app.get('/small', async () => ({ text }))
  app.get('/large', async () => big(70_000, 'l'))
  app.get('/buffer', async (_request, reply) => reply.type('text/plain').send(Buffer.from(text)))
  app.get('/empty', async () => new Response(null, { status: 202 }))
  app.get(
    '/untyped',
    async () => new Response(Readable.toWeb(Readable.from([text])) as ReadableStream),
  )
  const decode = { deflate: inflateSync, br: brotliDecompressSync }
  for (const coding of ['deflate', 'br'] as const) {
    const headers = { 'accept-encoding': coding }
    const small = await app.inject({ url: '/small', headers })
    t.equal(small.headers['content-encoding'], coding)
    t.same(JSON.parse(decode[coding](small.rawPayload).toString()), { text })
    const large = await app.inject({ url: '/large', headers })
    t.equal(large.headers['content-encoding'], coding, `${coding}, streamed`)
    t.same(JSON.parse(decode[coding](large.rawPayload).toString()), big(70_000, 'l'))
  }
  const buffer = await app.inject({ url: '/buffer', headers: { 'accept-encoding': 'br' } })
  t.equal(brotliDecompressSync(buffer.rawPayload).toString(), text)
  const empty = await app.inject({ url: '/empty', headers: { 'accept-encoding': 'br' } })
  t.equal(empty.statusCode, 202)
  t.equal(empty.headers['content-encoding'], undefined)
  const untyped = await app.inject({ url: '/untyped', headers: { 'accept-encoding': 'br' } })
  t.equal(untyped.headers['content-encoding'], 'br', 'no Content-Type: taken as JSON')
  t.equal(brotliDecompressSync(untyped.rawPayload).toString(), text)
})

test('a route with compress: false still decodes its request bodies', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellCompress)
  app.post('/books', { compress: false }, async (request) => ({ got: request.body, ...big(5000) }))
  const res = await app.inject({
    method: 'POST',
    url: '/books',
    headers: {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'accept-encoding': 'gzip',
    },
    payload: gzipSync(JSON.stringify({ title: 'Dune' })),
  })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], undefined, 'the answer is not compressed')
  t.same(res.json().got, { title: 'Dune' }, 'the body was decoded')
})

test('alone beside @fastify/compress, ready() fails: a body would be compressed twice', async (t) => {
  const app = Fastify()
  apps.push(app)
  await app.register(restwellCompress)
  await app.register(fastifyCompress)
  await t.rejects(async () => app.ready(), {
    name: 'RegistrationError',
    message: /^@restwell\/compress: @fastify\/compress is registered too, .*remove one of them/,
  })
})

test('the convention says a request body may come in a coding (CORS allows Content-Encoding)', async (t) => {
  t.same(compress.contributes?.(resolveCompression({})), { requestHeaders: ['content-encoding'] })
})

test('a QUERY keys its compressed bodies by its content too (RFC 10008 §2)', async (t) => {
  const { app, cache } = await withCache()
  // The same bytes for two queries: each gets an entry of its own.
  app.route({ method: 'QUERY', url: '/search', handler: async () => big(5000, 'q') })
  // A digest from item versions already holds the content: a QUERY hit serializes nothing.
  let serialized = 0
  app.route({
    method: 'QUERY',
    url: '/items',
    preHandler: itemsDigest('q1'),
    handler: async (_request, reply) => {
      reply.serializer((data: unknown) => {
        serialized++
        return JSON.stringify(data)
      })
      return reply.type('application/vnd.items+json').send(big(5000, 'i'))
    },
  })
  const ask = (q: string) =>
    app.inject({
      method: 'QUERY',
      url: '/search',
      payload: { q },
      headers: { 'accept-encoding': 'gzip' },
    })
  const a = await ask('a')
  const again = await ask('a')
  t.same(again.rawPayload, a.rawPayload)
  t.equal(cache.size().entries, 1, 'the same query: one entry')
  await ask('b')
  t.equal(cache.size().entries, 2, 'another query: another entry')
  const items = () =>
    app.inject({
      method: 'QUERY',
      url: '/items',
      payload: {},
      headers: { 'accept-encoding': 'gzip' },
    })
  const first = await items()
  const second = await items()
  t.equal(serialized, 1, 'the second was answered before serialization')
  t.same(second.rawPayload, first.rawPayload)
})
