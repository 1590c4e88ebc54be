/**
 * Request bodies in a content coding, decoded with node:zlib (`requestDecoder`): the codings,
 * the 415 and 400, the body limit on decoded bytes, the route options, and the same answers as
 * `@fastify/compress`'s request decoding configured as restwell configured it.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import fastifyCompress from '@fastify/compress'
import { parsingHook } from '@restwell/core/internal'
import restwellErrors, { createError, ErrorCode, httpErrors, OptionsError } from '@restwell/errors'
import Fastify, {
  type FastifyInstance,
  type onRouteHookHandler,
  type preParsingHookHandler,
} from 'fastify'
import tap, { test } from 'tap'
import { REQUEST_CODINGS, requestDecoder } from '../src/decompress.js'

/** The decoder put first among a route's `preParsing` hooks, where the pipeline runs it. */
const decompressRequests: onRouteHookHandler = (route) => {
  const decode = requestDecoder(route, '@restwell/compress')
  if (decode !== undefined) {
    route.preParsing = [parsingHook('decode', [decode]), ...[route.preParsing ?? []].flat()]
  }
}

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const echo = async (request: { body: unknown; headers: Record<string, unknown> }) => ({
  got: request.body ?? null,
  coding: request.headers['content-encoding'] ?? null,
})

/** The routes every app here has, after `setup` added what decodes bodies. */
async function app(
  setup: (app: FastifyInstance) => Promise<void> | void = (a) => {
    a.addHook('onRoute', decompressRequests)
  },
  bodyLimit?: number,
): Promise<FastifyInstance> {
  const made = Fastify(bodyLimit === undefined ? {} : { bodyLimit })
  apps.push(made)
  await made.register(restwellErrors)
  await setup(made)
  made.post('/books', echo)
  made.get('/books', echo)
  made.route({ method: ['GET', 'POST'], url: '/both', handler: echo })
  made.post('/raw', { decompress: false }, echo)
  made.post('/gzip-only', { decompress: { requestEncodings: ['gzip'] } }, echo)
  made.post('/forced', { decompress: { forceRequestEncoding: 'gzip' } }, echo)
  made.get('/forced', { decompress: { forceRequestEncoding: 'gzip' } }, echo)
  await made.ready()
  return made
}

const JSON_BODY = JSON.stringify({ title: 'Dune' })
const ENCODE: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
}

function post(target: FastifyInstance, url: string, coding: string | undefined, payload: Buffer) {
  return target.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      ...(coding === undefined ? {} : { 'content-encoding': coding }),
    },
    payload,
  })
}

test('gzip, deflate and br bodies are decoded; no coding and identity pass as they are', async (t) => {
  const target = await app()
  for (const [coding, encode] of Object.entries(ENCODE)) {
    const res = await post(target, '/books', coding, encode(Buffer.from(JSON_BODY)))
    t.same(res.json(), { got: { title: 'Dune' }, coding }, coding)
  }
  for (const coding of [undefined, 'identity', '']) {
    const res = await post(target, '/books', coding, Buffer.from(JSON_BODY))
    t.same(res.json().got, { title: 'Dune' }, `Content-Encoding: ${JSON.stringify(coding)}`)
  }
  t.same(REQUEST_CODINGS.slice(-3), ['br', 'gzip', 'deflate'], 'zstd first where Node has it')
})

test('codings are case-insensitive and x-gzip is gzip; the handler sees the canonical name', async (t) => {
  const target = await app()
  const payload = gzipSync(JSON_BODY)
  for (const coding of ['GZIP', ' Gzip ', 'x-gzip', 'X-GZIP']) {
    const res = await post(target, '/books', coding, payload)
    t.same(res.json(), { got: { title: 'Dune' }, coding: 'gzip' }, coding)
  }
})

test('415 for a coding not decoded, naming those that are; 400 for bytes that do not decode', async (t) => {
  const target = await app()
  const unknown = await post(target, '/books', 'x-unknown', Buffer.from('{}'))
  t.equal(unknown.statusCode, 415)
  t.equal(unknown.json().error.code, ErrorCode.UNSUPPORTED_CONTENT_ENCODING)
  t.equal(unknown.headers['accept-encoding'], REQUEST_CODINGS.join(', '))
  t.match(unknown.json().error.message, /Content-Encoding "x-unknown" is not supported/)

  const list = await post(target, '/books', 'gzip, br', Buffer.from('{}'))
  t.equal(list.statusCode, 415, 'two codings at once are not decoded')

  const bad = await post(target, '/books', 'gzip', Buffer.from('not gzip'))
  t.equal(bad.statusCode, 400)
  t.same(bad.json().error.code, 'BAD_REQUEST')
  t.equal(
    bad.json().error.message,
    'Could not decompress the request payload using the provided encoding',
  )
})

