/**
 * A real shared cache between the client and the app: nginx with `proxy_cache`, over real
 * sockets. The app is Fastify + restwell with errors, conditional, compression and cache-control
 * on (the others off), negotiating Accept / Accept-Language twice over: once with
 * @restwell/negotiation, once by hand in the handlers (Vary from `config.cache.vary`,
 * Content-Language), so the cache behaviour is shown independently of the negotiation plugin.
 * Every request the app sees is recorded, so "served from the cache" is proven by the app not
 * seeing the request.
 *
 * nginx is started from `/usr/sbin/nginx` (Debian's `nginx` package; `NGINX_BIN` overrides) with a
 * config written to a temp folder, on a free loopback port, and stopped at the end. Without
 * nginx the test is skipped, except in CI (`CI` set), where it fails.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { parseCacheControl } from '@restwell/cache-control'
import { httpErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import restwell from 'restwell'
import { test } from 'tap'
import { freePort } from '../helpers/services.js'

const NGINX = process.env.NGINX_BIN ?? '/usr/sbin/nginx'

interface Seen {
  method: string
  url: string
  ifNoneMatch: string | undefined
  authorization: string | undefined
  status?: number
  headers?: Record<string, unknown>
}

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  text: string
}

/** One HTTP/1.1 request with exactly the given headers (no automatic Accept-Encoding). */
function send(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const body = Buffer.concat(chunks)
          const text =
            res.headers['content-encoding'] === 'gzip'
              ? gunzipSync(body).toString()
              : body.toString()
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    if (options.body !== undefined) req.end(options.body)
    else req.end()
  })
}

