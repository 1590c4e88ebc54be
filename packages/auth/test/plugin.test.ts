import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import cors from '@fastify/cors'
import { httpErrors, restwellErrors } from '@restwell/errors'
import { authenticates } from '@restwell/core'
import { addRewriter } from '@restwell/reroute'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { type AuthOptions, InvalidTokenError, restwellAuth } from '../src/index.js'

interface User {
  id: string
  scopes?: string[]
  scope?: string
}

const USERS: Record<string, User> = {
  alice: { id: 'alice', scopes: ['books:read', 'books:write'] },
  bob: { id: 'bob', scopes: ['books:read'] },
  carol: { id: 'carol', scope: 'books:read  admin' },
  dave: { id: 'dave' },
}

async function verify(token: string): Promise<User | null> {
  if (token === 'expired') throw new InvalidTokenError('The access token expired')
  if (token === 'revoked') throw new InvalidTokenError('')
  if (token === 'crash') throw new Error('db password hunter2')
  if (token === 'down')
    throw httpErrors.serviceUnavailable('IdP down', { headers: { 'retry-after': 5 } })
  if (token === 'false') return false as unknown as null
  if (token === 'withdrawn') throw httpErrors.unauthorized('The token was revoked')
  if (token === 'coded')
    throw httpErrors.unauthorized('', { code: 'TOKEN_REVOKED', headers: { 'x-reason': 'r' } })
  if (token === 'masked') throw httpErrors.unauthorized('key 7 of kid-3 unknown', { expose: false })
  if (token === 'challenged')
    throw httpErrors.unauthorized('Step up', {
      headers: { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token", acr="mfa"' },
    })
  return USERS[token] ?? null
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })

async function build(
  options: Partial<AuthOptions> = {},
  routes?: (app: FastifyInstance) => void,
): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellAuth, { verify, ...options })
  app.get('/books', async (request) => ({ principal: request.principal ?? null }))
  app.post('/books', { config: { auth: { scopes: ['books:write'] } } }, async () => 'created')
  app.get('/health', { config: { auth: false } }, async (request) => ({
    ok: true,
    principal: request.principal ?? null,
  }))
  app.get('/admin', { config: { auth: { scopes: ['admin'] } } }, async () => 'admin')
  app.get(
    '/own/:id',
    {
      config: {
        auth: {
          allow: async (principal, request) =>
            (principal as User).id === (request.params as { id: string }).id,
        },
      },
    },
    async () => 'mine',
  )
  app.get('/maybe', { config: { auth: { optional: true } } }, async (request) => ({
    principal: request.principal ?? null,
  }))
  app.get('/marked', { config: { auth: true } }, async () => 'marked')
  routes?.(app)
  await app.ready()
  return app
}

test('missing credentials: 401, WWW-Authenticate without error, JSON error body', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/books' })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], 'Bearer realm="api"')
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.json().error.code, 'MISSING_CREDENTIALS')
  const basic = await app.inject({ url: '/books', headers: { authorization: 'Basic dTpw' } })
  t.equal(basic.statusCode, 401, 'an unsupported scheme is treated as no credentials')
  t.equal(basic.headers['www-authenticate'], 'Bearer realm="api"')
})

test('malformed Authorization: 400 invalid_request', async (t) => {
  const app = await build()
  for (const authorization of ['Bearer', 'Bearer a b', 'Bearer a,Bearer b', '=x']) {
    const res = await app.inject({ url: '/books', headers: { authorization } })
    t.equal(res.statusCode, 400, authorization)
    t.match(
      res.headers['www-authenticate'],
      /^Bearer realm="api", error="invalid_request", error_description="[^"]+"$/,
    )
    t.equal(res.json().error.code, 'MALFORMED_CREDENTIALS')
  }
})

test('several Authorization lines on the wire: 400 invalid_request', async (t) => {
  const app = await build()
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        'GET /books HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice\r\nAuthorization: Bearer bob\r\nConnection: close\r\n\r\n',
      )
    })
    let data = ''
    socket.on('data', (chunk) => {
      data += chunk.toString()
    })
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
  })
  t.match(raw, /^HTTP\/1\.1 400/)
  t.match(
    raw,
    /www-authenticate: Bearer realm="api", error="invalid_request", error_description="several Authorization headers"/i,
  )
})

