import Fastify from 'fastify'
import { test } from 'tap'
import { ErrorCode, httpErrors, restwellErrors, validationError } from '../src/index.js'

const SEARCH = {
  type: 'object',
  properties: { title: { type: 'string' } },
  required: ['title'],
}

async function build() {
  const app = Fastify()
  await app.register(restwellErrors)
  for (const method of ['QUERY', 'POST'] as const) {
    app.route({
      method,
      url: '/books',
      schema: {
        body: SEARCH,
        querystring: { type: 'object', properties: { n: { type: 'integer' } } },
      },
      handler: async () => ({ ok: true }),
    })
    app.route({
      method,
      url: '/thrown',
      handler: async (request) => {
        const { kind } = request.query as { kind: string }
        if (kind === 'body') throw validationError([{ instancePath: '/a', message: 'bad' }], 'body')
        if (kind === 'whole') throw validationError([{ instancePath: '', message: 'bad' }], 'body')
        if (kind === 'missing') throw httpErrors.notFound('no such search')
        if (kind === 'query')
          throw validationError([{ instancePath: '', message: 'bad' }], 'querystring')
        throw httpErrors.badRequest('no details', { code: ErrorCode.VALIDATION_ERROR })
      },
    })
  }
  return app
}

test('a QUERY whose content fails the body schema is a 422 (RFC 10008 §2), a POST a 400', async (t) => {
  const app = await build()
  const query = await app.inject({ method: 'QUERY', url: '/books', payload: { other: 1 } })
  t.equal(query.statusCode, 422)
  t.same(query.json().error.details, [
    {
      field: 'body/title',
      message: "must have required property 'title'",
      code: 'REQUIRED',
    },
  ])
  const post = await app.inject({ method: 'POST', url: '/books', payload: { other: 1 } })
  t.equal(post.statusCode, 400)
  t.equal(post.json().error.code, query.json().error.code, 'the same code')
})

test('other 400s of a QUERY stay 400', async (t) => {
  const app = await build()
  const querystring = await app.inject({
    method: 'QUERY',
    url: '/books?n=x',
    payload: { title: 'Dune' },
  })
  t.equal(querystring.statusCode, 400, 'a bad query parameter')
  const malformed = await app.inject({
    method: 'QUERY',
    url: '/books',
    headers: { 'content-type': 'application/json' },
    payload: '{',
  })
  t.equal(malformed.statusCode, 400, 'content that is not what its Content-Type says')
  t.equal(malformed.json().error.code, 'MALFORMED_JSON')
  for (const [kind, status] of [
    ['body', 422],
    ['query', 400],
    ['none', 400],
    ['whole', 422],
  ] as const) {
    const res = await app.inject({ method: 'QUERY', url: `/thrown?kind=${kind}`, payload: {} })
    t.equal(res.statusCode, status, kind)
    const post = await app.inject({ method: 'POST', url: `/thrown?kind=${kind}`, payload: {} })
    t.equal(post.statusCode, 400, `POST ${kind}`)
  }
  const missing = await app.inject({ method: 'QUERY', url: '/thrown?kind=missing', payload: {} })
  t.equal(missing.statusCode, 404, 'another status is left as it is')
})
