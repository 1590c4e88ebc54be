import restwellErrors, { OptionsError } from '@restwell/errors'
import type { PageInfo } from '@restwell/core'
import { MEDIA_TYPE, PAGE, REPRESENTATION } from '@restwell/core/internal'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import {
  API_VERSIONS,
  apiVersionsOf,
  fromXml,
  type NegotiationOptions,
  negotiation,
  restwellNegotiation,
} from '../src/index.js'

async function build(options: NegotiationOptions = {}, errors = true): Promise<FastifyInstance> {
  const app = Fastify()
  if (errors) await app.register(restwellErrors)
  await app.register(restwellNegotiation, options)
  app.get(
    '/books/:id',
    {
      schema: {
        response: {
          200: {
            type: 'object',
            properties: { id: { type: 'integer' }, title: { type: 'string' } },
          },
        },
      },
    },
    async (request) => ({
      id: 7,
      title: 'Dune',
      secret: 'hidden by the schema',
      seen: (request as unknown as Record<symbol, unknown>)[MEDIA_TYPE],
    }),
  )
  app.get('/books', async () => [
    { id: 1, title: 'A' },
    { id: 2, title: 'B' },
  ])
  app.get('/plain', { config: { negotiation: false } }, async () => ({ ok: true }))
  app.get('/negotiated', async (request) => request.negotiated)
  return app
}

test('JSON is the default and stays with Fastify (response schema applies)', async (t) => {
  const app = await build()
  const res = await app.inject('/books/7')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.same(res.json(), { id: 7, title: 'Dune' }, 'fast-json-stringify dropped the extra fields')
  t.equal(res.headers.vary, 'Accept')
  t.equal(res.headers['content-language'], undefined)
  const empty = await app.inject({ url: '/books/7', headers: { accept: ' ' } })
  t.equal(empty.headers['content-type'], 'application/json; charset=utf-8', 'empty Accept: default')
  const commas = await app.inject({ url: '/books/7', headers: { accept: ', ,' } })
  t.equal(commas.statusCode, 200)
})

test('request.negotiated and request[MEDIA_TYPE] are set before the handler', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/negotiated', headers: { accept: 'application/xml' } })
  t.same(fromXml(res.body), { type: 'application/xml', format: 'xml', charset: 'utf-8' })
  const hal = await app.inject({ url: '/negotiated?format=HAL' })
  t.equal(hal.json().type, 'application/hal+json')
  const plain = await app.inject({ url: '/plain', headers: { accept: 'text/html' } })
  t.equal(plain.statusCode, 200, 'negotiation off for the route')
  t.equal(plain.headers.vary, undefined)
})

test('request[REPRESENTATION] names what differs from the default representation, else is unset', async (t) => {
  const app = await build({ languages: ['en', 'pt', 'pt-BR'] })
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = (request as unknown as Record<symbol, string | undefined>)[REPRESENTATION]
    return reply
      .header('x-key', key ?? 'none')
      .type('text/plain')
      .send('')
  }
  app.get('/keys', handler)
  app.get(
    '/csv',
    { config: { negotiation: { produces: ['text/csv', 'application/json'] } } },
    handler,
  )
  const key = async (url: string, headers: Record<string, string> = {}) => {
    const res = await app.inject({ url, headers: { accept: 'application/json', ...headers } })
    return res.headers['x-key']
  }
  t.equal(await key('/keys'), 'none', 'JSON in the default language: the default')
  t.equal(await key('/keys', { 'accept-language': 'en-GB' }), 'none')
  t.equal(await key('/keys?format=xml'), 'xml')
  t.equal(await key('/keys?format=hal', { 'accept-language': 'pt-BR' }), 'hal;pt_br')
  t.equal(await key('/keys', { 'accept-language': 'pt' }), 'json;pt', 'the type is named too')
  t.equal(await key('/keys', { 'accept-language': 'PT-br' }), 'json;pt_br', 'again, remembered')
  t.equal(await key('/csv', { accept: 'text/csv' }), 'text/csv', 'no format name: the type itself')
  t.equal(await key('/csv'), 'none', 'JSON, the default type, goes first')
  const xmlFirst = await build({ defaultType: 'application/xml' })
  xmlFirst.get('/keys', handler)
  const named = async (accept: string) =>
    (await xmlFirst.inject({ url: '/keys', headers: { accept } })).headers['x-key']
  t.equal(await named('application/json'), 'json', 'where JSON is not the default, it is named')
  t.equal(await named('application/xml'), 'none')
})