test('invalid or expired token: 401 invalid_token with a description', async (t) => {
  const app = await build()
  const unknown = await app.inject({ url: '/books', headers: bearer('nobody') })
  t.equal(unknown.statusCode, 401)
  t.equal(
    unknown.headers['www-authenticate'],
    'Bearer realm="api", error="invalid_token", error_description="The access token is invalid or has expired"',
  )
  t.equal(unknown.json().error.code, 'INVALID_TOKEN')
  const expired = await app.inject({ url: '/books', headers: bearer('expired') })
  t.equal(expired.statusCode, 401)
  t.match(expired.headers['www-authenticate'], /error_description="The access token expired"/)
  t.equal(expired.json().error.message, 'The access token expired')
  const revoked = await app.inject({ url: '/books', headers: bearer('revoked') })
  t.match(revoked.headers['www-authenticate'], /error_description="The access token is invalid/)
  const no = await app.inject({ url: '/books', headers: bearer('false') })
  t.equal(no.statusCode, 401)
})

test('a verify that throws is a server fault; an HttpError it throws is sent as is', async (t) => {
  const app = await build()
  const crash = await app.inject({ url: '/books', headers: bearer('crash') })
  t.equal(crash.statusCode, 500)
  t.notMatch(crash.body, /hunter2/)
  t.equal(crash.headers['www-authenticate'], undefined)
  const down = await app.inject({ url: '/books', headers: bearer('down') })
  t.equal(down.statusCode, 503)
  t.equal(down.headers['retry-after'], '5')
})

test('verify rejecting with a 401 HttpError: the invalid_token challenge is added', async (t) => {
  const app = await build({}, (app) => {
    app.get('/me', async () => {
      throw httpErrors.unauthorized('Session expired')
    })
    app.get('/own', async (_request, reply) => {
      reply.header('www-authenticate', 'Bearer realm="api", error="invalid_token"')
      throw httpErrors.unauthorized('Own challenge')
    })
    app.get('/gone', async () => {
      throw httpErrors.gone('No more')
    })
    app.get('/coded', async (_request, reply) => {
      reply.code(401)
      throw new Error('a library error with no status of its own')
    })
    app.get('/open', { config: { auth: false } }, async () => {
      throw httpErrors.unauthorized('Public route')
    })
  })
  const revoked = await app.inject({ url: '/books', headers: bearer('withdrawn') })
  t.equal(revoked.statusCode, 401)
  t.equal(
    revoked.headers['www-authenticate'],
    'Bearer realm="api", error="invalid_token", error_description="The token was revoked"',
  )
  t.equal(revoked.json().error.code, 'INVALID_TOKEN', "the status's default code becomes ours")
  t.equal(revoked.json().error.message, 'The token was revoked')
  const hidden = await app.inject({ url: '/nope', headers: bearer('withdrawn') })
  t.equal(hidden.statusCode, 401, 'hideRoutes path')
  t.equal(hidden.headers['www-authenticate'], revoked.headers['www-authenticate'])
  const coded = await app.inject({ url: '/books', headers: bearer('coded') })
  t.equal(coded.json().error.code, 'TOKEN_REVOKED', 'a code of its own is kept')
  t.equal(coded.headers['x-reason'], 'r', 'and its headers')
  t.match(coded.headers['www-authenticate'], /error_description="The access token is invalid/)
  const masked = await app.inject({ url: '/books', headers: bearer('masked') })
  t.match(masked.headers['www-authenticate'], /error_description="The access token is invalid/)
  t.notMatch(masked.body, /kid-3/, 'a message not to be shown stays out of the header too')
  const challenged = await app.inject({ url: '/books', headers: bearer('challenged') })
  t.equal(
    challenged.headers['www-authenticate'],
    'Bearer realm="api", error="invalid_token", acr="mfa"',
    'a challenge of its own is sent as is',
  )
  t.equal(challenged.json().error.code, 'UNAUTHORIZED')

  const handler = await app.inject({ url: '/me', headers: bearer('alice') })
  t.equal(handler.statusCode, 401)
  t.equal(handler.headers['www-authenticate'], 'Bearer realm="api"', "a handler's 401 too")
  t.equal(handler.json().error.message, 'Session expired')
  const own = await app.inject({ url: '/own', headers: bearer('alice') })
  t.equal(own.headers['www-authenticate'], 'Bearer realm="api", error="invalid_token"')
  const status = await app.inject({ url: '/coded', headers: bearer('alice') })
  t.equal(status.statusCode, 401)
  t.equal(status.headers['www-authenticate'], 'Bearer realm="api"', 'status set on the reply')
  const gone = await app.inject({ url: '/gone', headers: bearer('alice') })
  t.equal(gone.statusCode, 410)
  t.equal(gone.headers['www-authenticate'], undefined, 'only on 401 answers')
  const open = await app.inject({ url: '/open' })
  t.equal(open.statusCode, 401)
  t.equal(open.headers['www-authenticate'], undefined, 'public routes are left alone')
})

test("alone, a handler 401 gets the challenge through Fastify's default handler", async (t) => {
  const app = Fastify()
  await app.register(restwellAuth, { verify, hideRoutes: false })
  app.get('/me', async () => {
    throw httpErrors.unauthorized('Session expired')
  })
  const res = await app.inject({ url: '/me', headers: bearer('alice') })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], 'Bearer realm="api"')
  const verified = await app.inject({ url: '/me', headers: bearer('withdrawn') })
  t.match(verified.headers['www-authenticate'], /error="invalid_token"/)
})

test('a valid token: the principal reaches the handler', async (t) => {
  const app = await build()
  const res = await app.inject({ url: '/books', headers: bearer('alice') })
  t.equal(res.statusCode, 200)
  t.same(res.json().principal, USERS.alice)
  const head = await app.inject({ method: 'HEAD', url: '/books' })
  t.equal(head.statusCode, 401, 'the automatic HEAD route is protected too')
  t.equal((await app.inject({ url: '/marked', headers: bearer('dave') })).statusCode, 200)
})

test('scopes: all required; missing ones → 403 insufficient_scope naming the scopes', async (t) => {
  const app = await build()
  t.equal(
    (await app.inject({ method: 'POST', url: '/books', headers: bearer('alice') })).statusCode,
    200,
  )
  const bob = await app.inject({ method: 'POST', url: '/books', headers: bearer('bob') })
  t.equal(bob.statusCode, 403)
  t.equal(bob.json().error.code, 'INSUFFICIENT_SCOPE')
  t.equal(
    bob.headers['www-authenticate'],
    'Bearer realm="api", error="insufficient_scope", error_description="Insufficient scope: requires books:write", scope="books:write"',
  )
  t.equal(
    (await app.inject({ url: '/admin', headers: bearer('carol') })).statusCode,
    200,
    'space-separated scope claim',
  )
  t.equal(
    (await app.inject({ url: '/admin', headers: bearer('dave') })).statusCode,
    403,
    'no scopes at all',
  )
})

test('allow predicate: false → 403 without a scope attribute', async (t) => {
  const app = await build()
  t.equal((await app.inject({ url: '/own/bob', headers: bearer('bob') })).statusCode, 200)
  const res = await app.inject({ url: '/own/alice', headers: bearer('bob') })
  t.equal(res.statusCode, 403)
  t.equal(
    res.headers['www-authenticate'],
    'Bearer realm="api", error="insufficient_scope", error_description="The credentials do not permit this request"',
  )
})

test('public routes and optional credentials', async (t) => {
  const app = await build()
  const health = await app.inject({ url: '/health', headers: { authorization: 'garbage here' } })
  t.equal(health.statusCode, 200, 'a public route never reads the header')
  t.same(health.json(), { ok: true, principal: null })
  t.same((await app.inject({ url: '/maybe' })).json(), { principal: null })
  t.same((await app.inject({ url: '/maybe', headers: { authorization: 'Basic x' } })).json(), {
    principal: null,
  })
  t.same((await app.inject({ url: '/maybe', headers: bearer('bob') })).json(), {
    principal: USERS.bob,
  })
  t.equal((await app.inject({ url: '/maybe', headers: bearer('nobody') })).statusCode, 401)
  t.equal(
    (await app.inject({ url: '/maybe', headers: { authorization: 'Bearer' } })).statusCode,
    400,
  )
})

test('the routes the guard applies to are marked AUTHENTICATES, the others not', async (t) => {
  for (const defaultProtected of [true, false]) {
    const marked = new Map<string, boolean>()
    await build({ defaultProtected }, (app) => {
      app.addHook('onRoute', (route) => {
        // onRoute hooks run in the order they were added: auth's first, then this one.
        if (route.method === 'GET') marked.set(route.url, authenticates(route))
      })
      app.get('/late', async () => 'late')
      app.get('/late-public', { config: { auth: false } }, async () => 'public')
      app.get('/late-optional', { config: { auth: { optional: true } } }, async () => 'maybe')
    })
    t.same(
      Object.fromEntries(marked),
      { '/late': defaultProtected, '/late-public': false, '/late-optional': true },
      `defaultProtected: ${defaultProtected}`,
    )
  }
})

test('defaultProtected: false leaves unmarked routes public', async (t) => {
  const app = await build({ defaultProtected: false })
  t.equal((await app.inject({ url: '/books' })).statusCode, 200)
  t.equal((await app.inject({ url: '/marked' })).statusCode, 401)
  t.equal((await app.inject({ url: '/admin', headers: bearer('bob') })).statusCode, 403)
  t.equal(
    (await app.inject({ url: '/nowhere' })).statusCode,
    404,
    'hideRoutes follows defaultProtected',
  )
})

test('plugin-wide requirement, overridden field by field by the route', async (t) => {
  const app = await build({
    requirement: { scopes: ['books:read'], allow: (p) => (p as User).id !== 'carol' },
    scopesOf: (p) => (p as User).scopes,
    realm: 'library',
  })
  t.equal((await app.inject({ url: '/books', headers: bearer('bob') })).statusCode, 200)
  const dave = await app.inject({ url: '/books', headers: bearer('dave') })
  t.equal(dave.statusCode, 403)
  t.match(
    dave.headers['www-authenticate'],
    /^Bearer realm="library", error="insufficient_scope".*scope="books:read"$/,
  )
  t.equal(
    (await app.inject({ url: '/books', headers: bearer('carol') })).statusCode,
    403,
    'custom scopesOf ignores `scope`',
  )
  t.equal(
    (await app.inject({ url: '/own/carol', headers: bearer('carol') })).statusCode,
    403,
    'default scopes still apply',
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/books', headers: bearer('alice') })).statusCode,
    200,
  )
})

test('with hideRoutes, a 401 an earlier hook answers on an unknown path carries the challenge', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  // What a rate limit's keyGenerator that demands credentials does, before auth's hook.
  app.addHook('onRequest', async (request) => {
    if (request.headers['x-client'] === undefined) throw httpErrors.unauthorized('Say who you are')
  })
  await app.register(restwellAuth, { verify })
  app.get('/health', { config: { auth: false } }, async () => {
    throw httpErrors.gone('Retired')
  })
  const hidden = await app.inject({ url: '/nowhere' })
  t.equal(hidden.statusCode, 401)
  t.equal(hidden.headers['www-authenticate'], 'Bearer realm="api"', 'RFC 9110 §15.5.2')
  t.equal(hidden.json().error.message, 'Say who you are')
  const open = await app.inject({ url: '/health' })
  t.equal(open.statusCode, 401)
  t.equal(open.headers['www-authenticate'], undefined, 'a public route is still left alone')
  const gone = await app.inject({ url: '/health', headers: { 'x-client': 'a' } })
  t.equal(gone.statusCode, 410)
  t.equal(gone.headers['www-authenticate'], undefined)
})

