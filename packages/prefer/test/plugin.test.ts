import { restwellErrors } from '@restwell/errors'
import restwellJobs from '@restwell/jobs'
import Fastify, { type FastifyInstance } from 'fastify'
import { test } from 'tap'
import { type PreferOptions, restwellPrefer } from '../src/index.js'

const BOOK_SCHEMA = {
  body: {
    type: 'object',
    properties: { title: { type: 'string' } },
  },
  querystring: { type: 'object', properties: { fields: { type: 'string' } } },
}

async function build(options: PreferOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellPrefer, options)
  app.post('/books', { schema: BOOK_SCHEMA }, async (request, reply) =>
    reply
      .code(201)
      .header('location', '/books/2')
      .send({ id: 2, ...(request.body as object) }),
  )
  app.put('/books/:id', { schema: BOOK_SCHEMA }, async (request) => ({
    id: 1,
    ...(request.body as object),
  }))
  app.delete('/books/:id', async (_request, reply) => reply.code(204).send())
  app.put('/blank', async (_request, reply) => reply.send(''))
  app.put('/nothing', async (_request, reply) => reply.send())
  app.get('/books', { schema: { querystring: BOOK_SCHEMA.querystring } }, async (request) => ({
    query: request.query,
  }))
  app.get('/free', async (request) => ({ query: request.query }))
  app.patch('/quiet', { config: { prefer: { return: false } } }, async () => ({ id: 1 }))
  app.get('/off', { config: { prefer: false } }, async (request) => ({ prefer: request.prefer }))
  app.post(
    '/loose',
    { schema: { body: { type: 'object' } }, config: { prefer: { handling: false } } },
    async (request) => request.body,
  )
  app.post('/shapeless', { schema: { body: { type: 'object' } } }, async (request) => request.body)
  return app
}

const json = { 'content-type': 'application/json' }

test('return=minimal: a write answers 204, or 201 with Location and no body (RFC 7240 §4.2)', async (t) => {
  const app = await build()
  const created = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{"title":"Dune"}',
    headers: { ...json, prefer: 'return=minimal' },
  })
  t.equal(created.statusCode, 201)
  t.equal(created.headers.location, '/books/2')
  t.equal(created.body, '')
  t.equal(created.headers['content-length'], '0')
  t.notOk(created.headers['content-type'])
  t.equal(created.headers['preference-applied'], 'return=minimal')
  t.equal(created.headers.vary, 'Prefer')
  const updated = await app.inject({
    method: 'PUT',
    url: '/books/1',
    payload: '{"title":"Dune"}',
    headers: { ...json, prefer: 'return=minimal' },
  })
  t.equal(updated.statusCode, 204)
  t.equal(updated.body, '')
  t.equal(updated.headers['preference-applied'], 'return=minimal')
  const deleted = await app.inject({
    method: 'DELETE',
    url: '/books/1',
    headers: { prefer: 'return=minimal' },
  })
  t.equal(deleted.statusCode, 204)
  t.equal(deleted.headers['preference-applied'], 'return=minimal', 'a 204 is minimal already')
  const read = await app.inject({ url: '/books', headers: { prefer: 'return=minimal' } })
  t.equal(read.statusCode, 200, 'a read is never minimal')
  t.notOk(read.headers['preference-applied'])
  const quiet = await app.inject({
    method: 'PATCH',
    url: '/quiet',
    headers: { prefer: 'return=minimal' },
  })
  t.equal(quiet.statusCode, 200, 'config.prefer.return: false')
  const failed = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{"title":{"a":1}}',
    headers: { ...json, prefer: 'return=minimal' },
  })
  t.equal(failed.statusCode, 400, 'an error keeps its body')
  t.ok(failed.json().error)
})

test('return=representation: the resource in the body, said so', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'PUT',
    url: '/books/1',
    payload: '{"title":"Dune"}',
    headers: { ...json, prefer: 'return=representation' },
  })
  t.same(res.json(), { id: 1, title: 'Dune' })
  t.equal(res.headers['preference-applied'], 'return=representation')
  const created = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{"title":"Dune"}',
    headers: { ...json, prefer: 'return=representation' },
  })
  t.equal(created.statusCode, 201)
  t.equal(created.headers['preference-applied'], 'return=representation')
  const none = await app.inject({
    method: 'DELETE',
    url: '/books/1',
    headers: { prefer: 'return=representation' },
  })
  t.notOk(none.headers['preference-applied'], 'a 204 has no representation: not honoured')
  for (const url of ['/blank', '/nothing']) {
    const blank = await app.inject({
      method: 'PUT',
      url,
      headers: { prefer: 'return=representation' },
    })
    t.notOk(blank.headers['preference-applied'], `${url}: no body, no representation`)
  }
  const plain = await app.inject({
    method: 'PUT',
    url: '/books/1',
    payload: '{"title":"Dune"}',
    headers: json,
  })
  t.notOk(plain.headers['preference-applied'], 'no Prefer: nothing applied')
  t.equal(plain.headers.vary, 'Prefer', 'the answer varies by it all the same')
})

