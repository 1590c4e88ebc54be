import restwellErrors, { type ErrorsOptions, httpErrors } from '@restwell/errors'
import { MEDIA_TYPE } from '@restwell/core/internal'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { ACCEPT_CACHE_SIZE } from '../src/accept.js'
import {
  errorMediaType,
  fromXml,
  jsonApiErrors,
  type NegotiationOptions,
  restwellNegotiation,
} from '../src/index.js'

async function build(
  errors: ErrorsOptions = {},
  options: NegotiationOptions = {},
  errorsFirst = true,
): Promise<FastifyInstance> {
  const app = Fastify()
  if (errorsFirst) await app.register(restwellErrors, errors)
  await app.register(restwellNegotiation, options)
  if (!errorsFirst) await app.register(restwellErrors, errors)
  app.get('/books/:id', async () => {
    throw httpErrors.notFound('No book 7', {
      details: [
        { field: 'params/id', message: 'unknown', code: 'UNKNOWN_ID' },
        { field: 'querystring/x', message: 'bad' },
        { field: 'headers/if-match', message: 'bad' },
        { field: 'body', message: 'bad' },
      ],
    })
  })
  app.get('/plain', async () => {
    throw httpErrors.conflict('taken')
  })
  return app
}

test('an error body goes out as XML to a client that accepts XML but not JSON', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/books/7', headers: { accept: 'application/xml' } })
  t.equal(res.statusCode, 404)
  t.equal(res.headers['content-type'], 'application/xml; charset=utf-8')
  t.equal(res.headers.vary, 'Accept')
  const body = fromXml(res.body) as { code: string; message: string; details: unknown[] }
  t.equal(body.code, 'NOT_FOUND')
  t.equal(body.message, 'No book 7')
  t.equal(body.details.length, 4)
  t.match(res.body, /<error><code>NOT_FOUND<\/code>/)
})

test('the negotiated type wins (?format=xml); JSON clients get JSON', async (t) => {
  const app = await build()
  const viaFormat = await app.inject({
    url: '/plain?format=xml',
    headers: { accept: 'application/json' },
  })
  t.equal(viaFormat.headers['content-type'], 'application/xml; charset=utf-8')
  const json = await app.inject({
    url: '/plain',
    headers: { accept: 'application/xml, application/json' },
  })
  t.equal(json.headers['content-type'], 'application/json; charset=utf-8')
  const star = await app.inject({ url: '/plain', headers: { accept: '*/*' } })
  t.equal(star.headers['content-type'], 'application/json; charset=utf-8')
  const none = await app.inject('/plain')
  t.equal(none.headers['content-type'], 'application/json; charset=utf-8')
})

test('a 406 and a 404 without a route are negotiated from Accept', async (t) => {
  const app = await build()
  app.get(
    '/json-only',
    { config: { negotiation: { produces: ['application/json'] } } },
    async () => ({}),
  )
  const notAcceptable = await app.inject({
    url: '/json-only',
    headers: { accept: 'application/xml' },
  })
  t.equal(notAcceptable.statusCode, 406)
  t.equal(notAcceptable.headers['content-type'], 'application/xml; charset=utf-8')
  t.equal(notAcceptable.headers.accept, 'application/json')
  const missing = await app.inject({ url: '/nowhere', headers: { accept: 'application/xml' } })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers['content-type'], 'application/xml; charset=utf-8')
  const html = await app.inject({ url: '/nowhere', headers: { accept: 'text/html' } })
  t.equal(html.headers['content-type'], 'application/json; charset=utf-8', 'nothing we serve: JSON')
  const malformed = await app.inject({ url: '/nowhere', headers: { accept: 'garbage' } })
  t.equal(malformed.headers['content-type'], 'application/json; charset=utf-8')
  const empty = await app.inject({ url: '/nowhere', headers: { accept: '' } })
  t.equal(empty.headers['content-type'], 'application/json; charset=utf-8')
})

test('problem form: application/problem+xml in the RFC 7807 namespace; problem+json counts as JSON', async (t) => {
  const app = await build({ format: 'problem' })
  const res = await app.inject({ url: '/plain', headers: { accept: 'application/xml' } })
  t.equal(res.headers['content-type'], 'application/problem+xml', 'RFC 9457 §6.2: no parameter')
  t.match(res.body, '<problem xmlns="urn:ietf:rfc:7807">')
  t.equal((fromXml(res.body) as { status: number }).status, 409)
  const json = await app.inject({
    url: '/nowhere',
    headers: { accept: 'application/problem+json, application/xml' },
  })
  t.match(json.headers['content-type'], /^application\/problem\+json/)
})

