import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import { bodyBytesOf } from '@restwell/core'
import restwellErrors from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { ACCEPT_CACHE_SIZE } from '../src/accept.js'
import { type MultipartFile, type NegotiationOptions, restwellNegotiation } from '../src/index.js'
import { addParserUnlessPresent, utf8JsonParser } from '../src/bodies.js'
import { multipartError } from '../src/multipart.js'

const FORM = 'application/x-www-form-urlencoded'
const MULTIPART = 'multipart/form-data'
/** A route that takes JSON and both form types. */
const FORMS = { negotiation: { consumes: ['application/json', FORM, MULTIPART] } }

/** An app whose POST /books declares `config` (forms by default). */
async function build(
  options: NegotiationOptions = { multipart: true },
  config: object = FORMS,
): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellNegotiation, options)
  app.post('/books', { config }, async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(body)) {
      const file = value as MultipartFile
      out[key] = Buffer.isBuffer(file?.data) ? { ...file, data: file.data.toString() } : value
    }
    return out
  })
  return app
}

function form(parts: { name: string; value: string; filename?: string; type?: string }[]): {
  payload: string
  headers: Record<string, string>
} {
  const boundary = 'restwellBoundary'
  let payload = ''
  for (const part of parts) {
    payload += `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`
    if (part.filename !== undefined) payload += `; filename="${part.filename}"`
    payload += '\r\n'
    if (part.type !== undefined) payload += `Content-Type: ${part.type}\r\n`
    payload += `\r\n${part.value}\r\n`
  }
  payload += `--${boundary}--\r\n`
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

test('JSON and form-urlencoded bodies', async (t) => {
  const app = await build()
  const json = await app.inject({ method: 'POST', url: '/books', payload: { title: 'A' } })
  t.same(json.json(), { title: 'A' })
  const urlencoded = await app.inject({
    method: 'POST',
    url: '/books',
    payload: 'title=Dune&tag=a&tag=b',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
  })
  t.same(urlencoded.json(), { title: 'Dune', tag: ['a', 'b'] })
})

test('multipart: fields and files with name and filename', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'POST',
    url: '/books',
    ...form([
      { name: 'title', value: 'Dune' },
      { name: 'tag', value: 'a' },
      { name: 'tag', value: 'b' },
      { name: 'tag', value: 'c' },
      { name: 'cover', value: 'PNGDATA', filename: 'cover.png', type: 'image/png' },
    ]),
  })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    title: 'Dune',
    tag: ['a', 'b', 'c'],
    cover: { filename: 'cover.png', mimetype: 'image/png', encoding: '7bit', data: 'PNGDATA' },
  })
})

test('multipart size limits are 413 in the error form; a bad body is 400', async (t) => {
  const app = await build({ multipart: { limits: { fileSize: 4, fieldSize: 5, files: 1 } } })
  const file = await app.inject({
    method: 'POST',
    url: '/books',
    ...form([{ name: 'cover', value: 'too large', filename: 'c.txt' }]),
  })
  t.equal(file.statusCode, 413)
  t.equal(file.json().error.code, 'MULTIPART_LIMIT')
  const field = await app.inject({
    method: 'POST',
    url: '/books',
    ...form([{ name: 'title', value: 'a long title' }]),
  })
  t.equal(field.statusCode, 413)
  t.equal(field.json().error.details[0].field, 'body/title')
  const files = await app.inject({
    method: 'POST',
    url: '/books',
    ...form([
      { name: 'a', value: 'x', filename: 'a' },
      { name: 'b', value: 'y', filename: 'b' },
    ]),
  })
  t.equal(files.statusCode, 413)
  const broken = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '--restwellBoundary\r\nContent-Disposition: form-data; name="a"\r\n\r\nx',
    headers: { 'content-type': 'multipart/form-data; boundary=restwellBoundary' },
  })
  t.equal(broken.statusCode, 400)
  t.equal(broken.json().error.code, 'MALFORMED_MULTIPART')
  const proto = await app.inject({
    method: 'POST',
    url: '/books',
    ...form([{ name: '__proto__', value: 'x' }]),
  })
  t.equal(proto.statusCode, 400)
})

