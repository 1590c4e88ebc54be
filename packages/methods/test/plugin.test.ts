import fc from 'fast-check'
import { restwellErrors } from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { allowedMethods, restwellMethods, sortMethods } from '../src/index.js'
import type { MethodsOptions } from '../src/index.js'

async function build(options: MethodsOptions = {}, withErrors = true): Promise<FastifyInstance> {
  const app = Fastify()
  // a route registered before the plugins load: onRoute never sees it, 405 must still work
  app.get('/early', async () => ({ early: true }))
  if (withErrors) await app.register(restwellErrors)
  await app.register(restwellMethods, options)
  app.get('/books', async () => [{ id: 1 }])
  app.post('/books', async (_request, reply) => reply.created('/books/2', { id: 2 }))
  app.get('/books/:id', async (request) => ({ id: (request.params as { id: string }).id }))
  app.put('/books/:id', async () => ({ ok: true }))
  app.delete('/books/:id', async (_request, reply) => reply.code(204).send())
  app.get('/files/*', async () => 'file')
  app.options('/custom', async (_request, reply) => reply.header('x-custom', '1').send('mine'))
  app.get('/custom', async () => 'c')
  app.post('/empty', async (_request, reply) => reply.created(new URL('http://api.test/empty/1')))
  app.register(
    async (child) => {
      child.patch('/items/:id', async () => ({ patched: true }))
    },
    { prefix: '/v1' },
  )
  return app
}

test('405 with Allow listing exactly the methods of the path', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'PATCH', url: '/books/7?x=1' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, PUT, DELETE, OPTIONS')
  const body = res.json()
  t.equal(body.error.code, 'METHOD_NOT_ALLOWED')
  t.equal(body.error.message, 'Method PATCH is not allowed on /books/7')
  const collection = await app.inject({ method: 'DELETE', url: '/books' })
  t.equal(collection.headers.allow, 'GET, HEAD, POST, OPTIONS')
  const wildcard = await app.inject({ method: 'POST', url: '/files/a/b.txt' })
  t.equal(wildcard.statusCode, 405)
  t.equal(wildcard.headers.allow, 'GET, HEAD, OPTIONS')
  const prefixed = await app.inject({ method: 'GET', url: '/v1/items/3' })
  t.equal(prefixed.headers.allow, 'PATCH, OPTIONS')
})

test('routes registered before the plugin count too', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'POST', url: '/early' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
})

test('a path that does not exist stays 404', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'PUT', url: '/nothing/here' })
  t.equal(res.statusCode, 404)
  t.equal(res.json().error.code, 'NOT_FOUND')
  t.equal(res.headers.allow, undefined)
})

test('OPTIONS on an existing path: 200, Allow, not cacheable, empty body', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers.allow, 'GET, HEAD, PUT, DELETE, OPTIONS')
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.headers['content-length'], '0')
  t.equal(res.body, '')
  const missing = await app.inject({ method: 'OPTIONS', url: '/missing' })
  t.equal(missing.statusCode, 404)
})

test("a route's own OPTIONS handler wins", async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'OPTIONS', url: '/custom' })
  t.equal(res.body, 'mine')
  t.equal(res.headers['x-custom'], '1')
  const other = await app.inject({ method: 'DELETE', url: '/custom' })
  t.equal(other.headers.allow, 'GET, HEAD, OPTIONS')
})

test('autoOptions: false leaves OPTIONS to the app (405) and drops it from Allow', async (t) => {
  const app = await build({ autoOptions: false })
  const res = await app.inject({ method: 'OPTIONS', url: '/books' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, POST')
})

test('HEAD answers with the headers of GET and no body', async (t) => {
  const app = await build()
  const get = await app.inject({ method: 'GET', url: '/books/42' })
  const head = await app.inject({ method: 'HEAD', url: '/books/42' })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers['content-length'], get.headers['content-length'])
  t.equal(head.headers['content-type'], get.headers['content-type'])
})

test("a HEAD's 405 has the Content-Length of GET's 405 (RFC 9110 §9.3.2)", async (t) => {
  const app = await build()
  app.post('/orders', async () => ({ ok: true }))
  const get = await app.inject({ method: 'GET', url: '/orders' })
  const head = await app.inject({ method: 'HEAD', url: '/orders' })
  t.equal(get.statusCode, 405)
  t.equal(head.statusCode, 405)
  t.equal(head.body, '')
  t.equal(head.headers.allow, get.headers.allow)
  t.equal(head.headers['content-length'], get.headers['content-length'])
  t.equal(get.json().error.message, 'Method GET is not allowed on /orders')
  // Where GET is allowed (no HEAD twin), GET's answer is no 405: the message names HEAD.
  const noHead = Fastify({ exposeHeadRoutes: false })
  await noHead.register(restwellErrors)
  await noHead.register(restwellMethods)
  noHead.get('/books', async () => [])
  let message = ''
  noHead.addHook('onError', async (_request, _reply, error) => {
    message = error.message
  })
  const refused = await noHead.inject({ method: 'HEAD', url: '/books' })
  t.equal(refused.statusCode, 405)
  t.equal(refused.headers.allow, 'GET, OPTIONS')
  t.equal(message, 'Method HEAD is not allowed on /books')
})

test('TRACE is never routed: 405 on an existing path', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'TRACE', url: '/books' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, POST, OPTIONS')
  t.equal(res.json().error.code, 'METHOD_NOT_ALLOWED')
})

