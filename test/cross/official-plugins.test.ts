/**
 * The plugins an app may already have, beside the umbrella: official ones doing a job restwell
 * does, and restwell's own registered by hand, fail registration with the fix (or compose once
 * restwell's option is off); `@fastify/sensible` and `@fastify/formbody` compose in either
 * order, `@fastify/static`'s answers are shaped like a route's.
 */
import fastifyCors from '@fastify/cors'
import fastifyEtag from '@fastify/etag'
import fastifyFormbody from '@fastify/formbody'
import fastifySensible from '@fastify/sensible'
import fastifyStatic from '@fastify/static'
import restwellConditional from '@restwell/conditional'
import restwellBatch from '@restwell/batch'
import restwellErrors from '@restwell/errors'
import restwellNegotiation from '@restwell/negotiation'
import Fastify, { type FastifyInstance } from 'fastify'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import restwell, { type RestwellOptions } from 'restwell'
import { test } from 'tap'

type Plugin =
  | typeof fastifyCors
  | typeof fastifyEtag
  | typeof fastifyFormbody
  | typeof fastifySensible
  | typeof restwellErrors
  | typeof restwellNegotiation
  | typeof restwellConditional

async function appWith(
  plugin: Plugin,
  order: 'before' | 'after',
  options: RestwellOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify()
  if (order === 'before') await app.register(plugin as typeof fastifyCors)
  await app.register(restwell, options)
  if (order === 'after') await app.register(plugin as typeof fastifyCors)
  return app
}

test('@fastify/cors and @fastify/etag beside the option that does their job fail, in either order', async (t) => {
  for (const [plugin, name, option] of [
    [fastifyCors, '@fastify/cors', 'cors'],
    [fastifyEtag, '@fastify/etag', 'conditional'],
  ] as const) {
    await t.rejects(appWith(plugin, 'before'), {
      option,
      message: new RegExp(`${name} is registered before restwell.*pass \`${option}: false\``),
    })
    const after = await appWith(plugin, 'after')
    await t.rejects(
      async () => {
        await after.ready()
      },
      {
        option,
        message: new RegExp(`${name} is registered after restwell`),
      },
    )
  }
})