test('handling=strict refuses unknown query parameters and body members; lenient drops them (§4.4)', async (t) => {
  const app = await build({ queryParameters: ['format'] })
  const strictQuery = await app.inject({
    url: '/books?fields=a&colour=red&format=xml',
    headers: { prefer: 'handling=strict' },
  })
  t.equal(strictQuery.statusCode, 400)
  t.same(
    strictQuery.json().error.details.map((d: { field: string }) => d.field),
    ['querystring/colour'],
    "another plugin's parameter is known",
  )
  t.equal(strictQuery.headers['preference-applied'], 'handling=strict')
  const lenientQuery = await app.inject({
    url: '/books?fields=a&colour=red',
    headers: { prefer: 'handling=lenient' },
  })
  t.same(lenientQuery.json(), { query: { fields: 'a' } })
  t.equal(lenientQuery.headers['preference-applied'], 'handling=lenient')
  const defaultQuery = await app.inject('/books?fields=a&colour=red')
  t.same(
    defaultQuery.json(),
    { query: { fields: 'a', colour: 'red' } },
    "without it the route's default stays",
  )
  const strictBody = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{"title":"Dune","colour":"red","a/b":1}',
    headers: { ...json, prefer: 'handling=strict' },
  })
  t.equal(strictBody.statusCode, 400)
  t.same(
    strictBody.json().error.details.map((d: { field: string }) => d.field),
    ['body/colour', 'body/a~1b'],
  )
  t.equal(strictBody.json().error.code, 'VALIDATION_ERROR')
  const lenientBody = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{"title":"Dune","colour":"red"}',
    headers: { ...json, prefer: 'handling=lenient' },
  })
  t.same(lenientBody.json(), { id: 2, title: 'Dune' })
  const known = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '{"title":"Dune"}',
    headers: { ...json, prefer: 'handling=strict' },
  })
  t.equal(known.statusCode, 201)
  t.equal(known.headers['preference-applied'], 'handling=strict', 'strictly checked, and passed')
  const undeclared = await app.inject({ url: '/free?x=1', headers: { prefer: 'handling=strict' } })
  t.equal(undeclared.statusCode, 200, 'a route that declares no parameter: nothing is unknown')
  t.notOk(undeclared.headers['preference-applied'])
  t.notOk(undeclared.headers.vary, 'nor does its answer vary')
  const loose = await app.inject({
    method: 'POST',
    url: '/loose',
    payload: '{"x":1}',
    headers: { ...json, prefer: 'handling=strict' },
  })
  t.equal(loose.statusCode, 200, 'config.prefer.handling: false')
  t.notOk(loose.headers['preference-applied'])
  const shapeless = await app.inject({
    method: 'POST',
    url: '/shapeless',
    payload: '{"x":1}',
    headers: { ...json, prefer: 'handling=strict' },
  })
  t.equal(shapeless.statusCode, 200, 'a body schema that names no member: nothing is unknown')
  const arrayBody = await app.inject({
    method: 'POST',
    url: '/books',
    payload: '[1]',
    headers: { ...json, prefer: 'handling=strict' },
  })
  t.equal(arrayBody.statusCode, 400, 'not an object: the schema says so, not handling')
  t.equal(arrayBody.json().error.details[0].field.startsWith('body'), true)
})

test('unknown preferences are ignored; config.prefer false leaves the route alone', async (t) => {
  const app = await build()
  const res = await app.inject({
    method: 'PUT',
    url: '/books/1',
    payload: '{"title":"Dune"}',
    headers: { ...json, prefer: 'x-unknown=1, ;;, return=minimal' },
  })
  t.equal(res.statusCode, 204)
  t.equal(res.headers['preference-applied'], 'return=minimal')
  const off = await app.inject({ url: '/off', headers: { prefer: 'return=minimal' } })
  t.same(off.json(), { prefer: null })
  t.notOk(off.headers.vary)
  await t.rejects(build({ maxWait: -1 }), { name: 'OptionsError', message: /maxWait/ })
})

async function withJobs(
  run: (payload: { title?: string }) => Promise<unknown>,
): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellJobs, { pollMs: 10 })
  await app.register(restwellPrefer, { maxWait: 5 })
  app.jobs.define<{ title?: string }>('export', (payload) => run(payload))
  app.post(
    '/exports',
    { config: { prefer: { async: { job: 'export' } } } },
    async (_request, reply) =>
      reply.code(201).header('location', '/exports/sync').send({ sync: true }),
  )
  app.post(
    '/reports',
    {
      config: {
        prefer: {
          async: {
            job: 'export',
            payload: (request) => ({ title: (request.query as { t: string }).t }),
            maxWait: 0,
          },
        },
      },
    },
    async () => ({ sync: true }),
  )
  return app
}