test('multipartError keeps HttpErrors and maps anything else', async (t) => {
  const limit = multipartError(
    Object.assign(new Error('reach parts limit'), { code: 'FST_PARTS_LIMIT' }),
  )
  t.equal(limit.statusCode, 413)
  t.equal(multipartError('weird').statusCode, 400)
  t.equal(multipartError(null).message, 'Malformed multipart body: Malformed multipart body')
  t.equal(multipartError(limit), limit)
})

test('multipart attachBody: false leaves the parts to the handler (limits still 413)', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellNegotiation, {
    multipart: { attachBody: false, limits: { fileSize: 3 } },
  })
  app.post('/upload', { config: FORMS }, async (request) => {
    const file = await request.file()
    return { name: file?.filename, size: (await file!.toBuffer()).length }
  })
  const ok = await app.inject({
    method: 'POST',
    url: '/upload',
    ...form([{ name: 'f', value: 'abc', filename: 'f.txt' }]),
  })
  t.same(ok.json(), { name: 'f.txt', size: 3 })
  const big = await app.inject({
    method: 'POST',
    url: '/upload',
    ...form([{ name: 'f', value: 'abcd', filename: 'f.txt' }]),
  })
  t.equal(big.statusCode, 413)
  t.equal(big.json().error.code, 'PAYLOAD_TOO_LARGE')
})

test('Content-Type values get the same answer when remembered, past the bound', async (t) => {
  const app = await build()
  // Three times the bound, each value sent twice: a supported type (200), an unsupported one
  // (415) and a malformed one (400), all distinct.
  const values = Array.from({ length: 3 * ACCEPT_CACHE_SIZE }, (_, i) =>
    i % 3 === 0 ? `application/json; v=${i}` : i % 3 === 1 ? `text/x-${i}` : `json${i}`,
  )
  const statuses = async () => {
    const out: number[] = []
    for (const type of values) {
      const res = await app.inject({
        method: 'POST',
        url: '/books',
        payload: '{}',
        headers: { 'content-type': type },
      })
      out.push(res.statusCode)
    }
    return out
  }
  const expected = values.map((_, i) => [200, 415, 400][i % 3])
  t.same(await statuses(), expected)
  t.same(await statuses(), expected, 'the second time, from the memo')
})

test('415 for an unsupported Content-Type, listing what the route accepts', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'POST',
    url: '/books',
    payload: 'x',
    headers: { 'content-type': 'text/plain' },
  })
  t.equal(res.statusCode, 415)
  t.equal(res.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
  t.equal(
    res.headers.accept,
    'application/json, application/x-www-form-urlencoded, multipart/form-data',
  )
  const none = await app.inject({
    method: 'POST',
    url: '/books',
    payload: 'x',
    headers: { 'content-type': '' },
  })
  t.equal(none.statusCode, 415)
  const malformed = await app.inject({
    method: 'POST',
    url: '/books',
    payload: 'x',
    headers: { 'content-type': 'json' },
  })
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().error.details[0].field, 'headers/content-type')
  const latin = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{}',
    headers: { 'content-type': 'application/json; charset=iso-8859-1' },
  })
  t.equal(latin.statusCode, 415)
  const utf8 = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{}',
    headers: { 'content-type': 'application/json; charset=utf8' },
  })
  t.equal(utf8.statusCode, 200)
  const chunked = await app.inject({
    method: 'POST',
    url: '/books',
    payload: 'x',
    headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' },
  })
  t.equal(chunked.statusCode, 415)
  const empty = await app.inject({
    method: 'POST',
    url: '/books',
    headers: { 'content-type': 'text/plain', 'content-length': '0' },
  })
  t.equal(empty.statusCode, 200, 'no body: nothing to check')
})