test('unknown paths require credentials before answering 404 (hideRoutes)', async (t) => {
  const app = await build()
  const anon = await app.inject({ url: '/secret-admin-panel' })
  t.equal(anon.statusCode, 401)
  t.equal(anon.headers['www-authenticate'], 'Bearer realm="api"')
  t.equal(
    (await app.inject({ url: '/secret-admin-panel', headers: bearer('dave') })).statusCode,
    404,
  )
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/books' })).statusCode,
    401,
    'a 405 candidate too',
  )
  const open = await build({ hideRoutes: false })
  t.equal((await open.inject({ url: '/secret-admin-panel' })).statusCode, 404)
})

test('a CORS layer registered first answers preflights; without one they are ordinary requests', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(cors, { origin: 'https://app.example' })
  await app.register(restwellAuth, { verify })
  app.get('/books', async () => 'books')
  const preflight = {
    method: 'OPTIONS' as const,
    headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
  }
  const res = await app.inject({ ...preflight, url: '/books' })
  t.equal(res.statusCode, 204)
  t.equal(res.headers['access-control-allow-origin'], 'https://app.example')
  const actual = await app.inject({ url: '/books', headers: { origin: 'https://app.example' } })
  t.equal(actual.statusCode, 401)
  t.equal(
    actual.headers['access-control-allow-origin'],
    'https://app.example',
    'the 401 is readable by the page',
  )
  // Without a CORS layer in front, nothing answers a preflight: the two headers are only
  // headers any client can send, and never stand in for credentials.
  const bare = Fastify()
  await bare.register(restwellErrors)
  await bare.register(restwellAuth, { verify })
  bare.options('/x', async () => 'options')
  bare.get('/internal', async () => 'secret')
  for (const url of ['/x', '/unknown', '/internal']) {
    const res = await bare.inject({ ...preflight, url })
    t.equal(res.statusCode, 401, `${url}: a lookalike preflight is not let through`)
    t.equal(res.json().error.code, 'MISSING_CREDENTIALS')
  }
  t.equal(
    (
      await bare.inject({
        ...preflight,
        url: '/x',
        headers: { ...preflight.headers, ...bearer('bob') },
      })
    ).statusCode,
    200,
  )
  t.equal(
    (
      await bare.inject({
        method: 'OPTIONS',
        url: '/x',
        headers: { origin: 'https://app.example' },
      })
    ).statusCode,
    401,
  )
})

