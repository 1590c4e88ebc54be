/**
 * Fastify's `rewriteUrl` server option with a reroute: the user's rewriter runs once per
 * request (before the first routing), and `request.originalUrl` stays the URL the client sent.
 */
import type { IncomingMessage } from 'node:http'
import { Writable } from 'node:stream'
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import {
  addRewriter,
  joinUrl,
  queryValues,
  type RerouteTarget,
  rerouteAware,
  reroutedFrom,
  splitUrl,
  withoutQueryParam,
} from '../src/index.js'

/** Method override as `@restwell/method-override` does it: header or `_method`, on POST. */
function methodOverride(target: RerouteTarget): void {
  if (target.method !== 'POST') return
  const { path, query } = splitUrl(target.url)
  const header = target.request.headers['x-http-method-override']
  const fromQuery = query === undefined ? undefined : queryValues(query, '_method')[0]
  const method = typeof header === 'string' ? header : fromQuery
  if (method === undefined) return
  target.method = method.toUpperCase()
  if (query !== undefined) target.url = joinUrl(path, withoutQueryParam(query, '_method'))
}

/** Versioning by query, as `@restwell/versioning` does it: `?version=N` → `/vN/...`. */
function versionByQuery(target: RerouteTarget): void {
  const { path, query } = splitUrl(target.url)
  const version = query === undefined ? undefined : queryValues(query, 'version')[0]
  if (version === undefined || !/^\d+$/.test(version)) return
  target.url = joinUrl(`/v${version}${path}`, withoutQueryParam(query as string, 'version'))
}

function echo(app: FastifyInstance, prefix: string): void {
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: `${prefix}/things/:id`,
      handler: async (request) => ({
        method: request.method,
        url: request.url,
        originalUrl: request.originalUrl,
        from: reroutedFrom(request) ?? null,
      }),
    })
  }
}

/** Host-based tenants: `acme.example.com/things/7` is served by `/acme/things/7` (not idempotent). */
function tenantApp(): { app: FastifyInstance; calls: () => number } {
  let calls = 0
  const app = Fastify({
    rewriteUrl: rerouteAware((req) => {
      calls++
      return `/${String(req.headers.host).split('.')[0]}${req.url}`
    }),
  })
  echo(app, '/acme')
  addRewriter(app, { name: 'override', order: 10, rewrite: methodOverride })
  return { app, calls: () => calls }
}

/** The app is published under `/api`: the rewriter strips it (idempotent). */
function stripApi(this: unknown, req: IncomingMessage): string {
  const url = req.url as string
  return url.startsWith('/api/') ? url.slice(4) : url
}

/** A log stream for `Fastify({ logger: { stream } })` and the lines written to it, parsed. */
function logLines(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)))
      cb()
    },
  })
  return { lines, stream }
}

test('method override + rewriteUrl: the rewriter runs once, the overridden route answers', async (t) => {
  const { app, calls } = tenantApp()
  const host = 'acme.example.com'
  const plain = await app.inject({ method: 'DELETE', url: '/things/7', headers: { host } })
  t.equal(plain.statusCode, 200)
  t.equal(calls(), 1)

  const byHeader = await app.inject({
    method: 'POST',
    url: '/things/7',
    headers: { host, 'x-http-method-override': 'DELETE' },
  })
  t.equal(byHeader.statusCode, 200, 'not 404 "Route DELETE /acme/acme/things/7"')
  t.equal(calls(), 2, 'rewriteUrl ran once for the overridden request')
  t.same(byHeader.json(), {
    method: 'DELETE',
    url: '/acme/things/7',
    originalUrl: '/things/7',
    from: { method: 'POST', url: '/acme/things/7', id: 'req-2' },
  })

  const byQuery = await app.inject({
    method: 'POST',
    url: '/things/7?_method=DELETE&a=1',
    headers: { host },
  })
  t.equal(byQuery.statusCode, 200)
  t.equal(calls(), 3, 'rewriteUrl ran once for the overridden request')
  t.equal(byQuery.json().url, '/acme/things/7?a=1')
  t.equal(byQuery.json().originalUrl, '/things/7?_method=DELETE&a=1', 'the URL the client sent')
})

