/** The app's own error and not-found handlers, set before restwell, are kept. */
import Fastify from 'fastify'
import { test } from 'tap'
import restwell, { httpErrors } from '../src/index.js'

test("an error handler and a not-found handler set before restwell are the app's, never replaced", async (t) => {
  const warnings: string[] = []
  const onWarning = (warning: Error & { code?: string }) => warnings.push(String(warning.code))
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  const app = Fastify()
  t.teardown(() => app.close())
  app.setErrorHandler((error: { statusCode?: number; code?: string }, _request, reply) => {
    reply.code(error.statusCode ?? 500).send({ handledBy: 'app', code: error.code })
  })
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ handledBy: 'app' }))
  await app.register(restwell, { rateLimit: false })
  app.get('/books/:id', { config: { auth: false } }, async (request, reply) => {
    if ((request.params as { id: string }).id === '0') return reply.callNotFound()
    throw httpErrors.gone('Withdrawn')
  })
  await app.ready()
  t.notOk(warnings.includes('FSTWRN004'), 'no error handler was set over the one of the app')

  const thrown = await app.inject('/books/1')
  t.equal(thrown.statusCode, 410)
  t.same(thrown.json(), { handledBy: 'app', code: 'GONE' }, "restwell's errors reach it")
  t.ok(thrown.headers['x-request-id'], 'with the request id')
  const missing = await app.inject('/nowhere')
  t.same(missing.json(), { handledBy: 'app' })
  t.equal(missing.headers['cache-control'], 'no-store', "and restwell's headers")
  t.equal((await app.inject('/books/0')).statusCode, 404, 'callNotFound reaches it too')
  // The conventions of the not-found path stay restwell's.
  const notAllowed = await app.inject({ method: 'DELETE', url: '/books/1' })
  t.equal(notAllowed.statusCode, 405)
  t.same(notAllowed.json(), { handledBy: 'app', code: 'METHOD_NOT_ALLOWED' })
  const options = await app.inject({ method: 'OPTIONS', url: '/books/1' })
  t.equal(options.statusCode, 200)
  t.equal(options.headers.allow, 'GET, HEAD, OPTIONS')
})
