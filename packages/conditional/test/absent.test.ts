/**
 * Preconditions on a target that does not exist (`getValidator` gives null or undefined).
 * RFC 9110 §13.2.1: the preconditions are ignored when the answer without them would not be a
 * 2xx or 412, so a write that cannot create its target is 404 whatever it carries; §13.1.1:
 * If-Match (`*` too) is false without a current representation, so a write that may create
 * its target (a creating PUT, a POST) is 412 with If-Match and goes on with If-None-Match: *.
 */
import { ErrorCode, restwellErrors } from '@restwell/errors'
import { expectTypeOf } from 'expect-type'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { test } from 'tap'
import type {
  ConditionalOptions,
  ConditionalRouteConfig,
  ResourceValidators,
} from '../src/index.js'
import { restwellConditional } from '../src/index.js'

const OLD_DATE = 'Tue, 30 Apr 2024 00:00:00 GMT'

interface Built {
  app: FastifyInstance
  store: Map<string, number>
  /** Handlers that ran, as `METHOD /path`. */
  calls: string[]
  /** getValidator calls, as `METHOD /path`. */
  lookups: string[]
}

async function build(options: ConditionalOptions = {}, errors = true): Promise<Built> {
  const store = new Map([['7', 3]])
  const calls: string[] = []
  const lookups: string[] = []
  const app = Fastify()
  if (errors) await app.register(restwellErrors)
  await app.register(restwellConditional, options)
  const getValidator = (request: FastifyRequest): ResourceValidators | null => {
    lookups.push(`${request.method} ${request.routeOptions.url}`)
    const version = store.get((request.params as { id: string }).id)
    return version === undefined ? null : { etag: version }
  }
  const handler = async (
    request: FastifyRequest<{ Params: { id: string } }>,
  ): Promise<{ id: string; version: number }> => {
    calls.push(`${request.method} ${request.routeOptions.url}`)
    const version = (store.get(request.params.id) ?? 0) + 1
    if (request.method === 'DELETE') store.delete(request.params.id)
    else store.set(request.params.id, version)
    return { id: request.params.id, version }
  }
  // PUT creates by default (RFC 9110 §9.3.4); PATCH and DELETE do not.
  app.route({
    method: ['PUT', 'PATCH', 'DELETE'],
    url: '/items/:id',
    config: { conditional: { getValidator } },
    handler,
  })
  app.put('/fixed/:id', { config: { conditional: { getValidator, creates: false } } }, handler)
  app.patch('/upsert/:id', { config: { conditional: { getValidator, creates: true } } }, handler)
  app.post('/items/:id/notes', { config: { conditional: { getValidator } } }, handler)
  return { app, store, calls, lookups }
}

const NOT_CREATING: ReadonlyArray<[string, string]> = [
  ['PATCH', '/items/9'],
  ['DELETE', '/items/9'],
  ['PUT', '/fixed/9'],
]

const bodyOf = (method: string): { title: string } | undefined =>
  method === 'DELETE' ? undefined : { title: 'x' }

test('a write that cannot create its missing target is 404 whatever its preconditions', async (t) => {
  const { app, store, calls } = await build()
  const cases: Array<Record<string, string>> = [
    { 'if-match': '"1"' },
    { 'if-match': '*' },
    { 'if-match': '' },
    { 'if-unmodified-since': OLD_DATE },
    { 'if-none-match': '*' },
    { 'if-none-match': '"1"' },
  ]
  for (const [method, url] of NOT_CREATING) {
    for (const headers of cases) {
      const res = await app.inject({ method, url, headers, payload: bodyOf(method) })
      const label = `${method} ${url} ${JSON.stringify(headers)}`
      t.equal(res.statusCode, 404, label)
      const error = res.json().error
      t.equal(error.code, 'NOT_FOUND', label)
      t.equal(error.message, 'The target resource does not exist', label)
      t.equal(res.headers.etag, undefined)
    }
  }
  t.same(calls, [], 'no handler ran')
  t.notOk(store.has('9'), 'nothing written')
})

test('requirePrecondition: a write that cannot create its missing target is 404, not 428', async (t) => {
  const { app, calls, lookups } = await build({ requirePrecondition: true })
  for (const [method, url] of NOT_CREATING) {
    for (const headers of [{}, { 'if-modified-since': OLD_DATE }, { 'if-none-match': 'junk' }]) {
      const res = await app.inject({ method, url, headers, payload: bodyOf(method) })
      t.equal(res.statusCode, 404, `${method} ${url} ${JSON.stringify(headers)}`)
    }
    // The same write to an item that exists is still 428.
    const present = url.replace('/9', '/7')
    const res = await app.inject({ method, url: present, payload: bodyOf(method) })
    t.equal(res.statusCode, 428, `${method} ${present}`)
    t.equal(res.json().error.code, ErrorCode.PRECONDITION_REQUIRED)
  }
  t.same(calls, [])
  t.equal(lookups.length, 12, 'the stored state was read to tell 404 from 428')
})

