import restwellErrors from '@restwell/errors'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { test } from 'tap'
import restwellBatch, { BATCH_MARKER_HEADER, type BatchOptions } from '../src/index.js'
import { decodeBody, toOutcome } from '../src/outcome.js'

interface Answer {
  id: string
  status: number
  headers: Record<string, string | string[]>
  body?: unknown
  sameAs?: string
  rolledBack?: boolean
}

/** An app with a few routes that show what the operation's request looked like. */
async function build(
  options: BatchOptions = {},
  {
    errors = true,
    server = {},
  }: {
    errors?: boolean | { format: 'problem'; problemTypeBase?: string }
    server?: FastifyServerOptions
  } = {},
): Promise<FastifyInstance> {
  const app = Fastify(server)
  if (errors !== false) await app.register(restwellErrors, errors === true ? {} : errors)
  await app.register(restwellBatch, options)
  app.get('/echo', async (request) => ({
    authorization: request.headers.authorization ?? null,
    host: request.headers.host,
    forwarded: request.headers['x-forwarded-proto'] ?? null,
    ip: request.ip,
    batch: request.headers[BATCH_MARKER_HEADER] !== undefined,
  }))
  app.post('/echo', async (request, reply) =>
    reply.code(201).send({ type: request.headers['content-type'], body: request.body }),
  )
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  )
  app.get('/text', async (_request, reply) => reply.type('text/plain').send('plain words'))
  app.get('/bytes', async (_request, reply) =>
    reply.type('application/octet-stream').send(Buffer.from([0, 1, 2, 255])),
  )
  app.get('/not-json', async (_request, reply) => reply.type('application/json').send('{oops'))
  app.get('/headers', async (_request, reply) =>
    reply.header('x-count', 5).header('set-cookie', ['a=1', 'b=2']).code(204).send(),
  )
  return app
}

async function send(
  app: FastifyInstance,
  payload: unknown,
  headers: Record<string, string> = {},
  url = '/batch',
): Promise<{
  status: number
  body: { responses: Answer[] } & Record<string, unknown>
  headers: Record<string, unknown>
}> {
  const response = await app.inject({ method: 'POST', url, headers, payload: payload as string })
  return { status: response.statusCode, body: response.json(), headers: response.headers }
}

test('each operation is injected with the batch connection and credentials, unless it brings its own', async (t) => {
  const app = await build({}, { server: { trustProxy: true } })
  const { status, body } = await send(
    app,
    {
      requests: [
        { id: 'inherited', method: 'GET', url: '/echo' },
        { id: 'own', method: 'GET', url: '/echo', headers: { Authorization: 'Bearer own' } },
      ],
    },
    {
      authorization: 'Bearer batch',
      host: 'api.example',
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '203.0.113.7',
    },
  )
  t.equal(status, 207)
  t.same(body.responses[0]?.body, {
    authorization: 'Bearer batch',
    host: 'api.example',
    forwarded: 'https',
    ip: '203.0.113.7',
    batch: true,
  })
  t.match(body.responses[1]?.body, { authorization: 'Bearer own' })
  t.notOk(
    'content-length' in (body.responses[0]?.headers ?? {}),
    'headers of the inner message are dropped',
  )
  const anonymous = await send(app, { requests: [{ id: 'a', method: 'GET', url: '/echo' }] })
  t.match(anonymous.body.responses[0]?.body, { authorization: null, ip: '127.0.0.1' })
})

