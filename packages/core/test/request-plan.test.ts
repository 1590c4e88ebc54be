/** The request, preHandler and serialization steps: their hooks, alone and under a pipeline. */
import {
  bodyStep,
  conventionPlugin,
  defineConvention,
  type RequestStep,
  type SerializeStep,
} from '@restwell/core'
import {
  installConvention,
  mergeContributions,
  forgetNotFoundPreHandler,
  installPipeline,
  isBodyStep,
  notFoundPreHandler,
  parsingHook,
  requestHook,
  serializeHook,
} from '@restwell/core/internal'
import { Transform } from 'node:stream'
import type { FastifyInstance, onRequestHookHandler } from 'fastify'
import { test } from 'tap'
import { app } from './helpers.js'

const mark =
  (seen: string[], name: string, out?: boolean): RequestStep =>
  () => {
    seen.push(name)
    return out
  }

test('requestHook: steps in order; true ends the run; an error returned, thrown or rejected answers', async (t) => {
  const fastify = app()
  const seen: string[] = []
  const answer: RequestStep = (_request, reply) => {
    seen.push('answer')
    reply.code(202).send('early')
    return true
  }
  const later = async (): Promise<undefined> => {
    seen.push('later')
    return undefined
  }
  const hook = requestHook('named', [mark(seen, 'a'), later, mark(seen, 'b')])
  t.equal(hook.name, 'named')
  fastify.get('/all', { onRequest: hook }, async () => seen.join())
  fastify.get('/early', { onRequest: requestHook('e', [answer, mark(seen, 'never')]) }, () => 'x')
  fastify.get(
    '/async-answer',
    {
      onRequest: requestHook('e', [
        async (_request, reply) => {
          reply.code(203).send('async')
          return true
        },
        mark(seen, 'never'),
      ]),
    },
    () => 'x',
  )
  const fail = (status: number): RequestStep => {
    return () => {
      throw Object.assign(new Error('no'), { statusCode: status })
    }
  }
  fastify.get(
    '/throws',
    { onRequest: requestHook('t', [fail(412), mark(seen, 'never')]) },
    () => 'x',
  )
  fastify.get(
    '/rejects',
    {
      onRequest: requestHook('r', [
        () => Promise.reject(Object.assign(new Error('no'), { statusCode: 429 })),
      ]),
    },
    () => 'x',
  )
  // An error returned answers as a thrown one does, without the cost of a throw.
  const refuse = (status: number): RequestStep => {
    return () => Object.assign(new Error('no'), { statusCode: status })
  }
  fastify.get(
    '/returns-error',
    {
      onRequest: requestHook('re', [
        mark(seen, 'on', false),
        mark(seen, 'after false'),
        refuse(405),
        mark(seen, 'never'),
      ]),
    },
    () => 'x',
  )
  fastify.get(
    '/resolves-error',
    {
      onRequest: requestHook('rr', [
        async () => Object.assign(new Error('no'), { statusCode: 501 }),
        mark(seen, 'never'),
      ]),
    },
    () => 'x',
  )
  t.equal((await fastify.inject('/all')).body, 'a,later,b')
  t.equal((await fastify.inject('/returns-error')).statusCode, 405)
  t.ok(seen.includes('after false'), '`false` goes on to the next step, as `undefined` does')
  t.equal((await fastify.inject('/resolves-error')).statusCode, 501)
  t.equal((await fastify.inject('/early')).statusCode, 202)
  t.equal((await fastify.inject('/async-answer')).body, 'async')
  t.equal((await fastify.inject('/throws')).statusCode, 412)
  t.equal((await fastify.inject('/rejects')).statusCode, 429)
  t.notOk(seen.includes('never'), 'nothing after an answer or an error')
})

test('parsingHook: its steps, then the decoder on the body stream; an answer or an error skips it', async (t) => {
  const fastify = app()
  const seen: string[] = []
  // A "decoder" that upper-cases the body, so whether it ran shows in what the handler got.
  const upper = bodyStep((_request, _reply, payload) => {
    seen.push('decode')
    const shout = new Transform({
      transform(chunk: Buffer, _encoding, next) {
        next(null, chunk.toString().toUpperCase())
      },
    })
    return payload.pipe(shout)
  })
  const later = async (): Promise<undefined> => {
    seen.push('later')
    return undefined
  }
  const answer: RequestStep = (_request, reply) => {
    reply.code(202).send('early')
    return true
  }
  const echo = async (request: { body: unknown }) => request.body
  const post = (url: string) =>
    fastify.inject({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: 'a' })
  const hook = parsingHook('named', [mark(seen, 'a'), upper, later])
  t.equal(hook.name, 'named')
  fastify.post('/decoded', { preParsing: hook }, echo)
  fastify.post('/plain', { preParsing: parsingHook('p', [mark(seen, 'p')]) }, echo)
  const decodeOnly = parsingHook('only', [upper])
  t.equal(decodeOnly.name, 'only')
  fastify.post('/decode-only', { preParsing: decodeOnly }, echo)
  fastify.post('/answered', { preParsing: parsingHook('e', [answer, upper]) }, echo)
  fastify.post(
    '/refused',
    {
      preParsing: parsingHook('f', [
        () => Object.assign(new Error('no'), { statusCode: 415 }),
        upper,
      ]),
    },
    echo,
  )
  t.equal((await post('/decoded')).body, 'A')
  t.same(seen, ['a', 'later', 'decode'], 'the request steps in order, then the body steps')
  seen.length = 0
  t.equal((await post('/plain')).body, 'a', 'without a decoder the body goes on unchanged')
  t.equal((await post('/answered')).statusCode, 202)
  t.equal((await post('/refused')).statusCode, 415)
  t.same(seen, ['p'], 'no decoder after an answer or an error')
  t.equal((await post('/decode-only')).body, 'A', 'without steps the decoder runs at once')
})

