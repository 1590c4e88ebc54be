/** Form bodies (urlencoded, multipart) are accepted only on the routes that declare them. */
import restwellErrors from '@restwell/errors'
import type { RouteEntry } from '@restwell/core'
import Fastify, { type FastifyInstance, type FastifySchema } from 'fastify'
import { test } from 'tap'
import { type NegotiationOptions, restwellNegotiation } from '../src/index.js'

const JSON_TYPE = 'application/json'
const FORM = 'application/x-www-form-urlencoded'
const MULTIPART = 'multipart/form-data'
const MULTIPART_BODY = {
  payload: '--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nDune\r\n--b--\r\n',
  headers: { 'content-type': `${MULTIPART}; boundary=b` },
}

async function build(options: NegotiationOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellNegotiation, options)
  return app
}

test('a route that declares no form type answers 415 to a form body, before its handler', async (t) => {
  const app = await build({ multipart: true })
  t.teardown(() => app.close())
  let handled = 0
  app.post('/books', async (request) => {
    handled++
    return request.body as object
  })
  app.post('/raw', { config: { negotiation: false } }, async (request) => {
    handled++
    return request.body as object
  })
  const form = await app.inject({
    method: 'POST',
    url: '/books',
    payload: 'title=Dune',
    headers: { 'content-type': FORM },
  })
  t.equal(form.statusCode, 415)
  t.equal(form.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
  t.equal(form.headers.accept, JSON_TYPE)
  const multipart = await app.inject({ method: 'POST', url: '/books', ...MULTIPART_BODY })
  t.equal(multipart.statusCode, 415)
  const raw = await app.inject({
    method: 'POST',
    url: '/raw',
    payload: 'title=Dune',
    headers: { 'content-type': FORM },
  })
  t.equal(raw.statusCode, 415, 'without negotiation the form parser refuses it itself')
  t.equal(raw.json().error.message, `This route does not accept ${FORM} bodies`)
  t.equal(handled, 0)
  const json = await app.inject({ method: 'POST', url: '/raw', payload: { title: 'Dune' } })
  t.same(json.json(), { title: 'Dune' }, 'JSON still parsed there')
})

test('config.negotiation.consumes or schema.consumes declares form bodies', async (t) => {
  const app = await build({ multipart: true })
  t.teardown(() => app.close())
  const echo = async (request: { body: unknown }) => request.body as object
  app.post('/config', { config: { negotiation: { consumes: [JSON_TYPE, FORM, MULTIPART] } } }, echo)
  app.post('/schema', { schema: { consumes: [FORM] } as FastifySchema }, echo)
  for (const url of ['/config', '/schema']) {
    const form = await app.inject({
      method: 'POST',
      url,
      payload: 'title=Dune',
      headers: { 'content-type': FORM },
    })
    t.same(form.json(), { title: 'Dune' }, url)
  }
  const multipart = await app.inject({ method: 'POST', url: '/config', ...MULTIPART_BODY })
  t.same(multipart.json(), { title: 'Dune' })
  const json = await app.inject({ method: 'POST', url: '/schema', payload: { title: 'Dune' } })
  t.equal(json.statusCode, 415, 'schema.consumes lists what the route takes')
  t.equal(json.headers.accept, FORM)
})

test('@fastify/multipart is loaded only when asked for', async (t) => {
  const plain = await build()
  t.teardown(() => plain.close())
  t.notOk(plain.hasPlugin('@fastify/multipart'), 'not by default')
  t.notOk(plain.hasContentTypeParser(MULTIPART))
  t.throws(
    () =>
      plain.post(
        '/covers',
        { config: { negotiation: { consumes: [MULTIPART] } } },
        async () => ({}),
      ),
    { code: 'RESTWELL_INVALID_OPTION', message: /POST \/covers.*multipart: true/ },
  )
  const asked = await build({ multipart: true })
  t.teardown(() => asked.close())
  t.ok(asked.hasPlugin('@fastify/multipart'))
  const listed = await build({ consumes: [JSON_TYPE, 'Multipart/Form-Data'] })
  t.teardown(() => listed.close())
  t.ok(listed.hasPlugin('@fastify/multipart'), 'the plugin consumes it on every route')
  const noForms = await build({ formbody: false })
  t.teardown(() => noForms.close())
  t.throws(
    () => noForms.post('/x', { config: { negotiation: { consumes: [FORM] } } }, async () => ({})),
    { message: /formbody: true/ },
  )
})

test('a form route’s request body is described for OpenAPI', async (t) => {
  const app = await build({ multipart: true })
  t.teardown(() => app.close())
  const schemas: Record<string, FastifySchema | undefined> = {}
  app.addHook('onRoute', (route: RouteEntry) => {
    schemas[route.url] = route.schema
  })
  const forms = { negotiation: { consumes: [JSON_TYPE, FORM, MULTIPART] } }
  const body = { type: 'object', properties: { title: { type: 'string' } } }
  const handler = async () => ({})
  app.post('/none', { config: forms }, handler)
  app.post('/body', { config: forms, schema: { body } }, handler)
  const content = { content: { [FORM]: { schema: body } } }
  app.post('/content', { config: forms, schema: { body: content } }, handler)
  app.post(
    '/listed',
    { config: forms, schema: { body, consumes: [FORM] } as FastifySchema },
    handler,
  )
  class Schema {}
  const own = new Schema()
  app.post('/instance', { config: forms, schema: own }, handler)
  app.post('/compiler', { config: forms, validatorCompiler: () => () => true }, handler)
  app.post('/json', { schema: { body } }, handler)
  await app.ready()
  t.strictSame(
    Object.keys((schemas['/none']?.body as { content?: object } | undefined)?.content ?? {}),
    [JSON_TYPE, FORM, MULTIPART],
  )
  t.match(schemas['/none'], {
    body: {
      content: {
        [JSON_TYPE]: { schema: {} },
        [FORM]: { schema: { type: 'object' } },
        [MULTIPART]: { schema: { type: 'object' } },
      },
    },
  })
  t.match(schemas['/body'], { body, consumes: [JSON_TYPE, FORM, MULTIPART] })
  t.equal(schemas['/content']?.body, content)
  t.notOk('consumes' in (schemas['/content'] as object), 'a body by content type is kept')
  t.same((schemas['/listed'] as { consumes: string[] }).consumes, [FORM])
  t.equal(schemas['/instance'], own)
  t.equal(schemas['/compiler'], undefined, 'no JSON Schema for another validator compiler')
  t.notOk('consumes' in (schemas['/json'] as object), 'a JSON-only route is left as it is')
})
