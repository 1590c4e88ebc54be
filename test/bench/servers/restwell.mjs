// Fastify + the restwell umbrella, in variants sharing these routes:
//   all       every convention on (the umbrella's defaults; only the rate limit's max raised so
//             the single load-generating client is never throttled: it is still counted);
//   optout    the same umbrella, every route opting out of everything it can in its config;
//   only-<c>  opted out as above but for one convention `c` (a key of `ONLY`), configured as in
//             `all`: what that convention alone adds (`pnpm bench -- --ablation`).
// Each feature is detected from what the umbrella actually registered (fastify.hasPlugin), so
// this file grows with the umbrella: a feature not in it yet is reported as such, and the
// route still answers (e.g. 200 where 304 belongs) instead of faking the feature.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import {
  CREATED_ITEM,
  CREATED_LOCATION,
  HASHED_ITEMS,
  ITEM_BY_ID,
  ITEM_SCHEMA,
  mergePatch,
  PAGE_SCHEMA,
  pageBody,
  pageLink,
  QUERY_RESULT_SCHEMA,
  QUERY_SCHEMA,
  queryResult,
  readPageQuery,
} from '../data.mjs'
import { ONLY, RATE_LIMIT_MAX } from './limits.mjs'

// The umbrella is a workspace package, not a root dependency: load it from its folder, through
// its ESM build (the `import` export, what `import restwell from 'restwell'` gets), which
// `run.mjs` makes first when it is missing or older than the sources.
const PACKAGE_DIR = new URL('../../../packages/restwell/', import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('package.json', PACKAGE_DIR), 'utf8'))
const {
  default: restwell,
  genReqId,
  httpErrors,
} = await import(new URL(manifest.exports['.'].import.default, PACKAGE_DIR).href)

/** Feature -> the plugin name the umbrella registers it under. */
const FEATURES = {
  batch: '@restwell/batch',
  conditional: '@restwell/conditional',
  patch: '@restwell/patch',
  pagination: '@restwell/pagination',
  methodOverride: '@restwell/method-override',
  negotiation: '@restwell/negotiation',
  methods: '@restwell/methods',
  cors: '@restwell/cors',
  versioning: '@restwell/versioning',
  softDelete: '@restwell/soft-delete',
  naming: '@restwell/naming',
  idempotency: '@restwell/idempotency',
}
// @restwell/auth and @restwell/jobs are registered only when given options (a `verify`, a
// store); no workload uses them and none of the compared stacks authenticates, so they stay off.

/** Everything a route can switch off in its config (keys of plugins not registered are inert). */
const OPT_OUT = {
  rateLimit: false,
  cors: false,
  conditional: false,
  negotiation: false,
  pagination: false,
  patch: false,
  versioning: false,
  softDelete: false,
  naming: false,
  auth: false,
  cache: false,
  idempotency: false,
}

const NOT_YET = 'feature not yet in restwell'