test('problem form: problem+json and problem+xml weighed against the other forms (RFC 9457 §3, App. B)', async (t) => {
  const app = await build({ format: 'problem' })
  const form = async (url: string, accept: string) => {
    const res = await app.inject({ url, headers: { accept } })
    return String(res.headers['content-type']).split(';')[0]
  }
  const cases: [string, string][] = [
    ['application/problem+xml', 'application/problem+xml'],
    ['application/problem+xml, application/xml;q=0.1', 'application/problem+xml'],
    ['application/problem+json, application/hal+json;q=0.5', 'application/problem+json'],
    ['application/problem+json, application/xml;q=0.5', 'application/problem+json'],
    ['application/problem+xml, application/json;q=0.5', 'application/problem+xml'],
    ['application/problem+xml, application/json', 'application/problem+xml'],
    ['application/json, application/problem+xml;q=0.9', 'application/problem+json'],
    ['application/problem+json;q=0, */*', 'application/problem+xml'],
    ['application/problem+xml;q=0, application/xml', 'application/problem+json'],
    ['application/hal+json, application/problem+json;q=0.5', 'application/hal+json'],
    ['application/xml, */*;q=0.1', 'application/problem+xml'],
    ['*/*', 'application/problem+json'],
  ]
  for (const [accept, expected] of cases) {
    t.equal(await form('/plain', accept), expected, `route: ${accept}`)
    t.equal(await form('/nowhere', accept), expected, `no route: ${accept}`)
  }
  const xml = await app.inject({ url: '/plain', headers: { accept: 'application/problem+xml' } })
  t.equal(xml.statusCode, 406, 'the route produces no problem+xml: 406, itself in problem+xml')
  t.match(xml.body, '<problem xmlns="urn:ietf:rfc:7807">')
  const hal = await app.inject({
    url: '/plain',
    headers: { accept: 'application/hal+json, application/problem+json;q=0.5' },
  })
  t.equal(hal.json().status, 409, 'HAL: the problem document, a HAL resource without links')
})

test('error forms: weights decide, then a named type, then the negotiated one, then JSON', async (t) => {
  const app = await build()
  const form = async (url: string, accept?: string) => {
    const res = await app.inject({ url, headers: accept === undefined ? {} : { accept } })
    return String(res.headers['content-type']).split(';')[0]
  }
  t.equal(await form('/nowhere', 'application/xml, application/json;q=0.1'), 'application/xml')
  t.equal(
    await form('/nowhere', 'application/problem+json, application/xml;q=0.5'),
    'application/json',
  )
  t.equal(await form('/nowhere', 'application/problem+json, application/xml'), 'application/xml')
  t.equal(
    await form('/nowhere', 'application/problem+xml'),
    'application/xml',
    'XML for problem+xml',
  )
  const hal = await build({}, { defaultType: 'application/hal+json' })
  t.equal(await form('/nowhere', '*/*'), 'application/json')
  const halForm = async (url: string, accept?: string) =>
    String(
      (await hal.inject({ url, headers: accept === undefined ? {} : { accept } })).headers[
        'content-type'
      ],
    ).split(';')[0]
  t.equal(await halForm('/plain', '*/*'), 'application/hal+json', 'a tie: the negotiated type')
  t.equal(await halForm('/nowhere', '*/*'), 'application/json', 'no route: JSON')
  t.equal(
    await halForm('/plain', 'application/json, application/hal+json'),
    'application/hal+json',
    'both named: the negotiated one',
  )
  t.equal(
    await halForm('/plain', 'application/problem+json, application/hal+json'),
    'application/hal+json',
    'a named type beats one that counts as JSON',
  )
  t.equal(await halForm('/plain'), 'application/hal+json', 'no Accept: the negotiated type')
  t.equal(await halForm('/plain', ''), 'application/hal+json', 'empty Accept: the same')
  t.equal(await halForm('/nowhere'), 'application/json')
})