test('routes registered before the plugin are covered too', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  app.get('/early', async (request) => ({ principal: request.principal ?? null }))
  app.get('/early-public', { config: { auth: false } }, async () => 'public')
  app.get('/early-scoped', { config: { auth: { scopes: ['admin'] } } }, async () => 'admin')
  await app.register(restwellAuth, { verify })
  app.get('/late', async () => 'late')
  for (let i = 0; i < 2; i++) {
    t.equal((await app.inject({ url: '/early' })).statusCode, 401)
    t.same((await app.inject({ url: '/early', headers: bearer('bob') })).json(), {
      principal: USERS.bob,
    })
    t.equal((await app.inject({ url: '/early-public' })).statusCode, 200)
    t.equal((await app.inject({ url: '/early-scoped', headers: bearer('bob') })).statusCode, 403)
    t.equal((await app.inject({ url: '/late' })).statusCode, 401)
  }
  const broken = Fastify()
  broken.get('/early-broken', { config: { auth: { scopes: ['bad scope'] } } }, async () => 'x')
  await t.rejects(
    async () => broken.register(restwellAuth, { verify }),
    /early-broken config.auth/,
    'an invalid config.auth fails registration, as for a later route',
  )
})

test("the route's own onRequest hooks run after authentication", async (t) => {
  const seen: unknown[] = []
  const app = await build({}, (app) => {
    app.get(
      '/hook-fn',
      { onRequest: async (request) => void seen.push(request.principal) },
      async () => 'fn',
    )
    app.get(
      '/hook-array',
      { config: { auth: false }, onRequest: [async () => void seen.push('public')] },
      async () => 'arr',
    )
    app.get(
      '/hook-array-protected',
      { onRequest: [async (request) => void seen.push((request.principal as User).id)] },
      async () => 'arr',
    )
  })
  t.equal((await app.inject({ url: '/hook-fn' })).statusCode, 401)
  t.same(seen, [], 'not reached without credentials')
  await app.inject({ url: '/hook-fn', headers: bearer('bob') })
  await app.inject({ url: '/hook-array' })
  await app.inject({ url: '/hook-array-protected', headers: bearer('dave') })
  t.same(seen, [USERS.bob, 'public', 'dave'])
})

