/**
 * A route that gives Last-Modified but lets the plugin hash the ETag: the preconditions wait
 * for the hashed ETag (RFC 9110 §13.2.2 order, §15.4.5: a 304 carries the ETag of the 200).
 */
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { restwellConditional } from '../src/index.js'

const DATE = 'Mon, 01 Jan 2024 00:00:00 GMT'
const EARLIER = 'Sun, 31 Dec 2023 00:00:00 GMT'
const BOOK = { id: 1, title: 'Dune' }

async function build(): Promise<{ app: FastifyInstance; handled: () => number }> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellConditional)
  let handled = 0
  app.get('/dated', async (_req, reply) => {
    handled++
    reply.lastModified(DATE)
    return BOOK
  })
  app.get('/field', { config: { conditional: { lastModifiedField: 'updatedAt' } } }, async () => ({
    ...BOOK,
    updatedAt: new Date(DATE).toISOString(),
  }))
  app.get(
    '/stored',
    { config: { conditional: { getValidator: () => ({ lastModified: DATE }) } } },
    async () => {
      handled++
      return BOOK
    },
  )
  return { app, handled: () => handled }
}

for (const url of ['/dated', '/field', '/stored']) {
  test(`${url}: If-None-Match, If-Match and If-Modified-Since use the hashed ETag`, async (t) => {
    const { app } = await build()
    const ok = await app.inject(url)
    t.equal(ok.statusCode, 200)
    t.equal(ok.headers['last-modified'], DATE)
    const etag = ok.headers.etag as string
    t.match(etag, /^"[A-Za-z0-9_-]{27}"$/)

    const inm = await app.inject({ url, headers: { 'if-none-match': etag } })
    t.equal(inm.statusCode, 304, 'If-None-Match with the hashed tag')
    t.equal(inm.headers.etag, etag)
    t.equal(inm.body, '')
    const browser = await app.inject({
      url,
      headers: { 'if-none-match': etag, 'if-modified-since': DATE },
    })
    t.equal(browser.statusCode, 304, 'If-None-Match + If-Modified-Since')
    t.equal(browser.headers.etag, etag)
    const stale = await app.inject({
      url,
      headers: { 'if-none-match': '"other"', 'if-modified-since': DATE },
    })
    t.equal(stale.statusCode, 200, 'If-None-Match decides: If-Modified-Since is not looked at')
    const ims = await app.inject({ url, headers: { 'if-modified-since': DATE } })
    t.equal(ims.statusCode, 304, 'If-Modified-Since alone')
    t.equal(ims.headers.etag, etag, 'the 304 carries the ETag the 200 would have')
    const changed = await app.inject({ url, headers: { 'if-modified-since': EARLIER } })
    t.equal(changed.statusCode, 200)
    t.equal(changed.headers.etag, etag)

    const match = await app.inject({ url, headers: { 'if-match': etag } })
    t.equal(match.statusCode, 200, 'If-Match with the hashed tag')
    t.equal(match.headers.etag, etag)
    const mismatch = await app.inject({ url, headers: { 'if-match': '"other"' } })
    t.equal(mismatch.statusCode, 412)
    t.equal(mismatch.headers.etag, undefined)
    const unmodified = await app.inject({ url, headers: { 'if-unmodified-since': EARLIER } })
    t.equal(unmodified.statusCode, 412, 'If-Unmodified-Since still fails against the date')

    const head = await app.inject({ method: 'HEAD', url, headers: { 'if-none-match': etag } })
    t.equal(head.statusCode, 304)
    t.equal(head.headers.etag, etag)
  })
}

test('an ETag header set by hand is waited for even with etag: false', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional, { etag: false })
  app.get('/by-hand', async (_req, reply) => {
    reply.lastModified(DATE).header('etag', '"h1"')
    return BOOK
  })
  app.get('/dated', async (_req, reply) => {
    reply.lastModified(DATE)
    return BOOK
  })
  const match = await app.inject({ url: '/by-hand', headers: { 'if-match': '"h1"' } })
  t.equal(match.statusCode, 200)
  const inm = await app.inject({ url: '/by-hand', headers: { 'if-none-match': '"h1"' } })
  t.equal(inm.statusCode, 304)
  t.equal(inm.headers.etag, '"h1"')
  const ims = await app.inject({ url: '/by-hand', headers: { 'if-modified-since': DATE } })
  t.equal(ims.statusCode, 304)
  t.equal(ims.headers.etag, '"h1"')
  const none = await app.inject({ url: '/dated', headers: { 'if-modified-since': DATE } })
  t.equal(none.statusCode, 304, 'no ETag to come: decided before serialization')
  t.equal(none.headers.etag, undefined)
})

test('getValidator with a stored ETag still answers before the handler', async (t) => {
  const app = Fastify()
  await app.register(restwellConditional)
  let handled = 0
  app.get(
    '/stored',
    { config: { conditional: { getValidator: () => ({ etag: 'v1', lastModified: DATE }) } } },
    async () => {
      handled++
      return BOOK
    },
  )
  const ims = await app.inject({ url: '/stored', headers: { 'if-modified-since': DATE } })
  t.equal(ims.statusCode, 304)
  t.equal(ims.headers.etag, '"v1"')
  const inm = await app.inject({ url: '/stored', headers: { 'if-none-match': '"v1"' } })
  t.equal(inm.statusCode, 304)
  t.equal(handled, 0)
})

test('getValidator with a date only runs the handler, whose body gives the ETag', async (t) => {
  const { app, handled } = await build()
  const ok = await app.inject('/stored')
  const before = handled()
  await app.inject({ url: '/stored', headers: { 'if-none-match': ok.headers.etag as string } })
  t.equal(handled(), before + 1)
})
