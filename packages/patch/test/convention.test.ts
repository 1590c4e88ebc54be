/** The patch convention: its declaration, and the steps it decides per route. */
import restwellErrors from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { patch, restwellPatch } from '../src/index.js'
import { answerUnroutedMethods } from './helpers.js'

const JSON_PATCH = 'application/json-patch+json'
const MERGE_PATCH = 'application/merge-patch+json'
const BOTH = `${JSON_PATCH}, ${MERGE_PATCH}`

test('the convention contributes the request and response headers it reads and sends', async (t) => {
  t.same(patch.contributes?.(patch.options({})), {
    requestHeaders: ['content-type'],
    responseHeaders: ['Accept-Patch'],
  })
})

test('status 204 on a route for PUT and PATCH: its PUT answers as the handler does', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch, { status: 204 })
  app.route({
    method: ['PUT', 'PATCH'],
    url: '/things/:id',
    handler: async (request) =>
      request.method === 'PATCH' ? request.applyPatch({ a: 1 }) : { put: request.body },
  })
  const put = await app.inject({ method: 'PUT', url: '/things/1', payload: { b: 2 } })
  t.same([put.statusCode, put.json()], [200, { put: { b: 2 } }], 'not a patch: not a 204')
  const patched = await app.inject({
    method: 'PATCH',
    url: '/things/1',
    headers: { 'content-type': MERGE_PATCH },
    payload: '{"b":2}',
  })
  t.same([patched.statusCode, patched.body], [204, ''])
})

test('registered again in a child scope, its routes take that registration maxOperations', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch)
  await app.register(async (child) => {
    await child.register(restwellPatch, { maxOperations: 1 })
    child.patch('/child', async (request) => request.applyPatch({ a: 1 }))
  })
  app.patch('/root', async (request) => request.applyPatch({ a: 1 }))
  const two = JSON.stringify([
    { op: 'add', path: '/b', value: 1 },
    { op: 'add', path: '/c', value: 2 },
  ])
  const headers = { 'content-type': JSON_PATCH }
  const child = await app.inject({ method: 'PATCH', url: '/child', headers, payload: two })
  t.equal(child.statusCode, 413, "the child's limit")
  const root = await app.inject({ method: 'PATCH', url: '/root', headers, payload: two })
  t.same([root.statusCode, root.json()], [200, { a: 1, b: 1, c: 2 }], "the root's")
})

test('no Accept-Patch where Fastify routes a PATCH to a route that is no patch route', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  answerUnroutedMethods(app)
  await app.register(restwellPatch)
  app.patch('/books/:id', async () => ({}))
  app.patch('/books/new', { config: { patch: false } }, async (request) => request.body)
  const options = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(options.headers['accept-patch'], BOTH)
  const shadowed = await app.inject({ method: 'OPTIONS', url: '/books/new' })
  t.equal(shadowed.headers['accept-patch'], undefined, 'PATCH /books/new takes no patch')
  t.equal(app.restwellPatch.acceptPatch('/books/new'), undefined)
  const refused = await app.inject({
    method: 'PATCH',
    url: '/books/new',
    headers: { 'content-type': MERGE_PATCH },
    payload: '{}',
  })
  t.equal(refused.statusCode, 415, 'as a patch sent there would show')
})

test('an Accept-Patch the handler set stands', async (t) => {
  const app = Fastify()
  await app.register(restwellPatch)
  app.patch('/books/:id', async () => ({}))
  app.options('/books/:id', async (_request, reply) =>
    reply.header('accept-patch', MERGE_PATCH).send(),
  )
  const options = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(options.headers['accept-patch'], MERGE_PATCH)
})

test('Accept-Patch goes on the answers of a patch route, and of an OPTIONS route where advertised', async (t) => {
  const headers = (methods: string[], config: unknown, raw = {}) =>
    patch.routeResponseHeaders?.(
      { methods, config } as never,
      { options: patch.options(raw) } as never,
    )
  t.same(headers(['PATCH'], undefined), ['Accept-Patch'], 'every PATCH route')
  t.same(headers(['POST'], {}), ['Accept-Patch'], 'a route that opted in')
  t.same(headers(['PATCH'], undefined, { everyPatchRoute: false }), [], 'not a patch route then')
  t.same(headers(['OPTIONS'], undefined), ['Accept-Patch'], 'an OPTIONS route may advertise')
  t.same(headers(['OPTIONS'], undefined, { advertise: false }), [], 'unless advertising is off')
  t.same(headers(['GET'], undefined), [], 'a GET route never sends it')
})