test("a route's own media type is never an error's", async (t) => {
  const app = await build()
  app.get('/export', { config: { negotiation: { produces: ['text/csv'] } } }, async () => {
    throw httpErrors.conflict('busy')
  })
  const csv = await app.inject({ url: '/export', headers: { accept: 'text/csv' } })
  t.equal(csv.statusCode, 409)
  t.equal(csv.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(csv.json().error.code, 'CONFLICT')
  const both = await app.inject({
    url: '/export',
    headers: { accept: 'text/csv, application/xml;q=0.1' },
  })
  t.equal(both.headers['content-type'], 'application/xml; charset=utf-8')
})

test('?format= wins over Accept for errors of no route and before negotiation', async (t) => {
  const app = await build()
  app.addHook('onRequest', async (request) => {
    if (request.headers['x-limit'] !== undefined) {
      throw httpErrors.tooManyRequests('slow down', { headers: { 'retry-after': 1 } })
    }
  })
  const form = async (url: string, headers: Record<string, string> = {}) => {
    const res = await app.inject({ url, headers })
    return [res.statusCode, String(res.headers['content-type']).split(';')[0]]
  }
  t.same(await form('/nowhere?format=xml'), [404, 'application/xml'])
  t.same(await form('/nowhere?format=SIREN'), [404, 'application/vnd.siren+json'])
  t.same(await form('/nowhere?format=json', { accept: 'application/xml' }), [
    404,
    'application/json',
  ])
  t.same(await form('/plain?format=hal', { 'x-limit': '1' }), [429, 'application/hal+json'])
  t.same(await form('/plain', { 'x-limit': '1', accept: 'application/xml' }), [
    429,
    'application/xml',
  ])
  // A bad ?format= on an error path is no second error: Accept decides.
  t.same(await form('/nowhere?format=bogus', { accept: 'application/xml' }), [
    404,
    'application/xml',
  ])
  t.same(await form('/nowhere?format=xml&format=hal'), [404, 'application/json'])
  t.same(await form('/nowhere?format=choices'), [404, 'application/json'])
  t.same(await form('/nowhere?format=__proto__'), [404, 'application/json'])
  t.same(await form('/plain?format=bogus', { accept: 'application/xml' }), [400, 'application/xml'])
  const jsonOnly = await build({}, { produces: ['application/json'] })
  const notHere = await jsonOnly.inject({ url: '/plain?format=xml' })
  t.equal(notHere.statusCode, 406)
  t.equal(notHere.headers['content-type'], 'application/xml; charset=utf-8', 'as asked')
  const custom = await build({}, { formatParam: 'f', formats: { x: 'application/xml' } })
  const named = await custom.inject({ url: '/nowhere?f=x' })
  t.equal(named.headers['content-type'], 'application/xml; charset=utf-8')
  const other = await custom.inject({ url: '/nowhere?format=xml' })
  t.equal(other.headers['content-type'], 'application/json; charset=utf-8', 'not its parameter')
  const off = await build({}, { formatParam: false })
  const ignored = await off.inject({ url: '/nowhere?format=xml' })
  t.equal(ignored.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(errorMediaType({ headers: {}, query: null }, true), undefined, 'no query object')
  const csv = { headers: {}, [MEDIA_TYPE]: 'text/csv' }
  t.equal(errorMediaType(csv, true), undefined, 'a route type of its own is no error form')
  const hal = { headers: { accept: '' }, [MEDIA_TYPE]: 'application/hal+json' }
  t.equal(errorMediaType(hal, true), 'application/hal+json', 'no preference: the negotiated one')
  t.equal(errorMediaType({ headers: {} }, true), undefined)
  t.equal(errorMediaType({ headers: {}, query: { format: 'hal' } }, true), 'application/hal+json')
})

test('HAL, JSON:API and Siren error bodies', async (t) => {
  const app = await build({}, {}, false)
  const hal = await app.inject({ url: '/plain', headers: { accept: 'application/hal+json' } })
  t.equal(hal.headers['content-type'], 'application/hal+json; charset=utf-8')
  t.equal(hal.json().error.code, 'CONFLICT')
  const api = await app.inject({ url: '/books/7', headers: { accept: 'application/vnd.api+json' } })
  t.equal(api.headers['content-type'], 'application/vnd.api+json')
  const errors = api.json().errors
  t.equal(errors.length, 4)
  t.equal(errors[0].source, undefined, 'a path parameter is in no request document')
  t.equal(errors[0].meta.field, 'params/id', 'its field goes to meta')
  t.equal(errors[0].code, 'UNKNOWN_ID')
  t.same(errors[1].source, { parameter: 'x' })
  t.equal(errors[1].meta.field, undefined)
  t.equal(errors[1].code, 'NOT_FOUND')
  t.same(errors[2].source, { header: 'if-match' })
  t.same(errors[3].source, { pointer: '' }, 'the whole request document')
  t.equal(errors[0].status, '404')
  t.equal(errors[0].title, 'Not Found')
  t.ok(errors[0].meta.requestId)
  const one = await app.inject({ url: '/plain', headers: { accept: 'application/vnd.api+json' } })
  t.same(Object.keys(one.json().errors[0]).sort(), ['code', 'detail', 'meta', 'status', 'title'])
  const siren = await app.inject({
    url: '/plain',
    headers: { accept: 'application/vnd.siren+json' },
  })
  t.same(siren.json().class, ['error'])
  t.equal(siren.json().properties.code, 'CONFLICT')
})

test('JSON:API source: a pointer into the request document as sent, parameter, header', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellNegotiation)
  app.post(
    '/books/:id',
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'integer' } } },
        body: {
          type: 'object',
          required: ['title'],
          properties: { title: { type: 'string', maxLength: 5 }, tags: { type: 'array' } },
        },
      },
    },
    async () => ({ ok: true }),
  )
  const post = (url: string, payload: object) =>
    app.inject({ method: 'POST', url, headers: { accept: 'application/vnd.api+json' }, payload })
  const tooLong = await post('/books/1', { title: 'toolong' })
  t.equal(tooLong.statusCode, 400)
  t.same(tooLong.json().errors[0].source, { pointer: '/title' }, 'JSON:API 1.1: the sent value')
  const missing = await post('/books/1', {})
  t.same(missing.json().errors[0].source, { pointer: '/title' })
  const param = await post('/books/abc', { title: 'ok' })
  t.equal(param.statusCode, 400)
  t.equal(param.json().errors[0].source, undefined, 'no /data/attributes/id')
  t.equal(param.json().errors[0].meta.field, 'params/id')
  const doc = (field: string) =>
    jsonApiErrors(
      { error: 'simple', requestId: 'r1' },
      {
        statusCode: 400,
        code: 'BAD_REQUEST',
        message: 'm',
        details: [{ field, message: 'bad' }],
        headers: {},
      },
    ).errors as { source?: unknown; meta: Record<string, unknown> }[]
  t.same(doc('body/tags/0')[0]?.source, { pointer: '/tags/0' }, 'nested pointer as is')
  t.same(doc('body/a~1b')[0]?.source, { pointer: '/a~1b' }, 'escapes kept in a pointer')
  t.same(doc('querystring/filter/0')[0]?.source, { parameter: 'filter' }, 'the parameter name')
  t.same(doc('querystring/a~1b~0c')[0]?.source, { parameter: 'a/b~c' }, 'unescaped')
  t.same(doc('headers/x-token')[0]?.source, { header: 'x-token' })
  for (const field of ['querystring', 'headers', 'path/0', 'params']) {
    t.equal(doc(field)[0]?.source, undefined, field)
    t.equal(doc(field)[0]?.meta.field, field)
  }
})