test('versioning-style reroute + rewriteUrl: originalUrl and messages name the client URL', async (t) => {
  let calls = 0
  const app = Fastify({
    rewriteUrl: rerouteAware((req) => {
      calls++
      return stripApi(req)
    }),
  })
  await app.register(restwellErrors)
  echo(app, '/v2')
  addRewriter(app, { name: 'version', order: 20, rewrite: versionByQuery })

  const res = await app.inject({ method: 'GET', url: '/api/things/7?version=2&a=1' })
  t.equal(res.statusCode, 200)
  t.equal(calls, 1, 'rewriteUrl ran once')
  t.equal(res.json().url, '/v2/things/7?a=1')
  t.equal(res.json().originalUrl, '/api/things/7?version=2&a=1', 'not the internal /v2/things/7')

  const miss = await app.inject({ method: 'GET', url: '/api/nothing?version=2' })
  t.equal(miss.statusCode, 404)
  t.equal(calls, 2)
  t.equal(miss.json().error.message, 'Route GET /api/nothing not found', 'the path the client sent')
})

test('a rewriteUrl not wrapped runs twice: originalUrl is put back, one warning', async (t) => {
  const { lines, stream } = logLines()
  let calls = 0
  const rewriteUrl = function counted(req: IncomingMessage): string {
    calls++
    return stripApi(req)
  }
  const app = Fastify({ rewriteUrl, logger: { level: 'warn', stream } })
  echo(app, '/v2')
  addRewriter(app, { name: 'version', order: 20, rewrite: versionByQuery })
  for (const n of [1, 2]) {
    const res = await app.inject({ method: 'GET', url: `/api/things/${n}?version=2` })
    t.equal(res.statusCode, 200)
    t.equal(res.json().originalUrl, `/api/things/${n}?version=2`)
    t.equal(res.json().url, `/v2/things/${n}`)
  }
  t.equal(calls, 4, 'twice per rerouted request')
  const warnings = lines.filter((l) => /rewriteUrl again/.test(String(l.msg)))
  t.equal(warnings.length, 1, 'warned once per root')
  t.match(String(warnings[0]?.msg), /rerouteAware/, 'the fix named')
})

test('without a logger, the warning is a process warning', async (t) => {
  const seen: Error[] = []
  const listen = (warning: Error) => seen.push(warning)
  process.on('warning', listen)
  t.teardown(() => process.off('warning', listen))
  const app = Fastify({ rewriteUrl: (req) => stripApi(req) })
  echo(app, '/v2')
  addRewriter(app, { name: 'version', order: 20, rewrite: versionByQuery })
  t.equal((await app.inject('/api/things/1?version=2')).statusCode, 200)
  await new Promise((resolve) => setImmediate(resolve))
  t.ok(seen.some((w) => (w as { code?: string }).code === 'RESTWELL_REWRITE_URL_TWICE'))
})

test('a rerouteAware rewriteUrl is the rewriteUrl on every first pass', async (t) => {
  const wrapped = rerouteAware(function plain(this: unknown, req): string {
    return `${String(this)}:${req.url}`
  })
  t.equal(wrapped.call('ctx' as never, { url: '/x' } as never), 'ctx:/x')
  const app = Fastify({ rewriteUrl: rerouteAware((req) => stripApi(req)) })
  echo(app, '/v2')
  addRewriter(app, { name: 'version', order: 20, rewrite: versionByQuery })
  const plain = await app.inject('/api/v2/things/3')
  t.equal(plain.json().url, '/v2/things/3', 'not rerouted: rewritten once')
  for (const n of [4, 5]) {
    const res = await app.inject(`/api/things/${n}?version=2`)
    t.equal(res.json().originalUrl, `/api/things/${n}?version=2`)
  }
})