test('XML, HAL, JSON:API and Siren; the response schema still filters fields', async (t) => {
  const app = await build()
  const xml = await app.inject({ url: '/books/7', headers: { accept: 'application/xml' } })
  t.equal(xml.headers['content-type'], 'application/xml; charset=utf-8')
  t.same(fromXml(xml.body), { id: 7, title: 'Dune' })
  const hal = await app.inject({ url: '/books/7', headers: { accept: 'application/hal+json' } })
  t.equal(hal.headers['content-type'], 'application/hal+json; charset=utf-8')
  t.same(hal.json(), { _links: { self: { href: '/books/7' } }, id: 7, title: 'Dune' })
  const api = await app.inject({ url: '/books/7', headers: { accept: 'application/vnd.api+json' } })
  t.equal(api.headers['content-type'], 'application/vnd.api+json')
  t.same(api.json().data, {
    type: 'books',
    id: '7',
    attributes: { title: 'Dune' },
    links: { self: '/books/7' },
  })
  const siren = await app.inject({ url: '/books/7?format=siren' })
  t.equal(siren.headers['content-type'], 'application/vnd.siren+json; charset=utf-8')
  t.same(siren.json().class, ['books'])
  const list = await app.inject({ url: '/books', headers: { accept: 'application/hal+json' } })
  t.same(list.json()._embedded.books[1], {
    _links: { self: { href: '/books/2' } },
    id: 2,
    title: 'B',
  })
})

test('406 with an Accept header listing the produced types, in the error form', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/books/7',
    headers: { accept: 'text/html, application/json;q=0' },
  })
  t.equal(res.statusCode, 406)
  t.equal(
    res.headers.accept,
    'application/json, application/xml, application/hal+json, application/vnd.api+json, application/vnd.siren+json',
  )
  t.equal(res.headers.vary, 'Accept')
  t.equal(res.json().error.code, 'NOT_ACCEPTABLE')
})

test('Accept outcomes are remembered per route, within a bound', async (t) => {
  const app = await build()
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 70; i++) {
      const res = await app.inject({
        url: '/books/7',
        headers: { accept: `application/xml;v=${i}, application/hal+json;q=0.${(i % 9) + 1}` },
      })
      t.equal(res.headers['content-type'], 'application/hal+json; charset=utf-8')
    }
    t.equal((await app.inject({ url: '/books/7', headers: { accept: 'garbage' } })).statusCode, 400)
    t.equal(
      (await app.inject({ url: '/books/7', headers: { accept: 'text/html' } })).statusCode,
      406,
    )
  }
})

test('API_VERSIONS contract: versioned JSON of a version not served is not JSON', async (t) => {
  const v2 = new Set([2])
  const all = new Set([1, 2])
  let versions: ReadonlySet<number> | undefined = v2
  // A stand-in for @restwell/versioning, which sets the contract on every request.
  const decorate = async (app: FastifyInstance) => {
    app.decorateRequest(API_VERSIONS as unknown as string, {
      getter: () => versions,
    })
  }
  const app = Fastify()
  await decorate(app)
  await app.register(restwellErrors)
  await app.register(restwellNegotiation)
  app.get('/books/:id', async () => ({ id: 7 }))
  app.get('/versions', async (request) => [...(apiVersionsOf(request) ?? [])])
  const ask = (accept: string) => app.inject({ url: '/books/7', headers: { accept } })
  const unserved = await ask('application/vnd.api.v9+json, application/xml;q=0.5')
  t.equal(unserved.statusCode, 200)
  t.equal(
    unserved.headers['content-type'],
    'application/xml; charset=utf-8',
    'RFC 9110 §12.5.1: v9 JSON is not offered, XML is acceptable',
  )
  const served = await ask('application/vnd.api.v2+json, application/xml;q=0.5')
  t.equal(served.headers['content-type'], 'application/json; charset=utf-8')
  const nothing = await ask('application/vnd.api.v9+json')
  t.equal(nothing.statusCode, 406, 'nothing acceptable')
  t.same((await app.inject('/versions')).json(), [2], 'apiVersionsOf reads the contract')
  versions = all
  const v1 = await ask('application/vnd.api.v1+json, application/xml;q=0.5')
  t.equal(v1.headers['content-type'], 'application/json; charset=utf-8', 'remembered per set')
  versions = v2
  const again = await ask('application/vnd.api.v1+json, application/xml;q=0.5')
  t.equal(again.headers['content-type'], 'application/xml; charset=utf-8')
  versions = undefined
  const none = await ask('application/vnd.api.v9+json, application/xml;q=0.5')
  t.equal(none.headers['content-type'], 'application/json; charset=utf-8', 'no contract: as before')
  const off = Fastify()
  await decorate(off)
  await off.register(restwellNegotiation, { versionedJson: false })
  off.get('/books/:id', async () => ({ id: 7 }))
  versions = v2
  const plain = await off.inject({
    url: '/books/7',
    headers: { accept: 'application/vnd.api.v2+json, application/xml;q=0.5' },
  })
  t.equal(plain.headers['content-type'], 'application/xml; charset=utf-8', 'versionedJson off')
  // Error bodies of no route read Accept under the same contract.
  versions = v2
  const missing = await app.inject({
    url: '/nothing',
    headers: { accept: 'application/vnd.api.v9+json, application/xml;q=0.5' },
  })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers['content-type'], 'application/xml; charset=utf-8')
  const missingJson = await app.inject({
    url: '/nothing',
    headers: { accept: 'application/vnd.api.v2+json, application/xml;q=0.5' },
  })
  t.equal(missingJson.headers['content-type'], 'application/json; charset=utf-8')
  const again404 = await app.inject({
    url: '/nothing',
    headers: { accept: 'application/vnd.api.v9+json, application/xml;q=0.5' },
  })
  t.equal(again404.headers['content-type'], 'application/xml; charset=utf-8', 'remembered')
})

