/**
 * The guard of the pipeline: the Fastify hooks a request passes under the umbrella, per phase,
 * pinned. A change to restwell's hooks changes these lists on purpose, and only here.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import restwell from 'restwell'
import { test } from 'tap'

/** Everything a route can switch off in its config. */
const OPT_OUT = {
  rateLimit: false,
  cors: false,
  cache: false,
  conditional: false,
  negotiation: false,
  pagination: false,
  patch: false,
  versioning: false,
  softDelete: false,
  naming: false,
  auth: false,
} as const

type Phases = Record<string, string[]>

/** The hooks of each route, per phase, as `printRoutes({ includeHooks: true })` names them. */
function hookLists(app: FastifyInstance): Record<string, Phases> {
  const text = app.printRoutes({ includeHooks: true, commonPrefix: false })
  const routes: Record<string, Phases> = {}
  let current: Phases | undefined
  for (const line of text.split('\n')) {
    // A route behind a constraint (method override's twins) is named with it.
    const route = /(\/\S*) \(([A-Z]+)\)( \{.*\})?$/.exec(line)
    if (route !== null) {
      current = {}
      routes[`${route[2]} ${route[1]}${route[3] ?? ''}`] = current
      continue
    }
    const hooks = /• \((\w+)\) (\[.*\])$/.exec(line)
    if (hooks !== null && current !== undefined) {
      current[hooks[1] as string] = (JSON.parse(hooks[2] as string) as string[]).map((name) =>
        name.replace(/\(\)$/, ''),
      )
    }
  }
  return routes
}

test('the hooks of a GET, its HEAD, a PATCH and an opted-out route under the umbrella', async (t) => {
  const app = Fastify()
  await app.register(restwell)
  app.get('/books/:id', { config: { auth: false } }, async () => ({ id: 1 }))
  app.patch(
    '/books/:id',
    {
      config: {
        auth: false,
        conditional: { getValidator: async () => ({ etag: '1' }) },
        softDelete: true,
      },
    },
    async () => ({ id: 1 }),
  )
  // A route opted out of everything passes only the root hooks: the hooks the not-found
  // path (404, 405, OPTIONS of @restwell/methods) passes too.
  app.get('/plain', { config: OPT_OUT, compress: false }, async () => 'plain')
  await app.ready()
  t.teardown(() => app.close())

  // The pipeline's root hooks: what every request runs (request id, CORS, reroute, overload,
  // rate limit, auth, 405/OPTIONS; see pipeline.ts) and the send phase of the answers of no
  // route. What a route's `reply.callNotFound()` runs is the not-found handler's own.
  const root = {
    onRequest: ['restwellRequest'],
    onSend: ['restwellSendNotFound'],
  }
  // What a route that keeps its conventions adds: one hook per phase running the route's plan,
  // its steps before the body is read (406/415) after every onRequest hook.
  const routed = {
    onRequest: root.onRequest,
    preParsing: ['restwellPreParsing'],
    preSerialization: ['restwellSerialize'],
    onSend: [...root.onSend, 'restwellSend'],
  }
  const patch = {
    onRequest: routed.onRequest,
    // The same hook decodes request bodies (gzip, br, deflate) once its steps let them through.
    preParsing: routed.preParsing,
    // The stored validators (412/428) and a soft-delete restore, read once the body is.
    preHandler: ['restwellPreHandler'],
    preSerialization: routed.preSerialization,
    onSend: routed.onSend,
  }
  t.same(hookLists(app), {
    'GET /books/:id': routed,
    'HEAD /books/:id': { ...routed, onSend: [...routed.onSend, 'headRouteOnSendHandler'] },
    'PATCH /books/:id': patch,
    // The POST a method override to PATCH is routed to: the PATCH route's plan, its own hooks.
    'POST /books/:id {"restwellMethodOverride":"PATCH"}': patch,
    'GET /plain': root,
    // HEAD's own rule (a 204 or 304 without Content-Length) before Fastify's hook.
    'HEAD /plain': {
      ...root,
      onSend: [...root.onSend, 'restwellSend', 'headRouteOnSendHandler'],
    },
  })
})