test("with restwell's cors off, @fastify/cors answers CORS alone", async (t) => {
  const app = await appWith(fastifyCors, 'after', { cors: false })
  t.teardown(() => app.close())
  app.get('/books', { config: { auth: false } }, async () => [])
  const response = await app.inject({ url: '/books', headers: { origin: 'https://a.test' } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['access-control-allow-origin'], '*')
  t.notOk(response.headers['access-control-expose-headers'], "restwell's CORS is off")
})

for (const order of ['before', 'after'] as const) {
  test(`@fastify/sensible registered ${order} restwell composes with it`, async (t) => {
    const app = await appWith(fastifySensible, order)
    t.teardown(() => app.close())
    app.get('/books', { config: { auth: false } }, async (_request, reply) =>
      reply.cacheControl('max-age', 60).send([]),
    )
    app.get('/shelves', { config: { auth: false } }, async (_request, reply) =>
      reply.cachePolicy({ public: true, maxAge: 30 }).send([]),
    )
    app.get('/missing', { config: { auth: false } }, async (_request, reply) => reply.notFound())
    // sensible's reply.cacheControl sets the header, which restwell keeps.
    const books = await app.inject('/books')
    t.equal(books.headers['cache-control'], 'max-age=60')
    // restwell's own per-response policy has a name of its own.
    const shelves = await app.inject('/shelves')
    t.equal(shelves.headers['cache-control'], 'public, max-age=30')
    // sensible's errors go out in restwell's error form.
    const missing = await app.inject('/missing')
    t.equal(missing.statusCode, 404)
    t.match(missing.json(), { error: { code: 'NOT_FOUND', requestId: String } })
    t.equal(missing.headers['cache-control'], 'no-store')
  })
}

test("restwell's own plugins registered by hand beside the umbrella fail, in either order, with the fix", async (t) => {
  for (const [plugin, name, option] of [
    [restwellErrors, '@restwell/errors', 'errors'],
    [restwellNegotiation, '@restwell/negotiation', 'negotiation'],
    [restwellConditional, '@restwell/conditional', 'conditional'],
  ] as const) {
    const fix = new RegExp(
      `^${name}: registered twice on this instance .*pass these options to restwell as \`${option}\`, or set \`${option}: false\``,
    )
    await t.rejects(appWith(plugin, 'before'), { message: fix }, `${name} before`)
    await t.rejects(appWith(plugin, 'after'), { message: fix }, `${name} after`)
  }
  // With the umbrella's option off, the plugin registered by hand before it is the only one;
  // after it, when every route's plan is made, its steps would never run.
  await t.rejects(appWith(restwellNegotiation, 'after', { negotiation: false }), {
    message:
      /^@restwell\/negotiation: registered after restwell, which has made every route's plan: .*as `negotiation`/,
  })
  const own = await appWith(restwellNegotiation, 'before', { negotiation: false })
  t.teardown(() => own.close())
  own.get('/books', { config: { auth: false } }, async () => [])
  t.equal((await own.inject({ url: '/books', headers: { accept: 'text/csv' } })).statusCode, 406)
})

test('a restwell plugin that hands over no step may come after the umbrella, its option off', async (t) => {
  const app = Fastify()
  await app.register(restwell)
  await app.register(restwellBatch)
  app.get('/books/:id', { config: { auth: false } }, async () => ({ id: 1 }))
  t.teardown(() => app.close())
  const response = await app.inject({
    method: 'POST',
    url: '/batch',
    payload: { requests: [{ id: 'one', method: 'GET', url: '/books/1' }] },
  })
  t.equal(response.statusCode, 207)
  t.match(response.json(), { responses: [{ id: 'one', status: 200, body: { id: 1 } }] })
})

test('@fastify/formbody composes in either order: a route that declares forms gets them parsed', async (t) => {
  for (const order of ['before', 'after'] as const) {
    const app = await appWith(fastifyFormbody, order, { naming: false })
    t.teardown(() => app.close())
    const form = {
      config: { auth: false, negotiation: { consumes: ['application/x-www-form-urlencoded'] } },
    }
    app.post('/books', form, async (request, reply) => reply.code(201).send(request.body))
    app.post('/authors', { config: { auth: false } }, async (request) => request.body)
    const request = {
      method: 'POST' as const,
      payload: 'title=Dune',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }
    const parsed = await app.inject({ ...request, url: '/books' })
    t.equal(parsed.statusCode, 201, order)
    t.same(parsed.json(), { title: 'Dune' }, order)
    const refused = await app.inject({ ...request, url: '/authors' })
    t.equal(refused.statusCode, 415, `${order}: a route that takes JSON only refuses a form`)
  }
})

test("@fastify/static's files: a 304 and a 206 vary as their 200 does, a missing file is restwell's 404", async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'restwell-static-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  writeFileSync(join(root, 'catalog.txt'), 'Dune by Frank Herbert. '.repeat(100))
  const app = Fastify()
  await app.register(restwell, { naming: false })
  await app.register(fastifyStatic, { root, prefix: '/files/' })
  t.teardown(() => app.close())
  const full = await app.inject('/files/catalog.txt')
  t.equal(full.statusCode, 200)
  t.equal(full.headers.vary, 'Accept, Accept-Encoding')
  const etag = full.headers.etag as string
  const fresh = await app.inject({ url: '/files/catalog.txt', headers: { 'if-none-match': etag } })
  t.equal(fresh.statusCode, 304)
  t.equal(fresh.headers.vary, 'Accept, Accept-Encoding', 'RFC 9110 §15.4.5: the Vary of the 200')
  t.equal(fresh.headers.etag, etag)
  const part = await app.inject({ url: '/files/catalog.txt', headers: { range: 'bytes=0-3' } })
  t.equal(part.statusCode, 206)
  t.equal(part.body, 'Dune')
  t.equal(part.headers.vary, 'Accept, Accept-Encoding')
  const zipped = await app.inject({
    url: '/files/catalog.txt',
    headers: { 'accept-encoding': 'gzip' },
  })
  t.equal(zipped.headers['content-encoding'], 'gzip')
  t.equal(
    zipped.headers.etag,
    etag.replace(/"$/, '-gzip"'),
    'the gzip bytes have an ETag of their own',
  )
  const missing = await app.inject('/files/nothing.txt')
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.code, 'NOT_FOUND')
})