test('400 for a malformed Accept and an unknown format', async (t) => {
  const app = await build()
  const bad = await app.inject({ url: '/books/7', headers: { accept: 'garbage' } })
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().error.code, 'MALFORMED_HEADER')
  t.same(bad.json().error.details[0].field, 'headers/accept')
  const unknown = await app.inject('/books/7?format=yaml')
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.json().error.code, 'UNKNOWN_FORMAT')
  t.equal(unknown.json().error.details[0].field, 'querystring/format')
  const twice = await app.inject('/books/7?format=json&format=xml')
  t.equal(twice.statusCode, 400)
  const proto = await app.inject('/books/7?format=constructor')
  t.equal(proto.statusCode, 400, 'prototype names are not formats')
})

test('?format= overrides Accept; a known format the route does not produce is 406', async (t) => {
  const app = await build()
  app.get(
    '/only-json',
    { config: { negotiation: { produces: ['application/json'] } } },
    async () => ({ a: 1 }),
  )
  const res = await app.inject({
    url: '/books/7?format=xml',
    headers: { accept: 'application/json' },
  })
  t.equal(res.headers['content-type'], 'application/xml; charset=utf-8')
  const json = await app.inject('/only-json?format=xml')
  t.equal(json.statusCode, 406)
  t.equal(json.headers.accept, 'application/json')
})

test('format param and names are configurable; false disables them', async (t) => {
  const app = await build({
    formatParam: '_fmt',
    formats: { x: 'application/xml' },
    choicesFormat: false,
  })
  t.equal(
    (await app.inject('/books/7?_fmt=x')).headers['content-type'],
    'application/xml; charset=utf-8',
  )
  t.equal((await app.inject('/books/7?_fmt=xml')).statusCode, 400)
  t.equal((await app.inject('/books/7?_fmt=choices')).statusCode, 400)
  t.equal(
    (await app.inject('/books/7?format=xml')).headers['content-type'],
    'application/json; charset=utf-8',
  )
  const off = await build({ formatParam: false })
  t.equal(
    (await off.inject('/books/7?format=xml')).headers['content-type'],
    'application/json; charset=utf-8',
  )
})

test('defaultType and produces: the default goes first for */* and a missing Accept', async (t) => {
  const app = await build({ defaultType: 'application/xml' })
  t.equal((await app.inject('/books/7')).headers['content-type'], 'application/xml; charset=utf-8')
  t.equal(
    (await app.inject({ url: '/books/7', headers: { accept: '*/*' } })).headers['content-type'],
    'application/xml; charset=utf-8',
  )
  t.equal(
    (await app.inject({ url: '/books/7', headers: { accept: 'application/json' } })).headers[
      'content-type'
    ],
    'application/json; charset=utf-8',
  )
  const other = await build({ defaultType: 'application/xml' })
  other.get(
    '/halish',
    { config: { negotiation: { produces: ['application/hal+json', 'application/json'] } } },
    async () => ({ id: 1 }),
  )
  t.equal(
    (await other.inject('/halish')).headers['content-type'],
    'application/hal+json; charset=utf-8',
    'route does not produce the default: its first type',
  )
  const jsonOnly = await build({ produces: ['application/json'] })
  t.equal(
    (await jsonOnly.inject({ url: '/books/7', headers: { accept: 'application/xml, */*;q=0.1' } }))
      .headers['content-type'],
    'application/json; charset=utf-8',
  )
})