test('bodyStep: a body step that keeps the body, refuses it or throws', async (t) => {
  const fastify = app()
  const keep = bodyStep(() => undefined)
  t.ok(isBodyStep(keep))
  t.notOk(isBodyStep(() => undefined))
  const refuse = bodyStep(() => Object.assign(new Error('coding'), { statusCode: 415 }))
  const thrown = bodyStep(() => {
    throw Object.assign(new Error('broken'), { statusCode: 400 })
  })
  const echo = async (request: { body: unknown }) => request.body
  fastify.post('/kept', { preParsing: parsingHook('k', [keep, keep]) }, echo)
  fastify.post('/refused', { preParsing: parsingHook('r', [refuse, keep]) }, echo)
  fastify.post('/thrown', { preParsing: parsingHook('t', [thrown]) }, echo)
  const post = (url: string) =>
    fastify.inject({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: 'a' })
  t.equal((await post('/kept')).body, 'a')
  t.equal((await post('/refused')).statusCode, 415)
  t.equal((await post('/thrown')).statusCode, 400)
})

test('serializeHook runs serialization steps: a value replaces the payload', async (t) => {
  const fastify = app()
  const upper: SerializeStep = (_request, _reply, payload) => ({
    text: String((payload as { text: string }).text).toUpperCase(),
  })
  fastify.get('/x', { preSerialization: serializeHook('s', [upper]) }, async () => ({ text: 'a' }))
  t.same((await fastify.inject('/x')).json(), { text: 'A' })
})

/** A convention with a step on every request and one before the not-found handler. */
const appWide = (seen: string[]) =>
  defineConvention({
    name: 'appWide',
    plugin: '@test/app-wide',
    phases: ['request', 'notFoundHandler'],
    routeConfigKey: false,
    options: () => ({}),
    setup: () => undefined,
    app: () => ({ request: mark(seen, 'root'), notFoundHandler: mark(seen, 'nf') }),
  })

const under = (fastify: FastifyInstance, seen: string[]) =>
  installConvention(
    fastify,
    appWide(seen),
    {},
    {
      pipeline: true,
      contributions: () => mergeContributions([]),
    },
  )

test('root request steps and the not-found preHandler, alone and under a pipeline', async (t) => {
  const seen: string[] = []
  const alone = app()
  t.equal(notFoundPreHandler(alone), undefined, 'no pipeline: each convention adds its own hook')
  await alone.register(conventionPlugin(appWide(seen)))
  alone.get('/x', async () => 'x')
  await alone.ready()
  t.match(alone.printRoutes({ includeHooks: true }), /appWideAlone\(\)/)
  await alone.inject('/x')
  t.same(seen.splice(0), ['root'], 'a route: the not-found step does not run')
  await alone.inject('/nothing')
  t.same(seen.splice(0), ['root', 'nf'])

  const piped = app()
  const pipeline = installPipeline(piped)
  const preHandler = notFoundPreHandler(piped) as onRequestHookHandler
  await under(piped, seen)
  t.same(
    [...pipeline.request.keys()].map((key) => key.name),
    ['appWide'],
  )
  piped.setNotFoundHandler({ preHandler }, (_request, reply) => reply.code(404).send('none'))
  piped.get('/x', async (_request, reply) => reply.callNotFound())
  t.equal((await piped.inject('/x')).body, 'none')
  t.equal((await piped.inject('/nothing')).body, 'none')
  t.same(seen, ['nf', 'nf'], 'the not-found handler runs them; routes never')
})

test("forgetNotFoundPreHandler: the app's not-found handler kept, the steps go to root hooks", async (t) => {
  const seen: string[] = []
  const alone = app()
  forgetNotFoundPreHandler(alone)
  t.equal(notFoundPreHandler(alone), undefined, 'no pipeline: nothing to forget')

  const piped = app()
  piped.setNotFoundHandler((_request, reply) => reply.code(404).send('own'))
  const pipeline = installPipeline(piped)
  notFoundPreHandler(piped)
  t.ok(pipeline.notFoundPreHandler)
  forgetNotFoundPreHandler(piped)
  t.equal(pipeline.notFoundPreHandler, undefined)
  await under(piped, seen)
  piped.get('/x', async (_request, reply) => reply.callNotFound())
  t.equal((await piped.inject('/x')).body, 'own')
  t.equal((await piped.inject('/nothing')).body, 'own')
  // A root preHandler hook that runs before the app's handler only: on callNotFound and on an
  // unknown path, never on the route's own answer.
  t.same(seen, ['nf', 'nf'])
})