test('an invalid config.auth is refused when the route is registered', async (t) => {
  const app = Fastify()
  await app.register(restwellAuth, { verify })
  t.throws(() => app.get('/x', { config: { auth: { scopes: ['has space'] } } }, async () => 'x'), {
    message:
      '@restwell/auth: route GET /x config.auth: option "scopes.0" must be a string matching /^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,200}$/ (got "has space")',
  })
  t.throws(
    () => app.get('/y', { config: { auth: { role: 'admin' } as never } }, async () => 'y'),
    /config\.auth/,
  )
})

test('options are validated', async (t) => {
  await t.rejects(
    async () => Fastify().register(restwellAuth, {} as AuthOptions),
    /option "verify"/,
  )
  await t.rejects(
    async () => Fastify().register(restwellAuth, { verify, realm: 'a"b' }),
    /option "realm"/,
  )
  await t.rejects(
    async () => Fastify().register(restwellAuth, { verify, https: { host: 'evil.example/path' } }),
    /option "https\.host"/,
  )
})

test('alone, without @restwell/errors, errors keep their status and headers', async (t) => {
  const app = Fastify()
  await app.register(restwellAuth, { verify, hideRoutes: false })
  app.get('/x', async () => 'x')
  const res = await app.inject({ url: '/x' })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], 'Bearer realm="api"')
  t.equal(res.json().code, 'MISSING_CREDENTIALS')
})