test('300 Multiple Choices: on a route with choices, and with ?format=choices', async (t) => {
  const app = await build()
  app.get(
    '/reports',
    {
      config: { negotiation: { choices: true, produces: ['application/json', 'application/xml'] } },
    },
    async () => ({ r: 1 }),
  )
  const res = await app.inject({
    url: '/reports?x=1&y=a%20b',
    headers: { accept: 'application/xml' },
  })
  t.equal(res.statusCode, 300)
  t.same(res.json(), {
    choices: [
      { type: 'application/json', href: '/reports?x=1&y=a+b&format=json' },
      { type: 'application/xml', href: '/reports?x=1&y=a+b&format=xml' },
    ],
  })
  t.equal(res.headers.location, '/reports?x=1&y=a+b&format=xml', 'the preferred choice')
  t.equal(res.headers.vary, 'Accept')
  const bare = await app.inject('/reports')
  t.equal(bare.json().choices[0].href, '/reports?format=json')
  const picked = await app.inject('/reports?format=xml')
  t.equal(picked.statusCode, 200)
  t.equal(picked.headers['content-type'], 'application/xml; charset=utf-8')
  const asked = await app.inject({
    url: '/books/7?format=choices',
    headers: { accept: 'text/html' },
  })
  t.equal(asked.statusCode, 300)
  t.equal(asked.json().choices.length, 5)
  t.equal(
    asked.headers.location,
    '/books/7?format=json',
    'nothing acceptable: the first is preferred',
  )
  // The preferred choice is read from Accept: a malformed one is the 400 it is elsewhere.
  for (const url of ['/reports', '/books/7?format=choices']) {
    const malformed = await app.inject({ url, headers: { accept: 'garbage' } })
    t.equal(malformed.statusCode, 400, url)
    t.equal(malformed.json().error.code, 'MALFORMED_HEADER', url)
  }
  const unnamed = await build({ formats: { json: 'application/json' } })
  const few = await unnamed.inject('/books/7?format=choices')
  t.same(
    few.json().choices,
    [{ type: 'application/json', href: '/books/7?format=json' }],
    'only named types',
  )
  const none = await build({ formats: { xml: 'application/xml' }, produces: ['application/json'] })
  const nothing = await none.inject('/books/7?format=choices')
  t.same(nothing.json(), { choices: [] })
  t.equal(nothing.headers.location, undefined)
})

test('Accept-Language: choice, Content-Language, Vary, fallback to the default', async (t) => {
  const app = await build({ languages: ['en', 'de-DE'], defaultLanguage: 'en' })
  app.get('/greeting', async (request) => ({ language: request.language }))
  app.get('/fr', { config: { negotiation: { languages: ['fr', 'en'] } } }, async (request) => ({
    language: request.language,
  }))
  const de = await app.inject({
    url: '/greeting',
    headers: { 'accept-language': 'de-CH, de;q=0.9' },
  })
  t.same(de.json(), { language: 'de-DE' })
  t.equal(de.headers['content-language'], 'de-DE')
  t.equal(de.headers.vary, 'Accept, Accept-Language')
  const it = await app.inject({ url: '/greeting', headers: { 'accept-language': 'it' } })
  t.equal(it.statusCode, 200, 'never 406')
  t.equal(it.headers['content-language'], 'en')
  t.same((await app.inject('/greeting')).json(), { language: 'en' })
  const fr = await app.inject({ url: '/fr', headers: { 'accept-language': 'xx' } })
  t.equal(fr.headers['content-language'], 'fr', 'a route language list defaults to its first')
  const err = await app.inject({ url: '/greeting', headers: { accept: 'text/html' } })
  t.equal(err.headers['content-language'], undefined, 'no Content-Language on errors')
})

test('Vary names only what the route negotiates: one type, one language vary on nothing', async (t) => {
  const app = await build({ languages: ['en', 'de'] })
  const one = { produces: ['application/json' as const], languages: ['en'] }
  app.get('/genres', { config: { negotiation: one } }, async () => ['sf'])
  app.get('/tags', { config: { negotiation: { ...one, languages: ['en', 'de'] } } }, async () => [])
  app.get('/labels', { config: { negotiation: { languages: ['en'] } } }, async () => [])
  const genres = await app.inject({ url: '/genres', headers: { 'accept-language': 'de' } })
  t.equal(genres.headers.vary, undefined, 'one representation, one language')
  t.equal(genres.headers['content-language'], 'en')
  t.equal((await app.inject('/tags')).headers.vary, 'Accept-Language')
  t.equal((await app.inject('/labels')).headers.vary, 'Accept')
  const refused = await app.inject({ url: '/genres', headers: { accept: 'text/html' } })
  t.equal(refused.statusCode, 406)
  t.equal(refused.headers.vary, 'Accept', 'an error still varies on what chose it')
})