test('simple form in XML, and the renderer switched off', async (t) => {
  const simple = await build({ format: 'simple' })
  const res = await simple.inject({ url: '/plain', headers: { accept: 'application/xml' } })
  t.same(fromXml(res.body), { error: 'taken', requestId: res.headers['x-request-id'] })
  const off = await build({}, { errors: false })
  const json = await off.inject({ url: '/plain', headers: { accept: 'application/xml' } })
  t.equal(json.headers['content-type'], 'application/json; charset=utf-8')
})

test('errorMediaType and jsonApiErrors directly', async (t) => {
  t.equal(
    errorMediaType({ headers: { accept: ['application/xml'] } }, true),
    undefined,
    'non-string header',
  )
  t.equal(
    errorMediaType({ headers: { accept: 'application/vnd.api.v2+json' } }, true),
    undefined,
    'versioned JSON is JSON',
  )
  t.equal(
    errorMediaType({ headers: { accept: 'application/vnd.api.v2+json' } }, false),
    undefined,
    'nothing we serve',
  )
  t.equal(
    errorMediaType({ headers: { accept: 'application/vnd.api.v2+json' } }, false),
    undefined,
    'remembered: the same answer',
  )
  const doc = jsonApiErrors(
    { error: 'simple', requestId: 'r1' },
    { statusCode: 400, code: 'BAD_REQUEST', message: 'm', details: [], headers: {} },
  )
  t.same(doc, {
    errors: [
      {
        status: '400',
        code: 'BAD_REQUEST',
        title: 'Bad Request',
        detail: 'm',
        meta: { requestId: 'r1' },
      },
    ],
  })
})

test('errorMediaType remembers Accept values within a bound, per versionedJson', async (t) => {
  // Three times the bound, so the memo starts over twice; each value is asked twice.
  const headers = Array.from({ length: 3 * ACCEPT_CACHE_SIZE }, (_, i) =>
    i % 3 === 0
      ? `application/xml;q=0.${(i % 9) + 1}`
      : i % 3 === 1
        ? `application/hal+json, text/x-${i}`
        : `text/x-${i}`,
  )
  const ask = (accept: string) => errorMediaType({ headers: { accept } }, false)
  const first = headers.map(ask)
  t.same(headers.map(ask), first)
  t.same(first.slice(0, 3), ['application/xml', 'application/hal+json', undefined])
  // The same value means JSON when versioned JSON is on, and is not JSON when it is off.
  const both = 'application/vnd.api.v2+json, application/xml;q=0.5'
  t.equal(errorMediaType({ headers: { accept: both } }, true), undefined)
  t.equal(errorMediaType({ headers: { accept: both } }, false), 'application/xml')
  t.equal(errorMediaType({ headers: { accept: both } }, true), undefined)
})
