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
  reroutedFrom,
  splitUrl,
  withoutQueryParam,
} from '../src/index.js'
import { rewriteUrlOf, skipOnReroute } from '../src/reroute.js'

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
    rewriteUrl(req) {
      calls++
      return `/${String(req.headers.host).split('.')[0]}${req.url}`
    },
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
    rewriteUrl(req) {
      calls++
      return stripApi(req)
    },
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

test('a rewriteUrl that cannot be skipped (frozen) runs twice: originalUrl is put back, one warning', async (t) => {
  const { lines, stream } = logLines()
  let calls = 0
  const rewriteUrl = Object.freeze(function frozen(req: IncomingMessage): string {
    calls++
    return stripApi(req)
  })
  const app = Fastify({ rewriteUrl, logger: { level: 'warn', stream } })
  echo(app, '/v2')
  addRewriter(app, { name: 'version', order: 20, rewrite: versionByQuery })
  for (const n of [1, 2]) {
    const res = await app.inject({ method: 'GET', url: `/api/things/${n}?version=2` })
    t.equal(res.statusCode, 200)
    t.equal(res.json().originalUrl, `/api/things/${n}?version=2`)
  }
  t.equal(calls, 4, 'twice per rerouted request: the documented fallback')
  const warnings = lines.filter((l) => /rewriteUrl ran again/.test(String(l.msg)))
  t.equal(warnings.length, 1, 'warned once per root')
})

test('the wrapped rewriteUrl is unchanged for every other call, and wrapped once', async (t) => {
  const rewriteUrl = function plain(this: unknown, req?: { url: string } | null): string {
    return `${String(this)}:${req?.url ?? 'none'}`
  }
  const a = Fastify({ rewriteUrl: rewriteUrl as never })
  addRewriter(a, { name: 'v', order: 20, rewrite: versionByQuery })
  const call = Object.getOwnPropertyDescriptor(rewriteUrl, 'call')?.value
  t.type(call, 'function', 'wrapped when the reroute hook is installed')
  const b = Fastify({ rewriteUrl: rewriteUrl as never })
  addRewriter(b, { name: 'v', order: 20, rewrite: versionByQuery })
  skipOnReroute(rewriteUrl)
  t.equal(Object.getOwnPropertyDescriptor(rewriteUrl, 'call')?.value, call, 'wrapped once')
  t.equal(rewriteUrl.call('ctx', { url: '/x' }), 'ctx:/x')
  t.equal(rewriteUrl.call('ctx', null), 'ctx:none')
  t.equal(rewriteUrl.call('ctx'), 'ctx:none')
  t.equal(rewriteUrl('/y' as never), 'undefined:none')
})

test('rewriteUrlOf finds the option on the root and through child instances', async (t) => {
  const rewriteUrl = (req: IncomingMessage): string => req.url as string
  t.equal(rewriteUrlOf({}), undefined, 'not a Fastify instance')
  t.equal(rewriteUrlOf(Fastify()), undefined, 'no rewriteUrl')
  const app = Fastify({ rewriteUrl })
  t.equal(rewriteUrlOf(app), rewriteUrl)
  let inChild: unknown
  await app.register(async (child) => {
    inChild = rewriteUrlOf(child)
  })
  t.equal(inChild, rewriteUrl)
})

test('a wrapped rewriteUrl that Fastify calls another way: one warning, then the fallback', async (t) => {
  const { lines, stream } = logLines()
  let calls = 0
  const rewriteUrl = function counted(req: IncomingMessage): string {
    calls++
    return stripApi(req)
  }
  const app = Fastify({ rewriteUrl, logger: { level: 'warn', stream } })
  echo(app, '/v2')
  addRewriter(app, { name: 'version', order: 20, rewrite: versionByQuery })
  // As if Fastify stopped calling `rewriteUrl.call(...)`: the wrapper is never reached.
  t.ok(delete (rewriteUrl as { call?: unknown }).call, 'the own wrapper removed')
  // The first request is routed before the unconsumed mark shows the change: its handler may
  // already have read the rewritten URL as originalUrl. It is put back, and later requests
  // take the fallback (originalUrl right while they are routed).
  const first = await app.inject({ method: 'GET', url: '/api/things/1?version=2' })
  t.equal(first.statusCode, 200)
  t.equal(first.json().url, '/v2/things/1')
  const second = await app.inject({ method: 'GET', url: '/api/things/2?version=2' })
  t.equal(second.statusCode, 200)
  t.equal(second.json().originalUrl, '/api/things/2?version=2', 'the client URL')
  t.equal(second.json().url, '/v2/things/2')
  t.equal(calls, 4, 'twice per rerouted request')
  const warnings = lines.filter((l) => /rewriteUrl ran again/.test(String(l.msg)))
  t.equal(warnings.length, 1, 'warned once per root')
})