test("a handler's own Content-Language stands; the negotiated one fills in (RFC 9110 §8.5)", async (t) => {
  const app = await build({ languages: ['en', 'de', 'fr'] })
  const titles: Record<string, string> = { en: 'The Trial', de: 'Der Process' }
  app.get('/trial', async (request, reply) => {
    // French is not translated: the handler falls back to German and says so.
    const language = titles[request.language!] === undefined ? 'de' : request.language!
    reply.header('content-language', language)
    return { title: titles[language] }
  })
  const fr = await app.inject({ url: '/trial', headers: { 'accept-language': 'fr' } })
  t.equal(fr.headers['content-language'], 'de', 'what the body is in, not what was asked')
  t.same(fr.json(), { title: 'Der Process' })
  t.equal(fr.headers.vary, 'Accept, Accept-Language', 'it still varies by Accept-Language')
  const en = await app.inject({ url: '/trial', headers: { 'accept-language': 'en' } })
  t.equal(en.headers['content-language'], 'en')
  const plain = await app.inject({ url: '/books/7', headers: { 'accept-language': 'fr' } })
  t.equal(plain.headers['content-language'], 'fr', 'no header of its own: the negotiated one')
})

test('Accept-Language: a q=0 prefix does not exclude the more specific tag asked for', async (t) => {
  const app = await build({ languages: ['en-GB', 'en-US', 'de'], defaultLanguage: 'de' })
  const ask = async (value: string) =>
    (await app.inject({ url: '/books/7', headers: { 'accept-language': value } })).headers[
      'content-language'
    ]
  t.equal(await ask('en-GB, en;q=0'), 'en-GB')
  t.equal(await ask('en;q=0, en-GB;q=0.9'), 'en-GB')
  t.equal(await ask('en, en-US;q=0'), 'en-GB')
  t.equal(await ask('en;q=0'), 'de')
})

test('a weight with more than three decimals stays positive (RFC 9110 §12.4.2)', async (t) => {
  const app = await build()
  const xml = await app.inject({ url: '/books/7', headers: { accept: 'application/xml;q=0.0004' } })
  t.equal(xml.statusCode, 200, 'q=0.0004 is acceptable, not q=0')
  t.equal(xml.headers['content-type'], 'application/xml; charset=utf-8')
  const json = await app.inject({
    url: '/books/7',
    headers: { accept: 'text/html, application/json;q=0.0001' },
  })
  t.equal(json.statusCode, 200)
  const charset = await app.inject({
    url: '/books/7',
    headers: { 'accept-charset': 'utf-8;q=0.0001' },
  })
  t.equal(charset.statusCode, 200, 'UTF-8 with a tiny weight is still acceptable')
  const zero = await app.inject({
    url: '/books/7',
    headers: { accept: 'application/json;q=0.0000' },
  })
  t.equal(zero.statusCode, 406, 'zero is zero')
})

test('Accept-Charset: UTF-8 excluded → 406; otherwise ignored', async (t) => {
  const app = await build()
  const res = await app.inject({
    url: '/books/7',
    headers: { 'accept-charset': 'utf-8;q=0, iso-8859-1' },
  })
  t.equal(res.statusCode, 406)
  t.equal(res.json().error.code, 'UNSUPPORTED_CHARSET')
  t.equal(
    (await app.inject({ url: '/books/7', headers: { 'accept-charset': 'iso-8859-1, *;q=0.1' } }))
      .statusCode,
    200,
  )
  t.equal(
    (await app.inject({ url: '/books/7', headers: { 'accept-charset': '";;' } })).statusCode,
    200,
  )
})

test('pages: HAL, JSON:API and Siren build the collection from reply[PAGE]', async (t) => {
  const app = await build()
  const page: PageInfo = {
    items: [{ id: 3, title: 'C' }],
    links: {
      self: '/shelf?page=2&limit=1',
      prev: '/shelf?page=1&limit=1',
      next: '/shelf?page=3&limit=1',
    },
    meta: { page: 2, limit: 1, total: 3, totalPages: 3 },
  }
  app.get(
    '/shelf',
    { config: { negotiation: { collection: 'books', type: 'book' } } },
    async (_request, reply) => {
      ;(reply as unknown as Record<symbol, unknown>)[PAGE] = page
      return { data: page.items, links: page.links, meta: page.meta }
    },
  )
  const hal = (
    await app.inject({ url: '/shelf?page=2&limit=1', headers: { accept: 'application/hal+json' } })
  ).json()
  t.same(hal._links, {
    self: { href: page.links.self },
    prev: { href: page.links.prev },
    next: { href: page.links.next },
  })
  t.same(hal._embedded.books, [{ _links: { self: { href: '/shelf/3' } }, id: 3, title: 'C' }])
  t.equal(hal.total, 3)
  const api = (await app.inject({ url: '/shelf?format=jsonapi' })).json()
  t.same(api.data, [
    { type: 'book', id: '3', attributes: { title: 'C' }, links: { self: '/shelf/3' } },
  ])
  t.same(api.meta, page.meta)
  t.equal(api.links.next, page.links.next)
  const siren = (await app.inject({ url: '/shelf?format=siren' })).json()
  t.equal(siren.entities.length, 1)
  t.same(siren.class, ['books', 'collection'])
  const json = (await app.inject('/shelf')).json()
  t.same(json.data, page.items, 'JSON: the envelope as sent')
  const xml = fromXml((await app.inject('/shelf?format=xml')).body) as { data: unknown[] }
  t.same(xml.data, page.items, 'XML: the envelope as sent')
})