test('HTTPS required: safe methods → 308 to https, others → 403 HTTPS_REQUIRED', async (t) => {
  const app = await build({ https: { required: true } })
  const get = await app.inject({ url: '/books?page=2', headers: { host: 'api.example:80' } })
  t.equal(get.statusCode, 308)
  t.equal(get.headers.location, 'https://api.example/books?page=2')
  const unknown = await app.inject({
    method: 'HEAD',
    url: '/x',
    headers: { host: 'api.example:8080' },
  })
  t.equal(unknown.statusCode, 308, 'also before a 401 or a 404')
  t.equal(unknown.headers.location, 'https://api.example:8080/x')
  const post = await app.inject({ method: 'POST', url: '/books', headers: bearer('alice') })
  t.equal(post.statusCode, 403)
  t.equal(post.json().error.code, 'HTTPS_REQUIRED')
  const badHost = await app.inject({ url: '/health', headers: { host: 'a b' } })
  t.equal(badHost.statusCode, 400, '@restwell/errors refuses an invalid Host first (RFC 9112 §3.2)')
  t.equal(badHost.json().error.code, 'MALFORMED_HEADER')
  // Alone, auth itself redirects to no host it cannot vouch for.
  const alone = Fastify()
  t.teardown(() => alone.close())
  await alone.register(restwellAuth, { verify, https: { required: true } })
  alone.get('/health', { config: { auth: false } }, async () => 'ok')
  const aloneBadHost = await alone.inject({ url: '/health', headers: { host: 'a b' } })
  t.equal(aloneBadHost.statusCode, 403, 'no redirect to a host we cannot vouch for')
  const spoofed = await app.inject({ url: '/health', headers: { 'x-forwarded-proto': 'https' } })
  t.equal(spoofed.statusCode, 308, 'X-Forwarded-Proto ignored without trustProxy')
})

test('HTTPS behind a trusted proxy: the first X-Forwarded-Proto decides', async (t) => {
  const app = await build({ https: { required: true, trustProxy: true, host: 'api.example' } })
  t.equal(
    (await app.inject({ url: '/health', headers: { 'x-forwarded-proto': 'HTTPS' } })).statusCode,
    200,
  )
  t.equal(
    (await app.inject({ url: '/health', headers: { 'x-forwarded-proto': 'https, http' } }))
      .statusCode,
    200,
  )
  const http = await app.inject({ url: '/health', headers: { 'x-forwarded-proto': 'http, https' } })
  t.equal(http.statusCode, 308)
  t.equal(http.headers.location, 'https://api.example/health')
  t.equal((await app.inject({ url: '/health' })).statusCode, 308)
})

