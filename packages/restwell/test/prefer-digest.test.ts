import crypto, { createHash } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { syncBuiltinESMExports } from 'node:module'
import { gunzipSync, gzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import tap, { test } from 'tap'
import restwell, { type RestwellOptions } from '../src/index.js'

const apps: FastifyInstance[] = []
tap.teardown(() => Promise.all(apps.map((app) => app.close())))

const sha256 = (bytes: string | Buffer): string =>
  `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`

const json = { 'content-type': 'application/json' }
/** A body above the compression threshold (1 KiB). */
const SHELF = Array.from({ length: 60 }, (_, id) => ({ id, title: `Book number ${id}` }))
const WHOLE = '0123456789'

async function build(options: RestwellOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  apps.push(app)
  await app.register(restwell, { prefer: {}, digest: {}, ...options })
  const bookSchema = { type: 'object', properties: { title: { type: 'string' } } }
  let stored = 0
  app.decorate('stored', () => stored)
  app.post('/books', { schema: { body: bookSchema } }, async (request, reply) => {
    stored += 1
    return reply.created('/books/2', { id: 2, ...(request.body as object) })
  })
  app.put('/books/:id', { schema: { body: bookSchema } }, async (request) => ({
    id: 1,
    ...(request.body as object),
  }))
  app.get(
    '/books',
    { schema: { querystring: { type: 'object', properties: { title: { type: 'string' } } } } },
    async (request) => ({ query: request.query }),
  )
  app.get('/books/:id', async () => ({ id: 1, title: 'Dune' }))
  app.get('/shelves', async () => SHELF)
  app.get('/texts', async (_request, reply) => reply.type('text/plain').send(WHOLE))
  return app
}

test('Prefer through the umbrella: return, handling with the plugins’ parameters, Vary', async (t) => {
  const app = await build()
  const created = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{"title":"Emma"}',
    headers: { ...json, prefer: 'return=minimal' },
  })
  t.equal(created.statusCode, 201)
  t.equal(created.headers.location, '/books/2')
  t.equal(created.body, '')
  t.equal(created.headers['preference-applied'], 'return=minimal')
  t.match(created.headers.vary, /\bPrefer\b/, 'Vary: Prefer kept beside cache-control’s')
  const replaced = await app.inject({
    method: 'PUT',
    url: '/books/1',
    payload: '{"title":"Emma"}',
    headers: { ...json, prefer: 'return=minimal' },
  })
  t.equal(replaced.statusCode, 204)
  t.equal(replaced.body, '')
  const strict = { prefer: 'handling=strict' }
  const unknown = await app.inject({
    url: '/books?title=a&colour=red&format=json',
    headers: strict,
  })
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.headers['preference-applied'], 'handling=strict')
  const details = (unknown.json() as { error: { details: { field: string }[] } }).error.details
  t.same(
    details.map(({ field }) => field),
    ['querystring/colour'],
    'the parameters negotiation and the others read are not unknown',
  )
  const known = await app.inject({
    url: '/books?title=a&format=json&include=deleted',
    headers: strict,
  })
  t.equal(known.statusCode, 200)
  const lenient = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{"title":"Emma","colour":"red"}',
    headers: { ...json, prefer: 'handling=lenient' },
  })
  t.equal(lenient.statusCode, 201)
  t.same(lenient.json(), { id: 2, title: 'Emma' }, 'the unknown member dropped')
})