test('itemPath: items of a nested collection link to where they live', async (t) => {
  const app = await build()
  app.get(
    '/authors/:id/books',
    { config: { negotiation: { collection: 'books', type: 'books', itemPath: '/books' } } },
    async () => [{ id: 4, title: 'D' }],
  )
  const hal = (
    await app.inject({ url: '/authors/2/books', headers: { accept: 'application/hal+json' } })
  ).json()
  t.same(hal._embedded.books[0]._links.self, { href: '/books/4' })
  t.same(hal._links.self, { href: '/authors/2/books' })
  t.throws(() =>
    app.get('/bad', { config: { negotiation: { itemPath: 'books?x' } } }, async () => []),
  )
})

test('201 with Location: self is the new resource; non-2xx hypermedia stays JSON', async (t) => {
  const app = await build()
  app.post('/books', async (_request, reply) => {
    reply.code(201).header('location', '/books/9')
    return { id: 9 }
  })
  app.get('/teapot', async (_request, reply) => reply.code(418).send({ short: true }))
  app.get('/text', async () => 'already a string')
  app.get('/nothing', async (_request, reply) => reply.send(null))
  const created = await app.inject({
    method: 'POST',
    url: '/books',
    payload: {},
    headers: { accept: 'application/hal+json' },
  })
  t.equal(created.json()._links.self.href, '/books/9')
  const teapot = await app.inject({ url: '/teapot', headers: { accept: 'application/hal+json' } })
  t.equal(teapot.headers['content-type'], 'application/json; charset=utf-8')
  t.same(teapot.json(), { short: true })
  const text = await app.inject({ url: '/text', headers: { accept: 'application/xml' } })
  t.equal(text.body, 'already a string')
  const nothing = await app.inject({
    url: '/nothing',
    headers: { accept: 'application/vnd.api+json' },
  })
  t.same(nothing.json(), { data: null, links: { self: '/nothing' } })
})

test('response schemas by 2xx, default and content type filter other representations', async (t) => {
  const app = await build()
  const item = { type: 'object', properties: { id: { type: 'integer' } } }
  app.get('/a', { schema: { response: { '2xx': item } } }, async () => ({ id: 1, x: 2 }))
  app.get('/b', { schema: { response: { default: item } } }, async () => ({ id: 1, x: 2 }))
  app.get(
    '/c',
    { schema: { response: { 200: { content: { 'application/json': { schema: item } } } } } },
    async () => ({ id: 1, x: 2 }),
  )
  app.get(
    '/d',
    { schema: { response: { 200: { content: { 'text/csv': { schema: { type: 'string' } } } } } } },
    async () => ({ id: 1, x: 2 }),
  )
  app.get(
    '/e',
    { schema: { response: { 200: { content: { '*/*': { schema: item } } } } } },
    async () => ({ id: 1, x: 2 }),
  )
  for (const url of ['/a', '/b', '/c', '/e']) {
    t.same(fromXml((await app.inject(`${url}?format=xml`)).body), { id: 1 }, url)
  }
  t.same(
    fromXml((await app.inject('/d?format=xml')).body),
    { id: 1, x: 2 },
    'no JSON schema: unfiltered',
  )
})

test('a serialization failure is a 500 in the error form', async (t) => {
  const app = await build()
  app.get('/cycle', async () => {
    const a: Record<string, unknown> = {}
    a['a'] = a
    return a
  })
  const res = await app.inject({ url: '/cycle', headers: { accept: 'application/xml' } })
  t.equal(res.statusCode, 500)
})

test('a route with several methods', async (t) => {
  const app = await build()
  app.route({ method: ['GET', 'PUT'], url: '/both', handler: async () => ({ ok: 1 }) })
  const put = await app.inject({
    method: 'PUT',
    url: '/both',
    payload: 'x',
    headers: { 'content-type': 'text/plain' },
  })
  t.equal(put.statusCode, 415)
  const get = await app.inject({
    method: 'GET',
    url: '/both',
    headers: { accept: 'application/xml' },
  })
  t.equal(get.headers['content-type'], 'application/xml; charset=utf-8')
})