export async function build(variant = 'all') {
  const kept = variant.startsWith('only-') ? ONLY[variant.slice('only-'.length)] : undefined
  if (variant !== 'all' && variant !== 'optout' && kept === undefined) {
    throw new Error(`unknown restwell variant ${variant}`)
  }
  const optOut = variant !== 'all'
  const app = Fastify({ genReqId })
  // Under callgrind (`pnpm bench:instructions`) the event loop runs ~50 times slower: the
  // overload check would shed every request, so its delay limit is lifted there only.
  const underPressure = process.env.RESTWELL_BENCH_COUNTING ? { maxEventLoopDelay: 0 } : {}
  await app.register(restwell, { rateLimit: { max: RATE_LIMIT_MAX }, batch: {}, underPressure })
  const has = Object.fromEntries(
    Object.entries(FEATURES).map(([feature, name]) => [feature, app.hasPlugin(name)]),
  )
  // Compression is a step of the umbrella's pipeline, not a plugin of its own; the umbrella
  // calls @fastify/rate-limit without registering its name, which leaves its decorator.
  has.compression = app.hasDecorator(Symbol.for('restwell.compresses'))
  has.rateLimit = app.hasDecorator('createRateLimit')
  /** Whether the routes run `feature` (a key of `has`). */
  const on = (feature) =>
    has[feature] &&
    (!optOut || kept === feature || (kept === 'compress' && feature === 'compression'))
  if (!app.hasContentTypeParser('application/merge-patch+json')) {
    // Without @restwell/patch, Fastify would answer 415: parse it as JSON, as bare Fastify does.
    app.addContentTypeParser(
      'application/merge-patch+json',
      { parseAs: 'string' },
      app.getDefaultJsonParser('error', 'error'),
    )
  }
  // Route options: `config` for the restwell plugins, `compress` (a route option, not config)
  // for compression. Routes are public (`auth: false`): the bench sends no credentials.
  // `keep` is what an opted-out route cannot drop and still serve its workload: a PATCH route
  // that opts out of @restwell/patch answers a merge patch with 415.
  // An `only-<c>` route gives its convention the config `all` gives it, or its default.
  const route = (own, keep = {}) => {
    if (!optOut) return { config: { auth: false, ...own } }
    const config = { ...OPT_OUT, ...keep }
    if (kept in own) config[kept] = own[kept]
    else delete config[kept]
    return kept === 'compress' ? { config } : { config, compress: false }
  }

  const getItem = (request) => {
    const item = ITEM_BY_ID.get(request.params.id)
    if (!item) throw httpErrors.notFound('No such item')
    return item
  }

  app.get(
    '/items/:id',
    {
      // The version is the validator: no hashing of the body (DESIGN principle 5).
      ...route({ conditional: { etagField: 'version' } }),
      schema: { response: { 200: ITEM_SCHEMA } },
    },
    async (request) => getItem(request),
  )

  app.get(
    `${HASHED_ITEMS}/:id`,
    {
      // What one line gives a user: no etagField, no getValidator, so the ETag is hashed from
      // the bytes sent, and a 304 runs the handler, serializes and hashes as a 200 does.
      ...route({}),
      schema: { response: { 200: ITEM_SCHEMA } },
    },
    async (request) => getItem(request),
  )

  app.get(
    '/items',
    {
      // The items' versions are the page's validator too (@restwell/conditional, "Collections"):
      // a 304 needs neither the page's bytes nor their hash. A 200 still hashes the bytes for
      // the compressed-body cache's key.
      ...route({ pagination: true, conditional: { etagField: 'version' } }),
      schema: { response: { 200: PAGE_SCHEMA } },
    },
    async (request, reply) => {
      const { page, limit } = readPageQuery(request.query)
      if (on('pagination')) {
        const body = pageBody(page, limit)
        return reply.paginate(body.data, { total: body.meta.total })
      }
      const body = pageBody(page, limit)
      reply.header('link', pageLink(body))
      return body
    },
  )

  app.route({
    method: 'QUERY',
    url: '/items',
    // A GET with a body (RFC 10008), as one line serves it: the ETag hashed from the bytes sent.
    ...route({}),
    schema: { body: QUERY_SCHEMA, response: { 200: QUERY_RESULT_SCHEMA } },
    handler: async (request) => queryResult(request.body),
  })

  app.patch(
    '/items/:id',
    {
      ...route(
        {
          patch: true,
          conditional: { getValidator: (request) => ({ etag: getItem(request).version }) },
        },
        { patch: true },
      ),
      schema: { response: { 200: ITEM_SCHEMA } },
    },
    async (request) => {
      const item = getItem(request)
      return request.patch ? request.applyPatch(item) : mergePatch(item, request.body)
    },
  )

  app.post(
    '/items',
    {
      // A key's first answer is stored in the umbrella's default memory store; its retries
      // are replayed without running the handler.
      ...route({ idempotency: true }),
      schema: { response: { 201: ITEM_SCHEMA } },
    },
    async (request, reply) => {
      reply.code(201).header('location', CREATED_LOCATION)
      return { ...CREATED_ITEM, ...request.body }
    },
  )

  app.put(
    '/items/:id',
    { ...route({}), schema: { response: { 200: ITEM_SCHEMA } } },
    async (request) => ({ ...request.body, id: getItem(request).id }),
  )

  const expect = {}
  const why = (feature) => (has[feature] ? 'the route opts out' : `${NOT_YET} (${feature})`)
  if (!on('compression')) {
    expect['page-gzip'] = { status: 200, gzip: false, note: `no gzip: ${why('compression')}` }
  }
  if (!on('conditional')) {
    expect['page-304'] = { status: 200, note: `no 304: ${why('conditional')}` }
    expect['get1k-hashed-304'] = { status: 200, note: `no 304: ${why('conditional')}` }
    expect['query-304'] = { status: 200, note: `no 304: ${why('conditional')}` }
  }
  const patchNotes = []
  if (!on('conditional')) patchNotes.push(`If-Match not checked: ${why('conditional')}`)
  if (!has.patch) patchNotes.push(`merge patch by hand: ${NOT_YET} (patch)`)
  if (patchNotes.length > 0) expect.patch = { status: 200, note: patchNotes.join('; ') }
  if (!has.methods) expect['405'] = { status: 404, note: `no 405: ${NOT_YET} (methods)` }
  if (!has.methodOverride) {
    // @restwell/methods answers a POST to a GET/PATCH/PUT path with 405 + Allow.
    expect.override = {
      status: has.methods ? 405 : 404,
      note: `no method override: ${NOT_YET} (methodOverride)`,
    }
  }

  if (!on('idempotency')) {
    expect['post-replay'] = {
      status: 201,
      replay: false,
      note: `no replay, the handler runs: ${why('idempotency')}`,
    }
  }

  expect.batch20 = has.batch ? { status: 207 } : { status: 404, note: `${NOT_YET} (batch)` }

  return {
    listen: async () => {
      await app.listen({ port: 0, host: '127.0.0.1' })
      return app.server.address().port
    },
    close: () => app.close(),
    expect,
    info: {
      features: has,
      rateLimit: has.rateLimit
        ? !on('rateLimit')
          ? 'route opts out (config.rateLimit: false)'
          : `on, max ${RATE_LIMIT_MAX}/min so the bench is not throttled; still computed per request`
        : `${NOT_YET} (rateLimit)`,
    },
  }
}