test('respond-async through the umbrella: the job of its jobs, 202 with the job resource', async (t) => {
  let release = (): void => undefined
  const blocked = new Promise<void>((resolve) => {
    release = resolve
  })
  t.teardown(() => release())
  const app = await build({ jobs: { pollMs: 10 } })
  app.jobs.define('export', async () => {
    await blocked
    return { location: '/exports/1' }
  })
  app.post(
    '/exports',
    { config: { prefer: { async: { job: 'export' } } } },
    async (_request, reply) => reply.code(201).header('location', '/exports/1').send(),
  )
  const accepted = await app.inject({
    method: 'POST',
    url: '/exports',
    payload: '{}',
    headers: { ...json, prefer: 'respond-async' },
  })
  t.equal(accepted.statusCode, 202)
  t.match(accepted.headers.location, /^\/jobs\/[0-9a-f-]{36}$/)
  t.equal(accepted.headers['preference-applied'], 'respond-async')
  const status = await app.inject(accepted.headers.location as string)
  t.equal(status.statusCode, 200, 'the job resource is served by the umbrella’s jobs')
  const sync = await app.inject({ method: 'POST', url: '/exports', payload: '{}', headers: json })
  t.equal(sync.statusCode, 201, 'without respond-async: the handler')
  release()

  const bare = Fastify()
  apps.push(bare)
  await bare.register(restwell, { prefer: {} })
  bare.post('/exports', { config: { prefer: { async: { job: 'export' } } } }, async () => ({}))
  await t.rejects(async () => bare.ready(), {
    name: 'OptionsError',
    message: /config\.prefer\.async of POST \/exports.*`jobs` option/,
  })
})

test('digest fields through the umbrella: identity, compressed, a 206, from the cache', async (t) => {
  const app = await build()
  const want = { 'want-repr-digest': 'sha-256=1', 'want-content-digest': 'sha-256=1' }
  const plain = await app.inject({ url: '/books/1', headers: want })
  t.equal(plain.headers['repr-digest'], sha256(plain.rawPayload))
  t.equal(plain.headers['content-digest'], sha256(plain.rawPayload))
  t.notOk((await app.inject('/books/1')).headers['repr-digest'], 'not asked: not sent')

  // Counting hashes: a body from the compressed-body cache comes with the digests kept with it.
  const node = crypto as { createHash: typeof createHash }
  const original = node.createHash
  let hashed = 0
  const restore = (): void => {
    node.createHash = original
    syncBuiltinESMExports()
  }
  t.teardown(restore)
  node.createHash = ((...args: Parameters<typeof createHash>) => {
    hashed += 1
    return original(...args)
  }) as typeof createHash
  syncBuiltinESMExports()
  const hashesOf = async (headers: Record<string, string>) => {
    const before = hashed
    const res = await app.inject({ url: '/shelves', headers })
    return { res, hashes: hashed - before }
  }
  const zipped = { ...want, 'accept-encoding': 'gzip' }
  const { res: first } = await hashesOf(zipped)
  t.equal(first.headers['content-encoding'], 'gzip')
  t.same(JSON.parse(gunzipSync(first.rawPayload).toString()), SHELF)
  t.equal(first.headers['content-digest'], sha256(first.rawPayload), 'over the bytes sent')
  t.equal(
    first.headers['repr-digest'],
    sha256(first.rawPayload),
    'the content coding is part of the representation (RFC 9530 §3)',
  )
  const cached = await hashesOf(zipped)
  t.equal(cached.res.headers['content-digest'], first.headers['content-digest'])
  t.equal(cached.res.headers['repr-digest'], first.headers['repr-digest'])
  const undigested = await hashesOf({ 'accept-encoding': 'gzip' })
  t.equal(undigested.res.headers['content-encoding'], 'gzip')
  t.notOk(undigested.res.headers['content-digest'])
  t.equal(cached.hashes, undigested.hashes, 'the cached body is not hashed again for its fields')
  restore()

  const part = await app.inject({ url: '/texts', headers: { ...want, range: 'bytes=0-3' } })
  t.equal(part.statusCode, 206)
  t.equal(part.body, '0123')
  t.equal(part.headers['repr-digest'], sha256(WHOLE), 'a 206’s Repr-Digest names the whole')
  t.equal(part.headers['content-digest'], sha256('0123'), 'its Content-Digest the part sent')
})