test('routes registered before the plugin, and HEAD routes', async (t) => {
  const app = Fastify()
  app.get('/early', async () => ({ early: true }))
  await app.register(restwellNegotiation)
  app.get('/late', async () => ({ late: true }))
  const early = await app.inject({ url: '/early', headers: { accept: 'application/xml' } })
  t.equal(early.headers['content-type'], 'application/xml; charset=utf-8', 'negotiated too')
  t.match(early.body, /<early type="boolean">true<\/early>/)
  const head = await app.inject({
    method: 'HEAD',
    url: '/late',
    headers: { accept: 'application/xml' },
  })
  t.equal(head.headers['content-type'], 'application/xml; charset=utf-8')
  t.equal(head.headers.vary, 'Accept')
  t.equal(head.body, '')
})

test('hooks a route already has are kept, in order', async (t) => {
  const app = await build()
  const order: string[] = []
  app.get(
    '/hooked',
    {
      onRequest: (request, _reply, done) => {
        order.push(`onRequest:${String(request.negotiated?.type)}`)
        done()
      },
      onSend: [
        async (_request, reply, payload) => {
          reply.header('vary', 'Origin')
          return payload
        },
      ],
      preSerialization: async (_request, _reply, payload) => ({
        ...(payload as object),
        pre: true,
      }),
      preValidation: async () => {
        order.push('preValidation')
      },
    },
    async () => ({ id: 1 }),
  )
  const res = await app.inject({ url: '/hooked', headers: { accept: 'application/xml' } })
  t.same(order, ['onRequest:application/xml', 'preValidation'])
  t.equal(res.headers.vary, 'Origin, Accept', 'Vary merged with what the route set')
  t.same(fromXml(res.body), { id: 1, pre: true })
})

test('options are validated at registration', async (t) => {
  const cases: [unknown, string][] = [
    [{ produces: ['text/html'] }, 'produces.0'],
    [{ produces: [] }, 'produces'],
    [{ defaultType: 'text/plain' }, 'defaultType'],
    [{ defaultType: 'application/xml', produces: ['application/json'] }, 'defaultType'],
    [{ choicesFormat: 'json' }, 'choicesFormat'],
    [{ formats: { choices: 'application/xml' } }, 'choicesFormat'],
    [{ formats: { x: 'application/xml' }, choicesFormat: 'x' }, 'choicesFormat'],
    [{ formats: { BAD: 'application/xml' } }, 'formats'],
    [{ languages: ['en_US'] }, 'languages.0'],
    [{ languages: ['en'], defaultLanguage: 'de' }, 'defaultLanguage'],
    [{ defaultLanguage: 'de' }, 'defaultLanguage'],
    [{ multipart: { limits: { fileSize: -1 } } }, 'multipart'],
    [{ unknown: 1 }, 'unknown'],
  ]
  for (const [options, option] of cases) {
    const app = Fastify()
    const error = await app
      .register(restwellNegotiation, options as NegotiationOptions)
      .ready()
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    t.ok(error instanceof OptionsError, JSON.stringify(options))
    t.match((error as OptionsError).option, option)
  }
})

test('route config is validated when the route is added', async (t) => {
  const app = Fastify()
  await app.register(restwellNegotiation)
  for (const [i, bad] of ['text/*', '*/*', 'text/csv; header=present', 'csv'].entries()) {
    t.throws(
      () => app.get(`/x${i}`, { config: { negotiation: { produces: [bad] } } }, async () => ({})),
      { name: 'OptionsError', message: /config\.negotiation of GET \/x\d/ },
      `a route produces concrete types only: ${bad}`,
    )
  }
  t.throws(
    () =>
      app.get(
        '/y',
        { config: { negotiation: { languages: ['en'], defaultLanguage: 'fr' } } },
        async () => ({}),
      ),
    { name: 'OptionsError', option: 'defaultLanguage' },
  )
})