test('a JSON:API body: profile accepted, any other parameter 415 (JSON:API 1.1)', async (t) => {
  const app = await build()
  app.addContentTypeParser(
    'application/vnd.api+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  )
  app.post(
    '/api',
    { config: { negotiation: { consumes: ['application/vnd.api+json'] } } },
    async (request) => request.body,
  )
  const post = (type: string) =>
    app.inject({
      method: 'POST',
      url: '/api',
      payload: '{"data":{"type":"books"}}',
      headers: { 'content-type': type },
    })
  for (const type of ['application/vnd.api+json', 'application/vnd.api+json; profile="p"']) {
    const res = await post(type)
    t.equal(res.statusCode, 200, type)
    t.same(res.json(), { data: { type: 'books' } }, type)
  }
  for (const [type, parameter] of [
    ['application/vnd.api+json; charset=utf-8', 'charset'],
    ['application/vnd.api+json; ext="https://example.com/e"', 'ext'],
  ] as const) {
    const res = await post(type)
    t.equal(res.statusCode, 415, type)
    t.equal(res.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
    t.match(res.json().error.message, `"${parameter}" parameter`)
    t.equal(res.headers.accept, 'application/vnd.api+json')
  }
})

test('consumes per route and plugin; PATCH and GET are not checked unless set', async (t) => {
  const app = await build({ formbody: false, multipart: false }, {})
  app.put('/csv', { config: { negotiation: { consumes: ['text/CSV'] } } }, async (request) => ({
    got: request.body,
  }))
  app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  )
  app.patch('/books/1', async () => ({ patched: true }))
  app.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    (_request, body, done) => done(null, body),
  )
  app.get(
    '/search',
    { config: { negotiation: { consumes: ['application/json'] } } },
    async () => ({}),
  )
  const csv = await app.inject({
    method: 'PUT',
    url: '/csv',
    payload: 'a,b',
    headers: { 'content-type': 'text/csv' },
  })
  t.same(csv.json(), { got: 'a,b' })
  const json = await app.inject({ method: 'PUT', url: '/csv', payload: {} })
  t.equal(json.statusCode, 415)
  t.equal(json.headers.accept, 'text/csv')
  const form415 = await app.inject({
    method: 'POST',
    url: '/books',
    payload: 'a=1',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  t.equal(form415.statusCode, 415, 'formbody off: not consumed')
  t.equal(form415.headers.accept, 'application/json')
  const patch = await app.inject({
    method: 'PATCH',
    url: '/books/1',
    payload: '{}',
    headers: { 'content-type': 'application/merge-patch+json' },
  })
  t.equal(patch.statusCode, 200)
  const get = await app.inject({
    method: 'GET',
    url: '/search',
    payload: 'x',
    headers: { 'content-type': 'text/plain' },
  })
  t.equal(get.statusCode, 415, 'route consumes set: checked on any method')
})

test('parsers the app registered already are kept', async (t) => {
  const app = Fastify()
  await app.register(formbody)
  await app.register(multipart)
  await app.register(restwellNegotiation, { formbody: { bodyLimit: 10 } })
  app.post('/x', { config: FORMS }, async (request) => request.body)
  const res = await app.inject({
    method: 'POST',
    url: '/x',
    payload: 'a=123456789012',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  t.equal(res.statusCode, 200, 'our bodyLimit was not applied: the app’s formbody parsed it')
})

test('an app’s own @fastify/multipart registered before is kept, with its limits', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(multipart, { limits: { fieldSize: 3 } })
  await app.register(restwellNegotiation, { multipart: true })
  app.post('/x', { config: FORMS }, async (request) => request.body)
  const small = await app.inject({
    method: 'POST',
    url: '/x',
    ...form([{ name: 'a', value: 'abc' }]),
  })
  t.equal(small.statusCode, 200)
  t.same(small.json(), { a: 'abc' }, 'collected into request.body')
  const large = await app.inject({
    method: 'POST',
    url: '/x',
    ...form([{ name: 'a', value: 'abcd' }]),
  })
  t.equal(large.statusCode, 413, 'the app’s fieldSize applies')
  t.equal(large.json().error.code, 'MULTIPART_LIMIT')
})

test('@fastify/formbody registered after the plugin parses forms instead of failing on its parser', async (t) => {
  /** An app with the plugin (forms limited to 10 bytes), `before` its routes; a form posted. */
  const postForm = async (before?: (app: FastifyInstance) => PromiseLike<unknown>) => {
    const app = Fastify()
    await app.register(restwellNegotiation, { formbody: { bodyLimit: 10 } })
    await before?.(app)
    app.post(
      '/x',
      { config: { negotiation: { consumes: [FORM] } } },
      async (request) => request.body,
    )
    return app.inject({
      method: 'POST',
      url: '/x',
      payload: 'a=123456789012',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    })
  }
  // Without a form parser of the exact type, Fastify would refuse formbody's
  // (FST_ERR_CTP_ALREADY_PRESENT), thrown out of its callback plugin, past `register`.
  const res = await postForm((app) => app.register(formbody))
  t.equal(res.statusCode, 200, 'our bodyLimit was not applied: the app’s formbody parsed it')
  t.same(res.json(), { a: '123456789012' })
  const limited = await postForm()
  t.equal(limited.statusCode, 413, 'alone, the plugin’s own parser reads forms, with its limit')
})

const LATIN1_JSON = Buffer.from('{"name":"Caf\xe9 Author"}', 'latin1')
const INVALID_UTF8 = {
  code: 'INVALID_UTF8',
  message: 'The request body is not valid UTF-8',
  details: [{ field: 'body', message: 'is not valid UTF-8', code: 'INVALID_UTF8' }],
}

test('request bodies that are not UTF-8: 400 INVALID_UTF8, the handler never runs', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellNegotiation)
  let handled = 0
  const handler = async (request: { body: unknown }) => {
    handled++
    return request.body as object
  }
  app.post(
    '/authors',
    { config: { negotiation: { consumes: ['application/json', FORM] } } },
    handler,
  )
  app.post('/raw', { config: { negotiation: false } }, handler)
  const post = (url: string, type: string, payload: Buffer) =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': type } })
  const bad: [string, Buffer][] = [
    ['latin1 é', LATIN1_JSON],
    [
      'truncated sequence',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x22, 0x7d]),
    ],
    ['overlong /', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d])],
    [
      'lone surrogate',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    ],
  ]
  for (const [name, payload] of bad) {
    for (const url of ['/authors', '/raw']) {
      const res = await post(url, 'application/json', payload)
      t.equal(res.statusCode, 400, `${name} ${url}`)
      t.match(res.json().error, INVALID_UTF8, `${name} ${url}`)
    }
  }
  const form = await post(
    '/authors',
    'application/x-www-form-urlencoded',
    Buffer.from('name=Ren\xe9', 'latin1'),
  )
  t.equal(form.statusCode, 400, 'form body')
  t.match(form.json().error, INVALID_UTF8)
  t.equal(handled, 0, 'nothing was handled')

  const json = await post('/authors', 'application/json', Buffer.from('{"name":"Café \uFFFD 😀"}'))
  t.same(json.json(), { name: 'Café \uFFFD 😀' }, 'UTF-8, a U+FFFD sent as such included')
  const bom = await post('/authors', 'application/json', Buffer.from('\uFEFF{"name":"Café"}'))
  t.same(bom.json(), { name: 'Café' }, 'a UTF-8 BOM is read as before')
  const urlencoded = await post(
    '/authors',
    'application/x-www-form-urlencoded',
    Buffer.from('name=René&tag=%C3%A9&tag=%E9'),
  )
  t.same(
    urlencoded.json(),
    { name: 'René', tag: ['é', '%E9'] },
    'an undecodable escape stays as sent',
  )
  t.equal(handled, 3)
})