test('bodyLimit applies to the decoded bytes; Content-Length to the bytes received', async (t) => {
  const target = await app(undefined, 1000)
  const bomb = gzipSync(JSON.stringify({ pad: '0'.repeat(10_000) }))
  t.ok(bomb.length < 1000, 'the encoded body is under the limit')
  const res = await post(target, '/books', 'gzip', bomb)
  t.equal(res.statusCode, 413, 'its decoded bytes are over it')
  // inject sends the encoded length: a decoded body of another length is still accepted.
  const ok = await post(
    target,
    '/books',
    'gzip',
    gzipSync(JSON.stringify({ pad: '0'.repeat(500) })),
  )
  t.equal(ok.statusCode, 200)
})

test('route options: bodyless routes, false, requestEncodings, forceRequestEncoding', async (t) => {
  const target = await app()
  const payload = gzipSync(JSON_BODY)
  const got = await target.inject({
    method: 'GET',
    url: '/books',
    headers: { 'content-encoding': 'x-unknown' },
  })
  t.same(got.json(), { got: null, coding: 'x-unknown' }, 'a GET route decodes nothing')
  const both = await post(target, '/both', 'gzip', payload)
  t.same(both.json().got, { title: 'Dune' }, 'a route with a body method decodes')
  const raw = await post(target, '/raw', 'gzip', payload)
  t.equal(raw.statusCode, 400, 'decompress: false: the coded bytes reach the JSON parser')
  t.equal(raw.json().error.code, ErrorCode.MALFORMED_JSON)

  const br = await post(target, '/gzip-only', 'br', brotliCompressSync(JSON_BODY))
  t.equal(br.statusCode, 415, 'requestEncodings: a coding not listed')
  t.equal(br.headers['accept-encoding'], 'gzip', 'the 415 names the route’s codings')
  t.equal((await post(target, '/gzip-only', 'identity', Buffer.from(JSON_BODY))).statusCode, 415)
  t.equal((await post(target, '/gzip-only', undefined, Buffer.from(JSON_BODY))).statusCode, 200)
  t.equal((await post(target, '/gzip-only', 'gzip', payload)).statusCode, 200)

  const forced = await post(target, '/forced', undefined, payload)
  t.same(forced.json().got, { title: 'Dune' }, 'forceRequestEncoding: decoded without a header')
  const getForced = await target.inject({ method: 'GET', url: '/forced' })
  t.equal(getForced.statusCode, 200, 'a GET route with its own decompress option keeps the hook')
})

test('onUnsupportedRequestEncoding and onInvalidRequestPayload; a hook that throws is ignored', async (t) => {
  const target = Fastify()
  apps.push(target)
  await target.register(restwellErrors)
  target.addHook('onRoute', decompressRequests)
  const teapot = () => createError(418, 'no such coding here')
  target.post('/own', { decompress: { onUnsupportedRequestEncoding: teapot } }, echo)
  const throwing = () => {
    throw new Error('hook failed')
  }
  target.post('/throws', { decompress: { onUnsupportedRequestEncoding: throwing } }, echo)
  // Merged into the decoder's error, as @fastify/compress does: its own enumerable fields.
  const invalid = (encoding: string, _request: unknown, error: Error) =>
    Object.assign(new Error(), { statusCode: 422, message: `bad ${encoding}: ${error.message}` })
  target.post('/invalid', { decompress: { onInvalidRequestPayload: invalid } }, echo)
  target.post('/invalid-throws', { decompress: { onInvalidRequestPayload: throwing } }, echo)
  await target.ready()

  const own = await post(target, '/own', 'x-unknown', Buffer.from('{}'))
  t.equal(own.statusCode, 418)
  const thrown = await post(target, '/throws', 'x-unknown', Buffer.from('{}'))
  t.equal(thrown.statusCode, 415, 'the default 415 when the hook throws')
  const bad = await post(target, '/invalid', 'gzip', Buffer.from('not gzip'))
  t.equal(bad.statusCode, 422)
  t.match(bad.json().error.message, /^bad gzip: /)
  const badDefault = await post(target, '/invalid-throws', 'gzip', Buffer.from('not gzip'))
  t.equal(badDefault.statusCode, 400)
})