test('HTTPS over real sockets: plain HTTP redirected, TLS served', async (t) => {
  const app = await build({ https: { required: true } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  const res = await fetch(`http://127.0.0.1:${port}/health?x=1`, { redirect: 'manual' })
  t.equal(res.status, 308)
  t.equal(res.headers.get('location'), `https://127.0.0.1:${port}/health?x=1`)

  const dir = mkdtempSync(join(tmpdir(), 'restwell-auth-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-days',
    '1',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ])
  if (made.status !== 0) {
    t.comment('openssl is not available: TLS part not run')
    return
  }
  const tls = Fastify({
    https: { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
  })
  await tls.register(restwellAuth, { verify, https: { required: true } })
  tls.get('/health', { config: { auth: false } }, async () => 'secure')
  await tls.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => tls.close())
  const tlsPort = (tls.server.address() as { port: number }).port
  const body = await new Promise<string>((resolve, reject) => {
    httpsRequest(
      { host: '127.0.0.1', port: tlsPort, path: '/health', rejectUnauthorized: false },
      (r) => {
        let data = ''
        r.on('data', (c) => {
          data += c
        })
        r.on('end', () => resolve(`${r.statusCode} ${data}`))
      },
    )
      .on('error', reject)
      .end()
  })
  t.equal(body, '200 secure')
})

test('HTTPS redirect of a rerouted request: the URL the client sent', async (t) => {
  // As versioning reroutes through @restwell/reroute: `/books…` served by `/v2/books…`.
  const app = Fastify()
  addRewriter(app, {
    name: 'test-version',
    order: 20,
    rewrite: (target) => {
      if (target.url.startsWith('/books')) target.url = `/v2${target.url}`
    },
  })
  await app.register(restwellErrors)
  await app.register(restwellAuth, { verify, https: { required: true } })
  app.get('/v2/books/:id', async () => 'book')
  const res = await app.inject({ url: '/books/7?version=2', headers: { host: 'api.example' } })
  t.equal(res.statusCode, 308)
  t.equal(res.headers.location, 'https://api.example/books/7?version=2')
})

test('httpsLocation names only a path on a plain host', async (t) => {
  const { httpsLocation } = await import('../src/https.js')
  const fake = (url: string, host?: string) =>
    ({ originalUrl: url, headers: host === undefined ? {} : { host } }) as unknown as Parameters<
      typeof httpsLocation
    >[0]
  t.equal(httpsLocation(fake('*', 'a.example'), undefined), undefined)
  t.equal(httpsLocation(fake('/x'), undefined), undefined)
  t.equal(httpsLocation(fake('/x', '[::1]:8443'), undefined), 'https://[::1]:8443/x')
  t.equal(httpsLocation(fake('/x', 'a.example'), 'b.example:443'), 'https://b.example:443/x')
  const http2 = (authority: string, host?: string) =>
    ({
      originalUrl: '/x',
      headers: { ':authority': authority, ...(host === undefined ? {} : { host }) },
    }) as unknown as Parameters<typeof httpsLocation>[0]
  t.equal(httpsLocation(http2('c.example:8080'), undefined), 'https://c.example:8080/x')
  t.equal(httpsLocation(http2('c.example', 'a.example'), undefined), 'https://a.example/x')
})

test('a principal that is not an object holds no scopes', async (t) => {
  const app = Fastify()
  await app.register(restwellAuth, { verify: (token) => token })
  app.get('/open', async (request) => request.principal as string)
  app.get('/scoped', { config: { auth: { scopes: ['read'] } } }, async () => 'x')
  t.equal((await app.inject({ url: '/open', headers: bearer('someone') })).body, 'someone')
  t.equal((await app.inject({ url: '/scoped', headers: bearer('someone') })).statusCode, 403)
})

test('HTTPS required with hideRoutes off: unknown paths answer 404 once secure', async (t) => {
  const app = await build({ hideRoutes: false, https: { required: true, trustProxy: true } })
  const res = await app.inject({ url: '/nowhere', headers: { 'x-forwarded-proto': 'https' } })
  t.equal(res.statusCode, 404)
})
