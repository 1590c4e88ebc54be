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
    const route = /(\/\S*) \(([A-Z]+)\)$/.exec(line)
    if (route !== null) {
      current = {}
      routes[`${route[2]} ${route[1]}`] = current
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
  app.patch('/books/:id', { config: { auth: false } }, async () => ({ id: 1 }))
  // A route opted out of everything passes only the root hooks: the hooks the not-found
  // path (404, 405, OPTIONS of @restwell/methods) passes too.
  app.get('/plain', { config: OPT_OUT, compress: false }, async () => 'plain')
  await app.ready()
  t.teardown(() => app.close())

  const root = {
    onRequest: [
      'restwellRequest',
      'restwellCors',
      'restwellReroute',
      'onRequest',
      'restwellRateLimit',
      'onNotFound',
    ],
    preHandler: ['onNotFound'],
    // The pipeline's send phase of the answers of no route.
    onSend: ['restwellSendNotFound'],
  }
  // What a route that keeps its conventions adds to the root hooks, before its own.
  const routed = {
    onRequest: [...root.onRequest, 'negotiationOnRequest'],
    preSerialization: ['negotiationSerialize'],
    // The route's plan: every send step in the pipeline's order, one hook.
    onSend: [...root.onSend, 'restwellSend'],
  }
  t.same(hookLists(app), {
    'GET /books/:id': {
      onRequest: routed.onRequest,
      preSerialization: [
        ...routed.preSerialization,
        'beforeSerialization',
        'restwellCompressEarly',
      ],
      preHandler: root.preHandler,
      onSend: routed.onSend,
    },
    'HEAD /books/:id': {
      onRequest: routed.onRequest,
      preSerialization: [...routed.preSerialization, 'beforeSerialization'],
      preHandler: root.preHandler,
      onSend: [...routed.onSend, 'headRouteOnSendHandler'],
    },
    'PATCH /books/:id': {
      onRequest: [...routed.onRequest, 'checkContentType'],
      preParsing: ['restwellRequestCoding', 'preParsing'],
      preSerialization: routed.preSerialization,
      preHandler: root.preHandler,
      onSend: routed.onSend,
    },
    'GET /plain': root,
    // HEAD's own rule (a 204 or 304 without Content-Length) before Fastify's hook.
    'HEAD /plain': {
      ...root,
      onSend: [...root.onSend, 'restwellSend', 'headRouteOnSendHandler'],
    },
  })
})
