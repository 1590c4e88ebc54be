import { test } from 'tap'
import Fastify from 'fastify'
import { apiVersionsOf, authenticates, type RouteEntry } from '@restwell/core'
import {
  API_VERSIONS,
  asksForAuthentication,
  AUTHENTICATES,
  COMPRESSES,
  compressesAnswers,
  declareCompression,
  declareState,
  identityDigest,
  refuseUnguardedRoutes,
} from '@restwell/core/internal'

test('apiVersionsOf reads the API_VERSIONS contract, undefined where no plugin set it', async (t) => {
  const versions: ReadonlySet<number> = new Set([1, 2])
  t.equal(apiVersionsOf({ [API_VERSIONS]: versions }), versions)
  t.equal(apiVersionsOf({}), undefined)
  t.equal(API_VERSIONS, Symbol.for('restwell.api-versions'), 'shared by every copy of a package')
})

test('identityDigest: the SHA-1 of the bytes, base64url, the same for a string and its UTF-8 Buffer', async (t) => {
  t.equal(identityDigest('abc'), 'qZk-NkcGgWq6PiVxeFDCbJzQ2J0')
  t.equal(identityDigest(Buffer.from('é€', 'utf8')), identityDigest('é€'))
  t.not(identityDigest('abc'), identityDigest('abd'))
})

test('contracts: page info and media type are read back from symbol keys', async (t) => {
  const { PAGE, MEDIA_TYPE } = await import('@restwell/core/internal')
  const { pageOf, mediaTypeOf } = await import('@restwell/core')
  const reply = {}
  t.equal(pageOf(reply), undefined)
  const info = { items: [1], links: { self: '/a' }, meta: { limit: 1 } }
  Object.assign(reply, { [PAGE]: info })
  t.equal(pageOf(reply), info)
  const request = { [MEDIA_TYPE]: 'application/hal+json' }
  t.equal(mediaTypeOf(request), 'application/hal+json')
  t.equal(PAGE, Symbol.for('restwell.page'))
})

test('representationOf reads the REPRESENTATION contract, undefined for the default one', async (t) => {
  const { REPRESENTATION } = await import('@restwell/core/internal')
  const { representationOf } = await import('@restwell/core')
  t.equal(representationOf({ [REPRESENTATION]: 'xml;de' }), 'xml;de')
  t.equal(representationOf({}), undefined)
  t.equal(REPRESENTATION, Symbol.for('restwell.representation'), 'shared by every copy')
})

test('authenticates reads the AUTHENTICATES mark of a route, false where none was set', async (t) => {
  t.equal(authenticates({ [AUTHENTICATES]: true }), true)
  t.equal(authenticates({}), false)
  t.equal(AUTHENTICATES, Symbol.for('restwell.route.authenticates'), 'shared by every copy')
})

test('declareState: request and reply state exists from construction, declared once', async (t) => {
  const ON_REQUEST = Symbol('on-request')
  const ON_REPLY = Symbol('on-reply')
  const app = Fastify()
  declareState(app, 'request', ON_REQUEST)
  declareState(app, 'reply', ON_REPLY)
  // A second plugin, or the same one again, may declare what is already there.
  declareState(app, 'request', ON_REQUEST)
  declareState(app, 'reply', ON_REPLY)
  await app.register(async (child) => {
    declareState(child, 'request', ON_REQUEST)
    child.get('/child', async (request) => ({ own: Object.hasOwn(request, ON_REQUEST) }))
  })
  app.get('/', async (request, reply) => {
    const before = {
      request: Object.hasOwn(request, ON_REQUEST) && request[ON_REQUEST as never] === undefined,
      reply: Object.hasOwn(reply, ON_REPLY) && reply[ON_REPLY as never] === undefined,
    }
    return before
  })
  t.same((await app.inject('/')).json(), { request: true, reply: true })
  t.same((await app.inject('/child')).json(), { own: true })
})

test('declareCompression: compressesAnswers sees it, or a reply.compress (@fastify/compress)', async (t) => {
  const app = Fastify()
  t.equal(compressesAnswers(app), false)
  declareCompression(app)
  declareCompression(app)
  t.equal(compressesAnswers(app), true, 'declared once, on the instance')
  t.equal(COMPRESSES, Symbol.for('restwell.compresses'), 'shared by every copy of a package')
  const official = Fastify()
  official.decorateReply('compress' as string, null)
  t.equal(compressesAnswers(official), true)
  t.equal(official.hasReplyDecorator('compress'), true)
  t.equal(app.hasReplyDecorator('compress'), false, 'the name is left to @fastify/compress')
})

test('asksForAuthentication: config.auth true or a requirement, nothing else', async (t) => {
  const route = (config: unknown) => ({ method: 'GET', url: '/x', config }) as RouteEntry
  t.ok(asksForAuthentication(route({ auth: true })))
  t.ok(asksForAuthentication(route({ auth: { scopes: ['read'] } })))
  for (const config of [{ auth: false }, { auth: null }, { auth: 'yes' }, {}, undefined]) {
    t.notOk(asksForAuthentication(route(config)), JSON.stringify(config))
  }
})

test('refuseUnguardedRoutes fails ready() on the routes asking for a guard none gave', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  refuseUnguardedRoutes(
    app,
    (routes) => new Error(routes.map((r) => `${r.method} ${r.url}`).join()),
  )
  app.addHook('onRoute', (route) => {
    if (route.url === '/guarded') (route as { [AUTHENTICATES]?: boolean })[AUTHENTICATES] = true
  })
  app.get('/guarded', { config: { auth: true } as object }, async () => 'a')
  app.post('/open', { config: { auth: { scopes: ['write'] } } as object }, async () => 'b')
  app.get('/public', async () => 'c')
  await t.rejects(async () => app.ready(), { message: 'POST /open' })

  const fine = Fastify()
  t.teardown(() => fine.close())
  refuseUnguardedRoutes(fine, () => new Error('never'))
  fine.get('/public', { config: { auth: false } as object }, async () => 'c')
  await t.resolves(async () => fine.ready())
})

test('bodyDigestsOf and fullRepresentationOf read what a step left on the reply', async (t) => {
  const { BODY_DIGESTS, bodyDigestsOf, FULL_REPRESENTATION, fullRepresentationOf } = await import(
    '@restwell/core/internal'
  )
  const kept = { 'sha-256': new Uint8Array(32) }
  t.equal(bodyDigestsOf({ [BODY_DIGESTS]: kept }), kept, 'the object kept with the bytes')
  t.equal(bodyDigestsOf({}), undefined)
  t.equal(fullRepresentationOf({ [FULL_REPRESENTATION]: 'whole' }), 'whole')
  t.equal(fullRepresentationOf({}), undefined)
  t.equal(BODY_DIGESTS, Symbol.for('restwell.body-digests'), 'shared by every copy of core')
  t.equal(FULL_REPRESENTATION, Symbol.for('restwell.full-representation'))
})

test('bodyBytesOf reads the BODY_BYTES contract, undefined where no parser kept them', async (t) => {
  const { BODY_BYTES } = await import('@restwell/core/internal')
  const { bodyBytesOf } = await import('@restwell/core')
  const bytes = Buffer.from('{"a":1}')
  t.equal(bodyBytesOf({ [BODY_BYTES]: bytes }), bytes)
  t.equal(bodyBytesOf({}), undefined)
})
