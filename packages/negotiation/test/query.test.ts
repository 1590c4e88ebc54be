import restwellErrors from '@restwell/errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { acceptQueryValue, restwellNegotiation } from '../src/index.js'

const SEARCH = {
  type: 'object',
  properties: { title: { type: 'string' }, limit: { type: 'integer', maximum: 50 } },
  required: ['title'],
  additionalProperties: false,
}

async function build(errors = true): Promise<FastifyInstance> {
  const app = Fastify()
  if (errors) await app.register(restwellErrors)
  await app.register(restwellNegotiation, { formbody: true })
  app.route({
    method: 'QUERY',
    url: '/books',
    schema: { body: SEARCH },
    handler: async (request) => ({ asked: request.body }),
  })
  app.get('/books', async () => [])
  app.route({
    method: 'QUERY',
    url: '/authors',
    config: {
      negotiation: { consumes: ['application/json', 'application/x-www-form-urlencoded'] },
    },
    handler: async (request) => ({ asked: request.body }),
  })
  app.route({
    method: 'QUERY',
    url: '/notes',
    schema: { body: { content: { 'text/plain': { schema: { type: 'string' } } } } },
    handler: async (request) => ({ asked: request.body }),
  })
  return app
}

test('a QUERY reads and validates its content as a POST does', async (t) => {
  const app = await build()
  const ok = await app.inject({ method: 'QUERY', url: '/books', payload: { title: 'Dune' } })
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { asked: { title: 'Dune' } })
  const form = await app.inject({
    method: 'QUERY',
    url: '/authors',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'name=Herbert',
  })
  t.equal(form.statusCode, 200, 'a form is a query format where the route takes it')
  t.same(form.json(), { asked: { name: 'Herbert' } })
  const text = await app.inject({
    method: 'QUERY',
    url: '/notes',
    headers: { 'content-type': 'text/plain' },
    payload: 'select *',
  })
  t.same(text.json(), { asked: 'select *' }, "the body schema's content names the types")
})

test('a QUERY without Content-Type is a 400, with content or none (RFC 10008 §2)', async (t) => {
  const app = await build()
  for (const payload of [undefined, Buffer.from('{"title":"Dune"}')]) {
    const res = await app.inject({ method: 'QUERY', url: '/books', payload })
    t.equal(res.statusCode, 400)
    const { error } = res.json()
    t.equal(error.code, 'CONTENT_TYPE_REQUIRED')
    t.same(error.details, [
      { field: 'headers/content-type', message: 'is required', code: 'CONTENT_TYPE_REQUIRED' },
    ])
    t.equal(res.headers['accept-query'], 'application/json')
    t.equal(res.headers.accept, 'application/json')
  }
})

test('a QUERY whose content does not match its Content-Type is a 400', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'QUERY',
    url: '/books',
    headers: { 'content-type': 'application/json' },
    payload: '{"title": ',
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().error.code, 'MALFORMED_JSON')
})