test('respond-async: 202 with the job resource when the work is not done within wait (§4.1, §4.3)', async (t) => {
  let release = (): void => undefined
  const blocked = new Promise<void>((resolve) => {
    release = resolve
  })
  const seen: unknown[] = []
  const app = await withJobs(async (payload) => {
    seen.push(payload)
    await blocked
    return { location: '/exports/9' }
  })
  t.teardown(() => {
    release()
    return app.close()
  })
  await app.ready()
  const res = await app.inject({
    method: 'POST',
    url: '/exports',
    payload: '{"title":"a"}',
    headers: { ...json, prefer: 'respond-async' },
  })
  t.equal(res.statusCode, 202)
  t.match(res.headers.location, /^\/jobs\/[0-9a-f-]{36}$/)
  t.equal(res.json().status, 'queued')
  t.equal(res.headers['preference-applied'], 'respond-async')
  t.equal(res.headers.vary, 'Prefer')
  const waited = await app.inject({
    method: 'POST',
    url: '/reports?t=x',
    headers: { prefer: 'respond-async, wait=3' },
  })
  t.equal(waited.statusCode, 202, "the route's maxWait bounds the client's wait")
  const sync = await app.inject({ method: 'POST', url: '/exports', payload: '{}', headers: json })
  t.equal(sync.statusCode, 201, 'without respond-async: as usual')
  t.same(sync.json(), { sync: true })
  release()
  t.same(seen[0], { title: 'a' }, 'the job gets the body')
})

test('respond-async: done within wait, the answer is the job outcome', async (t) => {
  const app = await withJobs(async (payload) => {
    if (payload.title === 'fail')
      throw new (await import('@restwell/errors')).HttpError(422, 'No such format', {
        code: 'UNPROCESSABLE_ENTITY',
      })
    return { done: payload.title }
  })
  t.teardown(() => app.close())
  await app.ready()
  const done = await app.inject({
    method: 'POST',
    url: '/exports',
    payload: '{"title":"a"}',
    headers: { ...json, prefer: 'respond-async, wait=5' },
  })
  t.equal(done.statusCode, 303, 'the result, one GET away (RFC 9110 §15.4.4)')
  t.match(done.headers.location, /^\/jobs\/[0-9a-f-]{36}\/result$/)
  t.notOk(done.headers['preference-applied'], 'answered synchronously: respond-async not applied')
  const result = await app.inject(done.headers.location as string)
  t.same(result.json(), { done: 'a' })
  const failed = await app.inject({
    method: 'POST',
    url: '/exports',
    payload: '{"title":"fail"}',
    headers: { ...json, prefer: 'respond-async, wait=5' },
  })
  t.equal(failed.statusCode, 422)
  t.equal(failed.json().error.message, 'No such format')
})

test('a route with an asynchronous form needs @restwell/jobs, said at ready()', async (t) => {
  const app = Fastify()
  await app.register(restwellPrefer)
  app.post('/exports', { config: { prefer: { async: { job: 'export' } } } }, async () => ({}))
  await t.rejects(async () => app.ready(), {
    name: 'OptionsError',
    message: /config\.prefer\.async of POST \/exports.*@restwell\/jobs/,
  })
  const bare = Fastify()
  await bare.register(restwellPrefer)
  bare.post('/plain', async () => ({}))
  await t.resolves(async () => bare.ready(), 'no asynchronous form: no jobs needed')
  const ignored = await bare.inject({
    method: 'POST',
    url: '/plain',
    headers: { prefer: 'respond-async' },
  })
  t.equal(
    ignored.statusCode,
    200,
    'respond-async where the route has no asynchronous form: ignored',
  )
  t.notOk(ignored.headers['preference-applied'])
})

test('respond-async with a jobs API that loses the job: 202 with what it knew', async (t) => {
  const app = Fastify()
  await app.register(restwellPrefer)
  const queued = {
    jobId: 'j1',
    status: 'queued' as const,
    estimatedTime: 'PT1S',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  }
  const payloads: unknown[] = []
  app.decorate('jobs', {
    enqueue: async (_name: string, payload: unknown) => {
      payloads.push(payload)
      return queued
    },
    get: async () => undefined,
    statusUrl: (id: string) => `/jobs/${id}`,
    define: () => undefined,
    queue: undefined,
  })
  app.decorateReply('accepted', function (this: import('fastify').FastifyReply, job: unknown) {
    return this.code(202).send(job)
  })
  app.post('/exports', { config: { prefer: { async: { job: 'export' } } } }, async () => ({}))
  const res = await app.inject({
    method: 'POST',
    url: '/exports',
    headers: { prefer: 'respond-async, wait=1' },
  })
  t.equal(res.statusCode, 202)
  t.same(res.json(), queued)
  t.same(payloads, [null], 'no body: a null payload')
})