test('If-Match on the batch request is 412 and runs nothing: the endpoint has no representation', async (t) => {
  const app = await build()
  let ran = 0
  app.post('/count', async () => ({ ran: ++ran }))
  const batch = { requests: [{ id: 'a', method: 'POST', url: '/count' }] }
  for (const value of ['"no-such-tag"', '*', '']) {
    const { status, body } = await send(app, batch, { 'if-match': value })
    t.equal(status, 412, `If-Match: ${value}`)
    t.match(body, {
      error: {
        code: 'PRECONDITION_FAILED',
        details: [{ field: 'headers/if-match', message: /in an operation's headers/ }],
      },
    })
  }
  t.equal(ran, 0, 'no operation ran')
  // If-None-Match holds where there is no representation (RFC 9110 §13.1.2).
  for (const value of ['*', '"x"']) {
    const { status } = await send(app, batch, { 'if-none-match': value })
    t.equal(status, 207, `If-None-Match: ${value}`)
  }
  t.equal(ran, 2)
})

test('bodies: JSON sent as JSON, a string as it is; answers as JSON, text or base64', async (t) => {
  const app = await build()
  const { body } = await send(app, {
    requests: [
      { id: 'json', method: 'POST', url: '/echo', body: { a: [1] } },
      {
        id: 'merge',
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: { a: null },
      },
      { id: 'text', method: 'POST', url: '/echo', body: 'hello' },
      { id: 'plain', method: 'GET', url: '/text' },
      { id: 'bytes', method: 'GET', url: '/bytes' },
      { id: 'broken', method: 'GET', url: '/not-json' },
      { id: 'empty', method: 'GET', url: '/headers' },
      { id: 'head', method: 'HEAD', url: '/text' },
    ],
  })
  const [json, merge, text, plain, bytes, broken, empty, head] = body.responses
  t.same(json?.body, { type: 'application/json', body: { a: [1] } })
  t.equal(merge?.status, 415, 'the route answers as alone: it parses no merge patch')
  t.same(text?.body, { type: 'text/plain; charset=utf-8', body: 'hello' })
  t.equal(plain?.body, 'plain words')
  t.equal(bytes?.body, Buffer.from([0, 1, 2, 255]).toString('base64'))
  t.equal(broken?.body, '{oops')
  t.same(
    [empty?.status, empty?.headers['x-count'], empty?.headers['set-cookie']],
    [204, '5', ['a=1', 'b=2']],
  )
  t.notOk('body' in (empty ?? {}), 'no body, no field')
  t.same([head?.status, 'body' in (head ?? {})], [200, false])
})

test('a batch reached through another path is refused for that operation', async (t) => {
  const app = await build(
    {},
    {
      server: {
        rewriteUrl: (request) => (request.url === '/alias' ? '/batch' : (request.url as string)),
      },
    },
  )
  const { status, body } = await send(app, {
    requests: [
      {
        id: 'nested',
        method: 'POST',
        url: '/alias',
        body: { requests: [{ id: 'x', method: 'GET', url: '/echo' }] },
      },
      { id: 'other', method: 'GET', url: '/echo' },
    ],
  })
  t.equal(status, 207)
  t.match(body.responses[0], { status: 400, body: { error: { message: /batches do not nest/ } } })
  t.equal(body.responses[1]?.status, 200)
  const marked = await send(app, {
    requests: [{ id: 'x', method: 'GET', url: '/echo', headers: { [BATCH_MARKER_HEADER]: 'x' } }],
  })
  t.equal(marked.status, 400, 'an operation may not set the marker')
  const spoofed = await send(
    app,
    { requests: [{ id: 'x', method: 'GET', url: '/echo' }] },
    { [BATCH_MARKER_HEADER]: 'guess' },
  )
  t.equal(spoofed.status, 207, 'a client cannot make its batch look nested')
})

test('atomic: 400 without a transaction; rolled back after a failure; committed otherwise', async (t) => {
  const refused = await send(await build(), {
    atomic: true,
    requests: [{ id: 'a', method: 'GET', url: '/echo' }],
  })
  t.equal(refused.status, 400)
  t.match(refused.body, { error: { details: [{ field: 'atomic' }] } })

  const log: string[] = []
  const transaction = async <T>(run: () => Promise<T>): Promise<T> => {
    log.push('begin')
    try {
      const result = await run()
      log.push('commit')
      return result
    } catch (error) {
      log.push('rollback')
      throw error
    }
  }
  const app = await build({ transaction })
  const failing = await send(app, {
    atomic: true,
    requests: [
      { id: 'a', method: 'POST', url: '/echo', body: {} },
      { id: 'b', method: 'GET', url: '/missing' },
      { id: 'c', method: 'POST', url: '/echo', body: {} },
    ],
  })
  t.same(
    failing.body.responses.map((r) => [r.status, r.rolledBack ?? false]),
    [
      [201, true],
      [404, false],
      [424, false],
    ],
  )
  t.match(failing.body.responses[2]?.body, {
    error: { message: 'Not run: an earlier operation of the atomic batch failed' },
  })
  t.same(log, ['begin', 'rollback'])
  log.length = 0
  const passing = await send(app, {
    atomic: true,
    requests: [{ id: 'a', method: 'POST', url: '/echo', body: {} }],
  })
  t.same(passing.body.responses[0], {
    id: 'a',
    status: 201,
    headers: passing.body.responses[0]?.headers,
    body: { type: 'application/json', body: {} },
  })
  t.same(log, ['begin', 'commit'])

  const broken = await build({ transaction: () => Promise.reject(new Error('database gone')) })
  const failed = await send(broken, {
    atomic: true,
    requests: [{ id: 'a', method: 'GET', url: '/echo' }],
  })
  t.equal(failed.status, 500, 'a transaction that fails by itself fails the batch')
})

test('424 bodies use the error form of @restwell/errors, or the structured form without it', async (t) => {
  const batch = {
    requests: [
      { id: 'a', method: 'GET', url: '/missing' },
      { id: 'b', method: 'GET', url: '/echo', dependsOn: ['a'] },
    ],
  }
  const problem = await send(await build({}, { errors: { format: 'problem' } }), batch)
  t.match(problem.body.responses[1], {
    status: 424,
    headers: { 'content-type': 'application/problem+json' },
    body: { status: 424, code: 'FAILED_DEPENDENCY', instance: '/echo', type: 'about:blank' },
  })
  // The app's problem type base, as on every other error of the app.
  const typed = await send(
    await build({}, { errors: { format: 'problem', problemTypeBase: 'https://errors.example/' } }),
    batch,
  )
  t.match(typed.body.responses, [
    { status: 404, body: { type: 'https://errors.example/not-found' } },
    { status: 424, body: { type: 'https://errors.example/failed-dependency' } },
  ])
  const bare = await send(await build({}, { errors: false }), batch)
  t.match(bare.body.responses[1], {
    status: 424,
    body: { error: { code: 'FAILED_DEPENDENCY', requestId: String } },
  })
})

test('options: basePath under the prefix, maxOperations, maxBodySize (413), concurrency', async (t) => {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(
    async (scope) => {
      await scope.register(restwellBatch, {
        basePath: '/many-things',
        maxOperations: 2,
        maxBodySize: 200,
        concurrency: 1,
      })
      scope.get('/echo', async () => ({ ok: true }))
    },
    { prefix: '/api' },
  )
  const ok = await send(
    app,
    { requests: [{ id: 'a', method: 'GET', url: '/api/echo' }] },
    {},
    '/api/many-things',
  )
  t.equal(ok.status, 207)
  const nested = await send(
    app,
    { requests: [{ id: 'a', method: 'POST', url: '/api/many-things' }] },
    {},
    '/api/many-things',
  )
  t.match(nested.body, { error: { message: /do not nest/ } })
  const many = await send(
    app,
    { requests: ['a', 'b', 'c'].map((id) => ({ id, method: 'GET', url: '/' })) },
    {},
    '/api/many-things',
  )
  t.match(many.body, { error: { message: /holds 3 operations; at most 2/ } })
  const big = await send(
    app,
    { requests: [{ id: 'a', method: 'POST', url: '/api/echo', body: 'x'.repeat(300) }] },
    {},
    '/api/many-things',
  )
  t.equal(big.status, 413)
  t.match(big.body, { error: { code: 'PAYLOAD_TOO_LARGE' } })
})

test('options are checked at registration, naming the field', async (t) => {
  for (const [options, field] of [
    [{ basePath: 'batch' }, 'basePath'],
    [{ maxOperations: 0 }, 'maxOperations'],
    [{ concurrency: 1.5 }, 'concurrency'],
    [{ transaction: 'yes' }, 'transaction'],
    [{ forbiddenHeaders: ['a b'] }, 'forbiddenHeaders'],
    [{ batches: true }, 'batches'],
  ] as const) {
    await t.rejects(
      async () => {
        await Fastify()
          .register(restwellBatch, options as BatchOptions)
          .ready()
      },
      { code: 'RESTWELL_INVALID_OPTION', message: new RegExp(`"${field.replace(/[[\]]/g, '.')}`) },
      field,
    )
  }
})

test('forbiddenHeaders and forbiddenQuery add to the built-in lists', async (t) => {
  const app = await build({ forbiddenHeaders: ['X-Override'], forbiddenQuery: ['verb'] })
  const header = await send(app, {
    requests: [{ id: 'a', method: 'GET', url: '/echo', headers: { 'x-override': 'PUT' } }],
  })
  t.match(header.body, { error: { details: [{ field: 'requests[0].headers.x-override' }] } })
  const query = await send(app, { requests: [{ id: 'a', method: 'GET', url: '/echo?verb=PUT' }] })
  t.match(query.body, { error: { message: /`verb`/ } })
})

test('toOutcome and decodeBody: what an answer without a type or with an unset header becomes', async (t) => {
  t.equal(decodeBody(Buffer.from('hi'), undefined), Buffer.from('hi').toString('base64'))
  const response = {
    statusCode: 200,
    headers: { 'x-gone': undefined, 'x-kept': 'y', 'x-n': 5, 'access-control-allow-origin': '*' },
    rawPayload: Buffer.alloc(0),
  }
  t.same(toOutcome(response as unknown as Parameters<typeof toOutcome>[0]), {
    status: 200,
    headers: { 'x-kept': 'y', 'x-n': '5' },
  })
})