test('the UTF-8 JSON parser keeps Fastify’s behaviours and the app’s settings', async (t) => {
  const app = Fastify({ bodyLimit: 64 })
  await app.register(restwellErrors)
  await app.register(restwellNegotiation, {
    formbody: { bodyLimit: 8 },
    consumes: ['application/json', FORM],
  })
  app.post('/x', async (request) => request.body as object)
  const post = (payload: string, type = 'application/json') =>
    app.inject({ method: 'POST', url: '/x', payload, headers: { 'content-type': type } })
  t.equal((await post('')).json().error.code, 'EMPTY_BODY')
  t.equal((await post('{"a":')).json().error.code, 'MALFORMED_JSON')
  const proto = await post('{"__proto__":{"admin":true}}')
  t.equal(proto.statusCode, 400, 'proto poisoning refused (onProtoPoisoning: error)')
  const poisoned = await post('{"constructor":{"prototype":{"admin":true}}}')
  t.equal(poisoned.statusCode, 400, 'constructor poisoning refused')
  const big = await post(JSON.stringify({ a: 'x'.repeat(100) }))
  t.equal(big.statusCode, 413, 'the app’s bodyLimit')
  const form = await post('a=123456789', 'application/x-www-form-urlencoded')
  t.equal(form.statusCode, 413, 'formbody’s bodyLimit')
  t.same((await post('a=1', 'application/x-www-form-urlencoded')).json(), { a: '1' })

  const removing = Fastify({ onProtoPoisoning: 'remove', onConstructorPoisoning: 'ignore' })
  await removing.register(restwellNegotiation)
  removing.post('/x', async (request) => ({
    keys: Object.keys(request.body as object),
    admin: ({} as { admin?: boolean }).admin ?? null,
  }))
  const removed = await removing.inject({
    method: 'POST',
    url: '/x',
    payload: '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},"a":1}',
    headers: { 'content-type': 'application/json' },
  })
  t.same(
    removed.json(),
    { keys: ['constructor', 'a'], admin: null },
    'the app’s poisoning settings',
  )
})