test("a route's own media type (produces: ['text/csv']) is negotiated and sent as the handler sends it", async (t) => {
  const app = await build()
  const csv = 'id,title\n1,Dune\n'
  app.get(
    '/exports',
    { config: { negotiation: { produces: ['Text/CSV'] } } },
    async (request, reply) => {
      t.equal(request.negotiated?.type, 'text/csv', 'lowercased')
      t.equal((request as unknown as Record<symbol, unknown>)[MEDIA_TYPE], undefined, 'not ours')
      return reply.type('text/csv').send(csv)
    },
  )
  app.get(
    '/reports',
    { config: { negotiation: { produces: ['application/json', 'application/vnd.github+json'] } } },
    async (request, reply) => {
      if (request.negotiated?.type === 'application/vnd.github+json') {
        reply.type('application/vnd.github+json')
      }
      return { id: 1, secret: undefined }
    },
  )
  const exact = await app.inject({ url: '/exports', headers: { accept: 'text/csv' } })
  t.equal(exact.statusCode, 200, 'exactly the type it sends: not 406 (RFC 9110 §15.5.7)')
  t.equal(exact.headers['content-type'], 'text/csv')
  t.equal(exact.body, csv)
  t.equal(exact.headers.vary, undefined, 'one representation: Accept changes nothing')
  t.equal((await app.inject('/exports')).statusCode, 200, 'no Accept: its first type')
  const wild = await app.inject({ url: '/exports', headers: { accept: 'text/*' } })
  t.equal(wild.statusCode, 200)
  const json = await app.inject({ url: '/exports', headers: { accept: 'application/json' } })
  t.equal(json.statusCode, 406, 'negotiated like the others')
  t.equal(json.headers.accept, 'text/csv')
  t.equal(json.headers['content-type'], 'application/json; charset=utf-8', 'the error is JSON')
  const format = await app.inject({ url: '/exports?format=xml', headers: { accept: 'text/csv' } })
  t.equal(format.statusCode, 406, 'it has no ?format= name')
  const vendor = await app.inject({
    url: '/reports',
    headers: { accept: 'application/vnd.github+json' },
  })
  t.equal(vendor.statusCode, 200)
  t.equal(vendor.headers['content-type'], 'application/vnd.github+json; charset=utf-8')
  t.same(vendor.json(), { id: 1 }, 'serialized by Fastify as the handler chose')
  const plain = await app.inject({ url: '/reports', headers: { accept: 'application/json' } })
  t.equal(plain.headers['content-type'], 'application/json; charset=utf-8')
  const xml = await app.inject({ url: '/reports', headers: { accept: 'application/xml' } })
  t.equal(xml.statusCode, 406)
  t.equal(xml.headers.accept, 'application/json, application/vnd.github+json')
})

test('works without @restwell/errors: errors keep status and headers', async (t) => {
  const app = await build({}, false)
  const res = await app.inject({ url: '/books/7', headers: { accept: 'text/html' } })
  t.equal(res.statusCode, 406)
  t.equal(String(res.headers.accept).split(', ')[0], 'application/json')
  t.equal(res.json().code, 'NOT_ACCEPTABLE')
  t.equal(res.headers.vary, 'Accept')
})

test('JSON:API: a profile in Accept is accepted (not applied); ext is 406 (JSON:API 1.1)', async (t) => {
  const app = await build()
  const accept = (value: string) => app.inject({ url: '/books/7', headers: { accept: value } })
  const profile = await accept('application/vnd.api+json; profile="https://example.com/timestamps"')
  t.equal(profile.statusCode, 200)
  t.equal(profile.headers['content-type'], 'application/vnd.api+json')
  t.equal(profile.json().data.id, '7')
  const ext = await accept('application/vnd.api+json; ext="https://example.com/e"; profile="p"')
  t.equal(ext.statusCode, 406)
  const other = await accept('application/json; profile="p"')
  t.equal(other.statusCode, 406, 'another type with an unknown parameter: still 406')
  const charset = await accept('application/vnd.api+json; charset=utf-8')
  t.equal(charset.statusCode, 406, 'the JSON:API type defines no charset: every instance has one')
  const oneBare = await accept('application/vnd.api+json; charset=utf-8, application/vnd.api+json')
  t.equal(oneBare.headers['content-type'], 'application/vnd.api+json', 'one instance without')
})

test('the convention contributes the query parameter, request and response headers it uses', async (t) => {
  t.same(negotiation.contributes?.(negotiation.options({})), {
    queryParameters: ['format'],
    requestHeaders: ['accept', 'accept-language', 'content-type'],
    responseHeaders: ['Accept', 'Accept-Query', 'Content-Location', 'Location'],
  })
  t.same(negotiation.contributes?.(negotiation.options({ formatParam: false })), {
    queryParameters: [],
    requestHeaders: ['accept', 'accept-language', 'content-type'],
    responseHeaders: ['Accept', 'Accept-Query', 'Content-Location'],
  })
})

test("Accept-Query and Content-Location go on a QUERY route's answers only", async (t) => {
  const on = (methods: string[], raw = {}) =>
    negotiation.routeResponseHeaders?.(
      { methods } as never,
      {
        options: negotiation.options(raw),
      } as never,
    )
  t.same(on(['QUERY']), ['Accept', 'Accept-Query', 'Content-Location', 'Location'])
  t.same(on(['GET', 'HEAD']), ['Accept', 'Location'], 'a GET: its 406, a 300')
  t.same(on(['GET'], { formatParam: false }), ['Accept'], 'no format parameter: no 300')
})