test('a QUERY in a type the route does not take is a 415 with Accept-Query', async (t) => {
  const app = await build()
  const cases: [string, string, string][] = [
    ['/books', 'text/plain', 'application/json'],
    ['/books', 'application/json; charset=latin1', 'application/json'],
    ['/authors', 'application/xml', 'application/json, application/x-www-form-urlencoded'],
    ['/notes', 'application/json', 'text/plain'],
  ]
  for (const [url, type, takes] of cases) {
    const res = await app.inject({
      method: 'QUERY',
      url,
      headers: { 'content-type': type },
      payload: '{}',
    })
    t.equal(res.statusCode, 415, `${url} ${type}`)
    t.equal(res.headers['accept-query'], takes)
    t.equal(res.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
  }
  const post = await build()
  post.post('/loans', async () => ({}))
  const refused = await post.inject({
    method: 'POST',
    url: '/loans',
    headers: { 'content-type': 'text/plain' },
    payload: 'x',
  })
  t.equal(refused.statusCode, 415)
  t.equal(refused.headers['accept-query'], undefined, 'a POST has no Accept-Query')
})

test('a well-formed QUERY that fails the body schema is a 422; a POST keeps its 400', async (t) => {
  const app = await build()
  app.post('/books', { schema: { body: SEARCH } }, async () => ({}))
  for (const payload of [{ limit: 3 }, { title: 7 }, { title: 'Dune', limit: 99 }]) {
    const query = await app.inject({ method: 'QUERY', url: '/books', payload })
    t.equal(query.statusCode, 422, JSON.stringify(payload))
    t.equal(query.json().error.code, 'VALIDATION_ERROR')
    t.match(query.json().error.details[0].field, /^body/)
    const post = await app.inject({ method: 'POST', url: '/books', payload })
    t.equal(post.statusCode, 400, `POST ${JSON.stringify(payload)}`)
  }
})

test('acceptQueryValue writes an RFC 9651 List of media ranges', async (t) => {
  t.equal(acceptQueryValue(['application/json']), 'application/json')
  t.equal(
    acceptQueryValue(['application/jsonpath', 'application/sql', 'text/*']),
    'application/jsonpath, application/sql, text/*',
  )
})

test('Accept-Query on the answers of no route: an OPTIONS 2xx and a 405 of a path with QUERY', async (t) => {
  const app = Fastify()
  await app.register(restwellNegotiation)
  app.route({ method: 'QUERY', url: '/books/:id', handler: async () => ({}) })
  app.get('/authors', async () => [])
  // What @restwell/methods answers there, by hand: 200 to OPTIONS, 405 to the rest, 401 to one.
  app.setNotFoundHandler((request, reply) => {
    if (request.headers.authorization === 'none') return reply.code(401).send()
    if (request.headers['x-set'] === 'yes') reply.header('accept-query', 'text/plain')
    return reply.code(request.method === 'OPTIONS' ? 200 : 405).send()
  })
  const options = await app.inject({ method: 'OPTIONS', url: '/books/7' })
  t.equal(options.headers['accept-query'], 'application/json')
  const put = await app.inject({ method: 'PUT', url: '/books/7', payload: {} })
  t.equal(put.statusCode, 405)
  t.equal(put.headers['accept-query'], 'application/json')
  const kept = await app.inject({ method: 'PUT', url: '/books/7', headers: { 'x-set': 'yes' } })
  t.equal(kept.headers['accept-query'], 'text/plain', 'a value set before is kept')
  const hidden = await app.inject({
    method: 'OPTIONS',
    url: '/books/7',
    headers: { authorization: 'none' },
  })
  t.equal(hidden.headers['accept-query'], undefined, 'an OPTIONS refused describes nothing')
  const get = await app.inject({ method: 'GET', url: '/books/7?x' })
  t.equal(get.statusCode, 405)
  t.equal(get.headers['accept-query'], 'application/json')
  const elsewhere = await app.inject({ method: 'OPTIONS', url: '/authors' })
  t.equal(elsewhere.headers['accept-query'], undefined)
  const missing = await app.inject({ method: 'DELETE', url: '/nowhere' })
  t.equal(missing.headers['accept-query'], undefined)
})

test("a QUERY route's types: config, schema.consumes, its body schema's content, the plugin's", async (t) => {
  const app = Fastify()
  await app.register(restwellNegotiation)
  const routes: [string, object][] = [
    ['/consumes', { schema: { consumes: ['application/json', 'text/plain'] } }],
    ['/content', { schema: { body: { content: { 'text/plain': { schema: {} } } } } }],
    ['/empty', { schema: { body: { content: {} } } }],
    ['/plain', { schema: { body: { type: 'object' } } }],
    ['/none', {}],
  ]
  for (const [url, options] of routes) {
    app.route({ method: 'QUERY', url, ...options, handler: async () => ({}) })
  }
  const expected: Record<string, string> = {
    '/consumes': 'application/json, text/plain',
    '/content': 'text/plain',
    '/empty': 'application/json',
    '/plain': 'application/json',
    '/none': 'application/json',
  }
  for (const [url, takes] of Object.entries(expected)) {
    const res = await app.inject({
      method: 'QUERY',
      url,
      headers: { 'content-type': 'application/xml' },
      payload: '<q/>',
    })
    t.equal(res.statusCode, 415, url)
    t.equal(res.headers['accept-query'], takes, url)
  }
})