test('JSON parsers the app registered or removed itself are kept', async (t) => {
  const own = Fastify()
  own.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, { bytes: body.length }),
  )
  await own.register(restwellNegotiation)
  own.post('/x', async (request) => request.body as object)
  const res = await own.inject({
    method: 'POST',
    url: '/x',
    payload: LATIN1_JSON,
    headers: { 'content-type': 'application/json' },
  })
  t.same(res.json(), { bytes: LATIN1_JSON.length }, 'the app’s parser read it')

  const none = Fastify()
  none.removeContentTypeParser('application/json')
  await none.register(restwellNegotiation, { consumes: ['application/json'] })
  none.post('/x', async () => ({}))
  const unparsed = await none.inject({ method: 'POST', url: '/x', payload: {} })
  t.equal(unparsed.json().code, 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'no JSON parser added back')

  // Routes of a child scope registered later use the checked parser they inherit.
  const scoped = Fastify()
  await scoped.register(restwellNegotiation)
  await scoped.register(async (child) => {
    child.post('/x', async (request) => request.body as object)
  })
  const inner = await scoped.inject({
    method: 'POST',
    url: '/x',
    payload: LATIN1_JSON,
    headers: { 'content-type': 'application/json' },
  })
  t.equal(inner.statusCode, 400)
})

test('addParserUnlessPresent rethrows what is not "already present"', async (t) => {
  const app = Fastify()
  const parser = { bodyLimit: undefined, parser: utf8JsonParser(app, () => undefined) }
  t.throws(() => addParserUnlessPresent(app, '', parser), { code: 'FST_ERR_CTP_EMPTY_TYPE' })
})

test('a JSON body keeps its bytes on the request (BODY_BYTES), as they were sent', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwellNegotiation)
  let kept: Buffer | undefined
  app.post('/books', async (request) => {
    kept = bodyBytesOf(request)
    return request.body
  })
  const payload = '{ "title": "Dune" }'
  const sent = await app.inject({
    method: 'POST',
    url: '/books',
    payload,
    headers: { 'content-type': 'application/json' },
  })
  t.same(sent.json(), { title: 'Dune' })
  t.equal(kept?.toString(), payload, 'the bytes, whitespace and all')
  await app.inject({ method: 'POST', url: '/books' })
  t.equal(kept, undefined, 'a request with no body keeps none')
})