/** An error body names its request; two requests never share one. */
function withoutRequestId(text: string): string {
  return text.replace(/"requestId":"[^"]*"/, '"requestId":"…"')
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const TITLES: Record<string, string[]> = {
  en: ['The Name of the Rose', 'One Hundred Years of Solitude', 'The Master and Margarita'],
  fr: ['Le Nom de la rose', 'Cent ans de solitude', 'Le Maître et Marguerite'],
}

function negotiate(request: FastifyRequest): { type: 'json' | 'xml'; lang: 'en' | 'fr' } {
  const accept = request.headers.accept ?? ''
  const language = request.headers['accept-language'] ?? ''
  return {
    type: accept.includes('application/xml') ? 'xml' : 'json',
    lang: language.trim().toLowerCase().startsWith('fr') ? 'fr' : 'en',
  }
}

function represent(reply: FastifyReply, request: FastifyRequest, data: Record<string, unknown>) {
  const { type, lang } = negotiate(request)
  reply.header('content-language', lang)
  if (type === 'xml') {
    const inner = Object.entries(data)
      .map(
        ([k, v]) =>
          `<${k}>${Array.isArray(v) ? v.map((x) => `<item>${x}</item>`).join('') : String(v)}</${k}>`,
      )
      .join('')
    return reply.type('application/xml').send(`<?xml version="1.0"?><resource>${inner}</resource>`)
  }
  return reply.type('application/json').send(JSON.stringify(data))
}

type Variant = 'by hand' | '@restwell/negotiation'

/** The field names of a Vary value, lower-cased and sorted. */
function varyNames(value: unknown): string[] {
  return String(value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
    .sort()
}

interface Store {
  headline: number
  note: string
}

async function buildApp(seen: Seen[], store: Store, variant: Variant): Promise<FastifyInstance> {
  const byHand = variant === 'by hand'
  const app = Fastify()
  app.addHook('onRequest', (request, _reply, done) => {
    seen.push({
      method: request.method,
      url: request.url,
      ifNoneMatch: request.headers['if-none-match'],
      authorization: request.headers.authorization,
    })
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    for (let i = seen.length - 1; i >= 0; i--) {
      const entry = seen[i] as Seen
      if (
        entry.status === undefined &&
        entry.url === request.url &&
        entry.method === request.method
      ) {
        entry.status = reply.statusCode
        entry.headers = { ...reply.getHeaders() }
        break
      }
    }
    done()
  })
  // The umbrella orders conditional around its compression step: each coding its own ETag.
  await app.register(restwell, {
    errors: { format: 'simple' },
    negotiation: byHand
      ? false
      : { produces: ['application/json', 'application/xml'], formbody: false, multipart: false },
    compress: { threshold: 64, encodings: ['gzip'] },
    cors: false,
    rateLimit: false,
    underPressure: false,
    methods: false,
    methodOverride: false,
    versioning: false,
    patch: false,
    pagination: false,
    softDelete: false,
    naming: false,
  })

  // Negotiated by Accept and Accept-Language; public for a minute.
  app.get(
    '/books',
    {
      config: {
        cache: byHand
          ? { public: true, maxAge: 60, vary: ['Accept', 'Accept-Language'] }
          : { public: true, maxAge: 60 },
        negotiation: { languages: ['en', 'fr'] },
      },
    },
    async (request, reply) => {
      if (!byHand) {
        const lang = request.language as string
        return { language: lang, titles: TITLES[lang] as string[] }
      }
      const { lang } = negotiate(request)
      return represent(reply, request, { language: lang, titles: TITLES[lang] as string[] })
    },
  )
  // Public for one second: revalidated with If-None-Match once stale.
  app.get(
    '/headlines',
    { config: { cache: { public: true, maxAge: 1 } } },
    async (request, reply) => {
      const data = { headline: `Edition number ${store.headline}`, padding: 'x'.repeat(80) }
      return byHand ? represent(reply, request, data) : data
    },
  )
  app.put('/headlines', async () => {
    store.headline++
    return { headline: store.headline }
  })
  // Public, shared, but the body depends on who asks: the route says it authenticates (an
  // authentication of its own), so it varies on Authorization.
  app.get(
    '/greeting',
    { config: { cache: { public: true, maxAge: 60, authenticates: true } } },
    async (request) => {
      const who = request.headers.authorization?.replace(/^Bearer /, '') ?? 'anonymous'
      return { greeting: `hello ${who}` }
    },
  )
  // It authenticates: `private, no-cache`.
  app.get('/me', { config: { cache: { authenticates: true } } }, async (request) => {
    const auth = request.headers.authorization
    if (auth === undefined) {
      throw httpErrors.unauthorized('Sign in', { headers: { 'www-authenticate': 'Bearer' } })
    }
    return { user: auth.replace(/^Bearer /, ''), padding: 'y'.repeat(80) }
  })
  // Shared but revalidated on every use (`public, no-cache`): a write is seen at once.
  app.get('/notes/1', { config: { cache: { public: true } } }, async () => ({ note: store.note }))
  app.put('/notes/1', async (request) => {
    store.note = (request.body as { note: string }).note
    return { note: store.note }
  })
  app.post('/notes', async (_request, reply) => {
    reply.code(201).header('location', '/notes/2')
    return { id: 2 }
  })
  app.get('/missing', async () => {
    throw httpErrors.notFound('No such thing')
  })
  app.get('/boom', async () => {
    throw new Error('kaput')
  })
  await app.listen({ port: await freePort(), host: '127.0.0.1' })
  return app
}

function nginxConfig(dir: string, port: number, upstream: number): string {
  return `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 128; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy_temp;
  fastcgi_temp_path ${dir}/fastcgi_temp;
  uwsgi_temp_path ${dir}/uwsgi_temp;
  scgi_temp_path ${dir}/scgi_temp;
  proxy_cache_path ${dir}/cache levels=1 keys_zone=restwell:1m max_size=16m inactive=10m use_temp_path=off;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://127.0.0.1:${upstream};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache restwell;
      proxy_cache_revalidate on;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }
}
`
}

async function startNginx(dir: string, port: number, upstream: number): Promise<ChildProcess> {
  const conf = join(dir, 'nginx.conf')
  writeFileSync(conf, nginxConfig(dir, port, upstream))
  const child = spawn(NGINX, ['-p', dir, '-e', join(dir, 'error.log'), '-c', conf], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()))
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${output}`)
    try {
      await send(port, '/__ready__')
      return child
    } catch {
      await sleep(50)
    }
  }
  throw new Error(`nginx did not start: ${output}`)
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

for (const variant of ['by hand', '@restwell/negotiation'] as const) {
  test(`through a real shared cache (nginx proxy_cache), negotiation ${variant}`, {
    // On a developer's machine without nginx the test is skipped; in CI it must run.
    skip: !existsSync(NGINX) && process.env.CI === undefined && `nginx is not installed (${NGINX})`,
  }, async (t) => {
    if (!existsSync(NGINX))
      throw new Error(`nginx is required in CI: apt-get install nginx (looked for ${NGINX})`)
    const seen: Seen[] = []
    const store: Store = { headline: 1, note: 'first' }
    const app = await buildApp(seen, store, variant)
    /** Vary names every response of a plain route carries: @restwell/negotiation adds Accept. */
    const base = variant === 'by hand' ? [] : ['accept']
    const expectVary = (value: unknown, names: string[], message: string) =>
      t.same(varyNames(value), [...base, ...names].sort(), message)
    const upstream = (app.server.address() as { port: number }).port
    const dir = mkdtempSync(join(tmpdir(), 'restwell-nginx-'))
    const port = await freePort()
    const nginx = await startNginx(dir, port, upstream)
    // first: show nginx's log when something failed, before the folder is removed
    t.teardown(() => {
      if (t.passing()) return
      const log = join(dir, 'error.log')
      if (existsSync(log)) t.comment(readFileSync(log, 'utf8'))
    })
    t.teardown(async () => {
      await stopChild(nginx)
      await app.close()
      rmSync(dir, { recursive: true, force: true })
    })
    const seenFor = (method: string, url: string): Seen[] =>
      seen.filter((s) => s.method === method && s.url === url)
    const direct = (path: string, options?: Parameters<typeof send>[2]) =>
      send(upstream, path, options)
    const cached = (path: string, options?: Parameters<typeof send>[2]) => send(port, path, options)

    await t.test('a public GET is served from the cache the second time', async (t) => {
      const first = await cached('/books', { headers: { accept: 'application/json' } })
      const second = await cached('/books', { headers: { accept: 'application/json' } })
      t.equal(first.status, 200)
      t.equal(second.status, 200)
      t.equal(first.headers['x-cache-status'], 'MISS')
      t.equal(second.headers['x-cache-status'], 'HIT')
      t.equal(second.text, first.text)
      t.equal(second.headers.etag, first.headers.etag)
      t.equal(first.headers['cache-control'], 'public, max-age=60')
      t.equal(seenFor('GET', '/books').length, 1, 'the app saw one request')
    })

    await t.test('revalidated with If-None-Match once stale: the app answers 304', async (t) => {
      const first = await cached('/headlines')
      const second = await cached('/headlines')
      t.equal(second.headers['x-cache-status'], 'HIT')
      t.equal(seenFor('GET', '/headlines').length, 1)
      await sleep(2100)
      const third = await cached('/headlines')
      t.equal(third.status, 200, 'the client gets the stored body')
      t.equal(third.text, first.text)
      t.equal(third.headers['x-cache-status'], 'REVALIDATED')
      const requests = seenFor('GET', '/headlines')
      t.equal(requests.length, 2)
      const revalidation = requests[1] as Seen
      t.equal(revalidation.ifNoneMatch, first.headers.etag, 'nginx sent the stored ETag')
      t.equal(revalidation.status, 304, 'the app answered 304')
      const h = revalidation.headers as Record<string, unknown>
      t.equal(h['cache-control'], 'public, max-age=1', 'the 304 repeats Cache-Control')
      expectVary(h.vary, ['accept-encoding'], 'the 304 repeats Vary')
      t.equal(h.etag, first.headers.etag)
      t.notOk('content-length' in h, 'no Content-Length on the 304')
      t.notOk('content-type' in h, 'no Content-Type on the 304')
    })

    await t.test(
      'a write through the cache: what nginx does and does not invalidate',
      async (t) => {
        // nginx does not implement RFC 9111 §4.4 (invalidate the target URI after an unsafe
        // method): a stored response stays until it is stale. So max-age bounds how long a write
        // can go unseen, and a resource that must show writes at once says `no-cache`.
        const before = await cached('/headlines')
        const put = await cached('/headlines', { method: 'PUT' })
        t.equal(put.status, 200)
        t.equal(put.headers['cache-control'], 'no-store')
        t.equal(seenFor('PUT', '/headlines').length, 1, 'the write reached the app')
        const stale = await cached('/headlines')
        t.equal(
          stale.text,
          before.text,
          'nginx still serves the stored copy (no §4.4 invalidation)',
        )
        t.equal(stale.headers['x-cache-status'], 'HIT')
        await sleep(2100)
        const after = await cached('/headlines')
        t.match(
          after.text,
          `Edition number ${store.headline}`,
          'the write is seen once max-age is over',
        )
        t.not(after.headers.etag, before.headers.etag)
        const last = seenFor('GET', '/headlines').at(-1) as Seen
        t.equal(last.ifNoneMatch, before.headers.etag, 'revalidated with the old ETag')
        t.equal(last.status, 200, 'the app answered 200 with the new representation')

        // `public, no-cache`: nginx does not store it at all, so every read reaches the app.
        const note1 = await cached('/notes/1')
        t.equal(note1.headers['cache-control'], 'public, no-cache')
        t.same(JSON.parse(note1.text), { note: 'first' })
        const write = await cached('/notes/1', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ note: 'second' }),
        })
        t.equal(write.status, 200)
        t.equal(write.headers['cache-control'], 'no-store')
        const note2 = await cached('/notes/1')
        t.same(JSON.parse(note2.text), { note: 'second' }, 'the write is seen at once')
        t.equal(seenFor('GET', '/notes/1').length, 2)
      },
    )

    await t.test('JSON and XML of one URL are never mixed up', async (t) => {
      const before = seenFor('GET', '/books').length
      const json = await cached('/books', { headers: { accept: 'application/json' } })
      const xml = await cached('/books', { headers: { accept: 'application/xml' } })
      const xml2 = await cached('/books', { headers: { accept: 'application/xml' } })
      const json2 = await cached('/books', { headers: { accept: 'application/json' } })
      t.match(json.headers['content-type'], /^application\/json/)
      t.match(xml.headers['content-type'], /^application\/xml/)
      t.match(xml.text, /^<\?xml/)
      t.equal(xml2.text, xml.text)
      t.match(xml2.headers['content-type'], /^application\/xml/)
      t.equal(json2.text, json.text)
      t.match(json2.headers['content-type'], /^application\/json/)
      t.not(json.headers.etag, xml.headers.etag)
      t.same(varyNames(json.headers.vary), ['accept', 'accept-encoding', 'accept-language'])
      t.equal(
        seenFor('GET', '/books').length,
        before + 1,
        'only the first XML request reached the app',
      )
      t.equal(xml2.headers['x-cache-status'], 'HIT')
    })

    await t.test('gzip and identity encodings are never mixed up', async (t) => {
      const headers = { accept: 'application/json' }
      const before = seenFor('GET', '/books').length
      const gz = await cached('/books', { headers: { ...headers, 'accept-encoding': 'gzip' } })
      const id = await cached('/books', { headers })
      const gz2 = await cached('/books', { headers: { ...headers, 'accept-encoding': 'gzip' } })
      t.equal(gz.headers['content-encoding'], 'gzip')
      t.equal(gz2.headers['content-encoding'], 'gzip')
      t.equal(id.headers['content-encoding'], undefined)
      t.equal(id.headers['x-cache-status'], 'HIT')
      t.equal(gz2.headers['x-cache-status'], 'HIT')
      t.equal(gz.text, id.text, 'same representation, two encodings')
      t.equal(id.body.toString(), id.text, 'identity bytes are plain')
      t.match(gz.headers.etag, /-gzip"$/)
      t.not(gz.headers.etag, id.headers.etag, 'the gzip copy has its own strong ETag')
      t.equal(seenFor('GET', '/books').length, before + 1)
    })

    await t.test('two languages are never mixed up', async (t) => {
      const before = seenFor('GET', '/books').length
      const json = { accept: 'application/json' }
      const fr = await cached('/books', { headers: { ...json, 'accept-language': 'fr' } })
      const en = await cached('/books', { headers: { ...json, 'accept-language': 'en' } })
      const fr2 = await cached('/books', { headers: { ...json, 'accept-language': 'fr' } })
      const en2 = await cached('/books', { headers: { ...json, 'accept-language': 'en' } })
      t.equal(fr.headers['content-language'], 'fr')
      t.match(fr.text, 'Le Nom de la rose')
      t.equal(fr2.text, fr.text)
      t.equal(fr2.headers['content-language'], 'fr')
      t.equal(en.headers['content-language'], 'en')
      t.match(en2.text, 'The Name of the Rose')
      t.equal(en2.headers['content-language'], 'en')
      t.equal(fr2.headers['x-cache-status'], 'HIT')
      t.equal(en2.headers['x-cache-status'], 'HIT')
      t.equal(seenFor('GET', '/books').length, before + 2)
    })

    await t.test(
      'a public response that depends on Authorization is kept per credential',
      async (t) => {
        const anon = await cached('/greeting')
        const alice = await cached('/greeting', { headers: { authorization: 'Bearer alice' } })
        const bob = await cached('/greeting', { headers: { authorization: 'Bearer bob' } })
        const alice2 = await cached('/greeting', { headers: { authorization: 'Bearer alice' } })
        const anon2 = await cached('/greeting')
        expectVary(anon.headers.vary, ['accept-encoding', 'authorization'], 'Vary: Authorization')
        t.same(JSON.parse(anon2.text), { greeting: 'hello anonymous' })
        t.same(JSON.parse(alice.text), { greeting: 'hello alice' })
        t.same(JSON.parse(bob.text), { greeting: 'hello bob' })
        t.same(JSON.parse(alice2.text), { greeting: 'hello alice' })
        t.equal(alice2.headers['x-cache-status'], 'HIT')
        t.equal(anon2.headers['x-cache-status'], 'HIT')
        t.equal(seenFor('GET', '/greeting').length, 3)
      },
    )

    await t.test('private and authorized responses are never served from the cache', async (t) => {
      const a = await cached('/me', { headers: { authorization: 'Bearer alice' } })
      const b = await cached('/me', { headers: { authorization: 'Bearer bob' } })
      const a2 = await cached('/me', { headers: { authorization: 'Bearer alice' } })
      t.equal(a.headers['cache-control'], 'private, no-cache')
      t.same(JSON.parse(a.text).user, 'alice')
      t.same(JSON.parse(b.text).user, 'bob')
      t.same(JSON.parse(a2.text).user, 'alice')
      t.equal(seenFor('GET', '/me').length, 3, 'every request reached the app')
      t.not(a2.headers['x-cache-status'], 'HIT')
      // A conditional request from the client: nginx does not pass If-None-Match upstream on a
      // cache-enabled location, and does not make a 304 from a response it may not store; the
      // client gets the full 200, which is correct.
      const again = await cached('/me', {
        headers: { authorization: 'Bearer alice', 'if-none-match': a.headers.etag as string },
      })
      t.equal(again.status, 200)
      // Directly, the app answers 304 with exactly the §15.4.5 headers.
      const direct304 = await direct('/me', {
        headers: { authorization: 'Bearer alice', 'if-none-match': a.headers.etag as string },
      })
      t.equal(direct304.status, 304)
      t.equal(direct304.body.length, 0)
      t.equal(direct304.headers['cache-control'], 'private, no-cache')
      t.equal(direct304.headers.etag, a.headers.etag)
      expectVary(direct304.headers.vary, ['accept-encoding', 'authorization'], 'the 304 Vary')
      t.equal(direct304.headers['content-length'], undefined)
      t.equal(direct304.headers['content-type'], undefined)
    })

    await t.test(
      'a conditional request on a stored response: nginx answers 304 itself',
      async (t) => {
        const stored = await cached('/books', { headers: { accept: 'application/json' } })
        const count = seenFor('GET', '/books').length
        const res = await cached('/books', {
          headers: { accept: 'application/json', 'if-none-match': stored.headers.etag as string },
        })
        t.equal(res.status, 304)
        t.equal(res.body.length, 0)
        t.equal(res.headers.etag, stored.headers.etag)
        t.equal(res.headers['cache-control'], 'public, max-age=60')
        t.equal(res.headers.vary, stored.headers.vary)
        t.equal(res.headers['content-length'], undefined, 'no Content-Length: 0')
        t.equal(seenFor('GET', '/books').length, count)
      },
    )

    await t.test('errors and writes are never served from the cache', async (t) => {
      for (let i = 0; i < 2; i++) {
        const missing = await cached('/missing')
        t.equal(missing.status, 404)
        t.equal(missing.headers['cache-control'], 'no-store')
        const boom = await cached('/boom')
        t.equal(boom.status, 500)
        t.equal(boom.headers['cache-control'], 'no-store')
        const anon = await cached('/me')
        t.equal(anon.status, 401)
        t.equal(anon.headers['www-authenticate'], 'Bearer')
        const created = await cached('/notes', { method: 'POST' })
        t.equal(created.status, 201)
        t.equal(created.headers['cache-control'], 'no-store')
        const unknown = await cached('/nowhere')
        t.equal(unknown.status, 404)
        t.equal(unknown.headers['cache-control'], 'no-store')
      }
      t.equal(seenFor('GET', '/missing').length, 2)
      t.equal(seenFor('GET', '/boom').length, 2)
      t.equal(seenFor('POST', '/notes').length, 2)
      t.equal(seenFor('GET', '/nowhere').length, 2)
    })

    await t.test(
      'the client sees the same statuses, headers and bodies through the cache',
      async (t) => {
        const cases: Array<[string, Parameters<typeof send>[2]]> = [
          ['/books', { headers: { accept: 'application/xml', 'accept-language': 'fr' } }],
          ['/books', { headers: { accept: 'application/json', 'accept-encoding': 'gzip' } }],
          ['/greeting', { headers: { authorization: 'Bearer carol' } }],
          ['/me', { headers: { authorization: 'Bearer dave' } }],
          ['/me', {}],
          ['/missing', {}],
          ['/boom', {}],
          ['/nowhere', {}],
          ['/notes', { method: 'POST' }],
          ['/notes/1', { method: 'OPTIONS' }],
          ['/notes/1', { method: 'DELETE' }],
        ]
        const compared = [
          'cache-control',
          'vary',
          'etag',
          'content-type',
          'content-encoding',
          'content-language',
          'location',
          'www-authenticate',
          'allow',
        ]
        for (const [path, options] of cases) {
          // twice through the cache: the first may be a miss, the second a hit
          for (const viaCache of [await cached(path, options), await cached(path, options)]) {
            const viaApp = await direct(path, options)
            const label = `${options?.method ?? 'GET'} ${path} ${JSON.stringify(options?.headers ?? {})}`
            t.equal(viaCache.status, viaApp.status, `${label}: status`)
            t.equal(
              withoutRequestId(viaCache.text),
              withoutRequestId(viaApp.text),
              `${label}: body`,
            )
            for (const name of compared) {
              t.equal(viaCache.headers[name], viaApp.headers[name], `${label}: ${name}`)
            }
            const directives = parseCacheControl(viaApp.headers['cache-control'])
            t.ok(directives.size > 0, `${label}: an explicit Cache-Control`)
          }
        }
      },
    )
  })
}