test('a PUT that may create (the default) keeps 412 and 428 on its missing target', async (t) => {
  const { app, store, calls, lookups } = await build({ requirePrecondition: true })
  for (const ifMatch of ['*', '"x"']) {
    const res = await app.inject({
      method: 'PUT',
      url: '/items/9',
      headers: { 'if-match': ifMatch },
      payload: { title: 'x' },
    })
    t.equal(res.statusCode, 412, `If-Match: ${ifMatch}`)
    t.equal(res.json().error.details[0].field, 'headers/if-match')
  }
  const blind = await app.inject({ method: 'PUT', url: '/items/9', payload: { title: 'x' } })
  t.equal(blind.statusCode, 428, 'a create must be conditional too (If-None-Match: *)')
  t.same(lookups, ['PUT /items/:id', 'PUT /items/:id'], 'no lookup for the 428 of a creating PUT')
  const created = await app.inject({
    method: 'PUT',
    url: '/items/9',
    headers: { 'if-none-match': '*' },
    payload: { title: 'x' },
  })
  t.equal(created.statusCode, 200)
  t.same(calls, ['PUT /items/:id'])
  t.equal(store.get('9'), 1)
})

test('creates: true lets a PATCH create; a POST is never 404 for a missing target', async (t) => {
  const { app, calls } = await build()
  const stale = await app.inject({
    method: 'PATCH',
    url: '/upsert/9',
    headers: { 'if-match': '"1"' },
    payload: { title: 'x' },
  })
  t.equal(stale.statusCode, 412)
  const created = await app.inject({
    method: 'PATCH',
    url: '/upsert/9',
    headers: { 'if-none-match': '*' },
    payload: { title: 'x' },
  })
  t.equal(created.statusCode, 200)
  const post = await app.inject({
    method: 'POST',
    url: '/items/8/notes',
    headers: { 'if-match': '"1"' },
    payload: { title: 'x' },
  })
  t.equal(post.statusCode, 412, 'POST evaluates against no representation, as before')
  t.same(calls, ['PATCH /upsert/:id'])
})

test('without a precondition nor requirePrecondition, a write that cannot create is 404 too', async (t) => {
  const { app, store, calls, lookups } = await build()
  for (const [method, url] of NOT_CREATING) {
    const res = await app.inject({ method, url, payload: bodyOf(method) })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.equal(res.json().error.message, 'The target resource does not exist')
  }
  t.same(calls, [], 'no handler ran (these would answer 200 for a missing item)')
  t.notOk(store.has('9'), 'nothing written')
  t.equal(lookups.length, 3, 'the stored state was read')
  const present = await app.inject({ method: 'PATCH', url: '/items/7', payload: { title: 'x' } })
  t.equal(present.statusCode, 200, 'an existing target: the handler answers')
  t.same(calls, ['PATCH /items/:id'])
})

test('a write that may create its missing target goes to the handler, with no lookup', async (t) => {
  const { app, calls, lookups } = await build()
  const put = await app.inject({ method: 'PUT', url: '/items/9', payload: { title: 'x' } })
  t.equal(put.statusCode, 200, 'a creating PUT')
  const post = await app.inject({ method: 'POST', url: '/items/8/notes', payload: { title: 'x' } })
  t.equal(post.statusCode, 200, 'a POST')
  t.same(calls, ['PUT /items/:id', 'POST /items/:id/notes'])
  t.same(lookups, [], 'nothing to check: the handler decides')
})

test('existing items are checked as before', async (t) => {
  const { app, calls } = await build()
  for (const [method, url] of NOT_CREATING) {
    const present = url.replace('/9', '/7')
    const stale = await app.inject({
      method,
      url: present,
      headers: { 'if-match': '"1"' },
      payload: bodyOf(method),
    })
    t.equal(stale.statusCode, 412, `${method} ${present}`)
  }
  const ok = await app.inject({
    method: 'PATCH',
    url: '/items/7',
    headers: { 'if-match': '"3"' },
    payload: { title: 'x' },
  })
  t.equal(ok.statusCode, 200)
  t.same(calls, ['PATCH /items/:id'])
})

test('alone (no errors plugin) the 404 has its status through Fastify’s handler', async (t) => {
  const { app } = await build({}, false)
  const res = await app.inject({ method: 'PATCH', url: '/items/9', headers: { 'if-match': '*' } })
  t.equal(res.statusCode, 404)
  t.equal(res.json().message, 'The target resource does not exist')
})

test('creates must be a boolean', async (t) => {
  expectTypeOf<ConditionalRouteConfig['creates']>().toEqualTypeOf<boolean | undefined>()
  const app = Fastify()
  await app.register(restwellConditional)
  t.throws(
    () =>
      app.put(
        '/x',
        { config: { conditional: { getValidator: () => null, creates: 'yes' as never } } },
        async () => 'x',
      ),
    /creates/,
  )
})