test('a route with an auth requirement or a limit of its own: one guard hook runs them', async (t) => {
  const app = Fastify()
  await app.register(restwell, { auth: { verify: () => ({ scopes: ['admin'] }) } })
  app.get('/admin', { config: { auth: { scopes: ['admin'] } } }, async () => 'admin')
  app.get('/login', { config: { auth: false, rateLimit: { max: 5 } } }, async () => 'login')
  app.post('/tokens', { config: { rateLimit: { max: 5 } } }, async () => 'token')
  app.put('/keys/:id', { config: { rateLimit: { max: 5 } } }, async () => 'key')
  await app.ready()
  t.teardown(() => app.close())

  const lists = hookLists(app)
  const guarded = ['restwellRequest', 'restwellGuard']
  // Auth's guard, the route's own limit, or both (the limit first: a failing client is counted)
  // run from one route hook, after the root plan; @fastify/rate-limit adds no hook of its own.
  // The GET's HEAD passes the same limiter (one counter, RFC 9110 §9.3.2).
  const twin = 'POST /keys/:id {"restwellMethodOverride":"PUT"}'
  for (const route of ['GET /admin', 'GET /login', 'HEAD /login', 'POST /tokens', twin]) {
    t.same(lists[route]?.onRequest, guarded, route)
  }
  for (const route of ['GET /admin', 'GET /login']) {
    t.same(lists[route]?.preParsing, ['restwellPreParsing'], route)
    t.same(lists[route]?.onSend, ['restwellSendNotFound', 'restwellSend'], route)
  }
})

/** A copy of `hook` that notes `phase:name` in `ran` each time it runs (same arity, same kind). */
function noted(ran: string[], phase: string, hook: (...args: never[]) => unknown) {
  const note = () => ran.push(`${phase}:${hook.name}`)
  if (hook.constructor.name === 'AsyncFunction') {
    return Object.defineProperty(
      async function (this: unknown, ...args: never[]) {
        note()
        return hook.apply(this, args)
      },
      'length',
      { value: hook.length },
    )
  }
  return Object.defineProperty(
    function (this: unknown, ...args: never[]) {
      note()
      return hook.apply(this, args)
    },
    'length',
    { value: hook.length },
  )
}

test('the hooks a 405, a 404 and an automatic OPTIONS pass under the umbrella: the root plan', async (t) => {
  const app = Fastify()
  const ran: string[] = []
  // Every hook restwell's plugins add, to the root or to a scope of their own, noted when it
  // runs (a 405 has no route, so no route hook can run).
  const addHook = app.addHook as (this: FastifyInstance, phase: string, hook: unknown) => unknown
  Object.assign(app, {
    addHook(this: FastifyInstance, phase: string, hook: (...args: never[]) => unknown) {
      const lifecycle = phase === 'onReady' || phase === 'onRoute' || phase === 'onClose'
      return addHook.call(this, phase, lifecycle ? hook : noted(ran, phase, hook))
    },
  })
  await app.register(restwell)
  app.get('/books/:id', { config: { auth: false } }, async () => ({ id: 1 }))
  await app.ready()
  t.teardown(() => app.close())

  const answers: Record<string, string[]> = {}
  for (const [method, url] of [
    ['DELETE', '/books/1'],
    ['GET', '/nothing'],
    ['OPTIONS', '/books/1'],
  ] as const) {
    ran.length = 0
    const response = await app.inject({ method, url })
    answers[`${method} ${url} ${response.statusCode}`] = [...ran]
  }
  const root = ['onRequest:restwellRequest', 'onSend:restwellSendNotFound']
  t.same(answers, {
    'DELETE /books/1 405': root,
    'GET /nothing 404': root,
    'OPTIONS /books/1 200': root,
  })
})