test('a route decompress option that is not false or known settings is refused at registration', async (t) => {
  for (const [decompress, pattern] of [
    [true, /decompress of POST \/x\): option "\(options\)" must be an object/],
    [{ zlib: {} }, /option "zlib" is not known/],
    [{ requestEncodings: ['compress'] }, /option "requestEncodings.0" must be one of/],
    [{ requestEncodings: [] }, /option "requestEncodings" must be a non-empty array/],
  ] as const) {
    const target = Fastify()
    target.addHook('onRoute', decompressRequests)
    let thrown: unknown
    try {
      target.post('/x', { decompress } as never, echo)
    } catch (error) {
      thrown = error
    }
    t.ok(thrown instanceof OptionsError, JSON.stringify(decompress))
    t.match((thrown as Error).message, pattern)
  }
})

test('the same answers as @fastify/compress configured as restwell configured it', async (t) => {
  // The coding normalized first (restwell's hook before the plugin's), a 415 naming the codings.
  const normalize: preParsingHookHandler = (request, _reply, payload, done) => {
    const coding = request.headers['content-encoding']
    if (coding !== undefined && !['identity', ...REQUEST_CODINGS].includes(coding)) {
      const lower = coding.trim().toLowerCase()
      request.headers['content-encoding'] = lower === 'x-gzip' ? 'gzip' : lower
    }
    done(null, payload)
  }
  const reference = await app(async (a) => {
    a.addHook('onRoute', (route) => {
      if (route.decompress === undefined && [route.method].flat().every((m) => m === 'GET')) {
        route.decompress = false
      }
    })
    await a.register(fastifyCompress, {
      globalCompression: false,
      onUnsupportedRequestEncoding: (encoding) =>
        httpErrors.unsupportedMediaType(
          `The request body's Content-Encoding ${JSON.stringify(encoding.slice(0, 64))} is not supported`,
          {
            code: ErrorCode.UNSUPPORTED_CONTENT_ENCODING,
            headers: { 'accept-encoding': REQUEST_CODINGS.join(', ') },
          },
        ),
    })
    a.addHook('onRoute', (route) => {
      if (route.decompress !== false)
        route.preParsing = [normalize, ...[route.preParsing ?? []].flat()]
    })
  })
  const ours = await app()
  const gzip = gzipSync(JSON_BODY)
  const cases: [string, string | undefined, Buffer][] = [
    ['/books', 'gzip', gzip],
    ['/books', 'deflate', deflateSync(JSON_BODY)],
    ['/books', 'br', brotliCompressSync(JSON_BODY)],
    ['/books', 'X-Gzip', gzip],
    ['/books', undefined, Buffer.from(JSON_BODY)],
    ['/books', 'identity', Buffer.from(JSON_BODY)],
    ['/books', 'IDENTITY', Buffer.from(JSON_BODY)],
    ['/books', 'compress', Buffer.from(JSON_BODY)],
    ['/books', 'gzip', Buffer.from('not gzip')],
    ['/books', 'gzip', gzip.subarray(0, 10)],
    ['/books', 'br', Buffer.from('x')],
    ['/books', 'gzip', gzipSync('')],
    ['/books', 'gzip', gzipSync('{"a":')],
    ['/both', 'gzip', gzip],
    ['/raw', 'gzip', gzip],
    ['/forced', undefined, gzip],
    ['/forced', 'gzip', gzip],
  ]
  const view = async (
    target: FastifyInstance,
    ...request: [string, string | undefined, Buffer]
  ) => {
    const res = await post(target, ...request)
    return {
      status: res.statusCode,
      // the time of the answer aside
      body: JSON.parse(res.body.replace(/"timestamp":"[^"]*"/, '"timestamp":""')) as unknown,
      acceptEncoding: res.headers['accept-encoding'],
    }
  }
  for (const request of cases) {
    t.same(
      await view(ours, ...request),
      await view(reference, ...request),
      `${request[0]} ${request[1]}`,
    )
  }
})