test('CONNECT is refused like TRACE: 405 on an existing path', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'CONNECT', url: '/books' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, POST, OPTIONS')
})

test('a method the server does not know at all: 501', async (t) => {
  const app = await build()
  for (const url of ['/books', '/nowhere']) {
    const res = await app.inject({ method: 'PROPFIND', url })
    t.equal(res.statusCode, 501, url)
    t.equal(res.json().error.code, 'METHOD_NOT_IMPLEMENTED')
  }
  const off = await build({ notImplemented: false })
  const res = await off.inject({ method: 'PROPFIND', url: '/books' })
  t.equal(res.statusCode, 405, 'without 501, an unknown method on a known path is a 405')
})

test('TRACE and CONNECT routes are refused at registration', async (t) => {
  const app = Fastify()
  await app.register(restwellMethods)
  t.throws(() => app.route({ method: 'TRACE', url: '/t', handler: async () => 'x' }), {
    message: /TRACE and CONNECT are never routed/,
  })
  t.throws(
    () => app.route({ method: ['GET', 'TRACE'], url: '/t2', handler: async () => 'x' }),
    /never routed/,
  )
  const early = Fastify()
  early.trace('/t', async () => 'x')
  early.register(restwellMethods)
  await t.rejects(
    async () => {
      await early.ready()
    },
    { message: /TRACE routes are refused/ },
  )
})

test('reply.created: 201 with Location and body, or no body', async (t) => {
  const app = await build()
  const res = await app.inject({ method: 'POST', url: '/books', payload: { title: 'x' } })
  t.equal(res.statusCode, 201)
  t.equal(res.headers.location, '/books/2')
  t.same(res.json(), { id: 2 })
  const empty = await app.inject({ method: 'POST', url: '/empty' })
  t.equal(empty.statusCode, 201)
  t.equal(empty.headers.location, 'http://api.test/empty/1')
  t.equal(empty.body, '')
})

test('reply.created refuses a location that could split the response', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellMethods)
  app.post('/bad', async (_request, reply) => reply.created('/x\r\nset-cookie: a=b', {}))
  app.post('/none', async (_request, reply) => reply.created(42 as unknown as string, {}))
  for (const url of ['/bad', '/none']) {
    const res = await app.inject({ method: 'POST', url })
    t.equal(res.statusCode, 500)
    t.equal(res.headers['set-cookie'], undefined)
  }
})

test('without @restwell/errors the 405 still carries status and Allow', async (t) => {
  const app = await build({}, false)
  const res = await app.inject({ method: 'PATCH', url: '/books' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'GET, HEAD, POST, OPTIONS')
  t.equal(res.json().code, 'METHOD_NOT_ALLOWED')
})

test('over a real socket: 405, OPTIONS and HEAD', async (t) => {
  const app = await build()
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const address = app.server.address()
  const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''
  const res = await fetch(`${base}/books/1`, { method: 'PATCH' })
  t.equal(res.status, 405)
  t.equal(res.headers.get('allow'), 'GET, HEAD, PUT, DELETE, OPTIONS')
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'METHOD_NOT_ALLOWED')
  const options = await fetch(`${base}/books`, { method: 'OPTIONS' })
  t.equal(options.status, 200)
  t.equal(options.headers.get('allow'), 'GET, HEAD, POST, OPTIONS')
  t.equal(await options.text(), '')
  const head = await fetch(`${base}/books/9`, { method: 'HEAD' })
  const get = await fetch(`${base}/books/9`)
  t.equal(head.headers.get('content-length'), get.headers.get('content-length'))
  t.equal(await head.text(), '')
})