test('a request Content-Digest through the umbrella: checked before the handler, as received', async (t) => {
  const app = await build()
  const stored = (app as unknown as { stored: () => number }).stored
  const body = '{"title":"Emma"}'
  const bad = await app.inject({
    method: 'POST',
    url: '/books',
    payload: body,
    headers: { ...json, 'content-digest': sha256('{"title":"Other"}') },
  })
  t.equal(bad.statusCode, 400)
  t.equal((bad.json() as { error: { code: string } }).error.code, 'DIGEST_MISMATCHED_VALUES')
  t.equal(stored(), 0, 'nothing stored')
  const good = await app.inject({
    method: 'POST',
    url: '/books',
    payload: body,
    headers: { ...json, 'content-digest': sha256(body) },
  })
  t.equal(good.statusCode, 201)
  const gz = gzipSync(body)
  const encoded = await app.inject({
    method: 'POST',
    url: '/books',
    payload: gz,
    headers: { ...json, 'content-encoding': 'gzip', 'content-digest': sha256(gz) },
  })
  t.equal(encoded.statusCode, 201, 'the content as received, before the umbrella decodes it')
  t.same(encoded.json(), { id: 2, title: 'Emma' })
  t.equal(stored(), 2)
})

test('CORS allows Prefer and the digest fields, and exposes what they answer', async (t) => {
  const app = await build({ cors: { origin: 'https://app.example' } })
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/books',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'prefer, content-digest, want-repr-digest',
    },
  })
  t.equal(preflight.statusCode, 200)
  const allowed = String(preflight.headers['access-control-allow-headers']).split(', ')
  for (const header of [
    'prefer',
    'content-digest',
    'repr-digest',
    'want-content-digest',
    'want-repr-digest',
  ]) {
    t.ok(allowed.includes(header), `allows ${header}`)
  }
  const actual = await app.inject({ url: '/books/1', headers: { origin: 'https://app.example' } })
  const exposed = String(actual.headers['access-control-expose-headers']).toLowerCase().split(', ')
  // Want-*: a 400 for an unsupported algorithm names the ones the server takes.
  for (const header of [
    'preference-applied',
    'content-digest',
    'repr-digest',
    'want-content-digest',
    'want-repr-digest',
  ]) {
    t.ok(exposed.includes(header), `exposes ${header}`)
  }

  const off = await build({ prefer: false, digest: false })
  const plain = await off.inject({ url: '/books/1', headers: { origin: 'https://app.example' } })
  const none = String(plain.headers['access-control-expose-headers']).toLowerCase()
  t.notMatch(none, /preference-applied|digest/, 'off: nothing of theirs exposed')
})

test('config.prefer or config.digest without the option is refused at registration', async (t) => {
  for (const key of ['prefer', 'digest'] as const) {
    const app = Fastify()
    apps.push(app)
    await app.register(restwell)
    t.throws(
      () => app.get('/widgets', { config: { [key]: {} } }, async () => ({})),
      {
        name: 'OptionsError',
        message: new RegExp(`"${key}" is not given, and route GET /widgets`),
      },
      key,
    )
    app.get('/gadgets', { config: { [key]: false } }, async () => ({}))
    const off = Fastify()
    apps.push(off)
    await off.register(restwell, { [key]: false })
    off.get('/widgets', { config: { [key]: {} } }, async () => ({}))
    await t.resolves(async () => off.ready(), `${key}: false turns it off on purpose`)
  }
})

test('over a real socket: Prefer and the digest fields of the bytes on the wire', async (t) => {
  const app = await build()
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const raw = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          path: '/shelves',
          headers: { 'accept-encoding': 'gzip', 'want-content-digest': 'sha-256=1' },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end()
    },
  )
  t.equal(raw.headers['content-encoding'], 'gzip')
  t.equal(raw.headers['content-digest'], sha256(raw.body), 'over the bytes received')
  const created = await fetch(`http://127.0.0.1:${port}/books`, {
    method: 'POST',
    body: '{"title":"Emma"}',
    headers: { ...json, prefer: 'return=minimal', 'content-digest': sha256('{"title":"Emma"}') },
  })
  t.equal(created.status, 201)
  t.equal(created.headers.get('preference-applied'), 'return=minimal')
  t.equal(await created.text(), '')
})