test('a route that calls reply.callNotFound() still gets 405/OPTIONS semantics', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellMethods)
  app.get('/books', async () => [])
  // like @fastify/cors: a catch-all OPTIONS route that hands plain OPTIONS to the 404 handler
  app.options('*', async (_request, reply) => reply.callNotFound())
  const options = await app.inject({ method: 'OPTIONS', url: '/books' })
  t.equal(options.statusCode, 200)
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
  const missing = await app.inject({ method: 'OPTIONS', url: '/nothing' })
  t.equal(missing.statusCode, 404)
  const put = await app.inject({ method: 'PUT', url: '/nothing' })
  t.equal(put.statusCode, 404, 'the OPTIONS catch-all does not make every path exist')
  const putBooks = await app.inject({ method: 'PUT', url: '/books' })
  t.equal(putBooks.statusCode, 405)
})

test('a handler that calls reply.callNotFound() gets 404, not a 405 that allows its own method', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellMethods)
  app.get('/books/:id', async (_request, reply) => reply.callNotFound())
  app.put('/books/:id', async () => ({}))
  const get = await app.inject({ method: 'GET', url: '/books/1' })
  t.equal(get.statusCode, 404)
  t.equal(get.headers.allow, undefined)
  t.equal(get.json().error.code, 'NOT_FOUND')
  const head = await app.inject({ method: 'HEAD', url: '/books/1' })
  t.equal(head.statusCode, 404)
  const del = await app.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(del.statusCode, 405, 'a method with no route here is still 405')
  t.equal(del.headers.allow, 'GET, HEAD, PUT, OPTIONS')
})

test('a rewritten URL: Allow from the URL routed, the message shows the one the client sent', async (t) => {
  const app = Fastify({
    // As method override and versioning do: the router sees another URL than the client sent.
    rewriteUrl: (request) => (request.url?.startsWith('/v2/') ? request.url : `/v2${request.url}`),
  })
  await app.register(restwellErrors, { format: 'problem' })
  await app.register(restwellMethods)
  app.get('/v2/books', async () => [])
  const res = await app.inject({ method: 'PUT', url: '/books?x=1' })
  t.equal(res.statusCode, 405, 'the router was asked about /v2/books')
  t.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
  t.equal(res.json().detail, 'Method PUT is not allowed on /books')
  t.equal(res.json().instance, '/books')
  const options = await app.inject({ method: 'OPTIONS', url: '/books' })
  t.equal(options.statusCode, 200)
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
})

test('helpers', async (t) => {
  t.same(sortMethods(['OPTIONS', 'SEARCH', 'DELETE', 'GET', 'QUERY', 'QUERY']), [
    'GET',
    'DELETE',
    'OPTIONS',
    'QUERY',
    'QUERY',
    'SEARCH',
  ])
  const app = Fastify()
  app.get('/a', async () => 'a')
  await app.ready()
  t.same(allowedMethods(app, '/a', false), ['GET', 'HEAD'])
  t.same(allowedMethods(app, '/b', true), [])
})

test("allowedMethods: any candidate list, sorted or not, gives the router's answer in order", async (t) => {
  const app = Fastify()
  app.addHttpMethod('SEARCH', { hasBody: true })
  app.addHttpMethod('PROPFIND', { hasBody: true })
  app.get('/a', async () => 'a')
  app.route({
    method: ['DELETE', 'SEARCH', 'PROPFIND', 'QUERY'],
    url: '/a',
    handler: async () => 'a',
  })
  app.options('/a', async () => 'a')
  app.post('/b/:id', async () => 'b')
  await app.ready()
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'SEARCH', 'PROPFIND', 'QUERY']
  const reference = (url: string, withOptions: boolean, candidates: string[]) => {
    const found = new Set(candidates.filter((method) => app.findRoute({ method, url }) !== null))
    if (found.size > 0 && withOptions) found.add('OPTIONS')
    return sortMethods(found)
  }
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...methods), { maxLength: 12 }),
      fc.constantFrom('/a', '/b/7', '/c'),
      fc.boolean(),
      (candidates, url, withOptions) => {
        t.same(
          allowedMethods(app, url, withOptions, candidates),
          reference(url, withOptions, candidates),
        )
      },
    ),
    { numRuns: 500 },
  )
  t.same(allowedMethods(app, '/a', true, ['QUERY', 'GET', 'PROPFIND', 'SEARCH']), [
    'GET',
    'OPTIONS',
    'QUERY',
    'PROPFIND',
    'SEARCH',
  ])
})

test('bad options fail registration', async (t) => {
  const app = Fastify()
  app.register(restwellMethods, { autoOptions: 'yes' } as unknown as MethodsOptions)
  await t.rejects(
    async () => {
      await app.ready()
    },
    { message: '@restwell/methods: option "autoOptions" must be a boolean (got "yes")' },
  )
})
