import Fastify from 'fastify'
import { test } from 'tap'
import restwell from '../src/index.js'
import { nearMissOf } from '../src/route-config.js'

test('a near miss of a restwell route config key fails the route, naming the key it meant', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwell, { rateLimit: false })
  const typos: Array<[string, string]> = [
    ['paginaton', 'pagination'],
    ['Pagination', 'pagination'],
    ['soft_delete', 'softDelete'],
    ['ratelimit', 'rateLimit'],
    ['condtional', 'conditional'],
    ['auht', 'auth'],
    ['AUTH', 'auth'],
    ['cahce', 'cache'],
    ['pach', 'patch'],
  ]
  for (const [typo, meant] of typos) {
    t.throws(
      () => app.get(`/${typo.toLowerCase()}s`, { config: { [typo]: true } }, async () => []),
      {
        name: 'OptionsError',
        option: `config.${typo}`,
        message: `restwell (route GET /${typo.toLowerCase()}s): option "config.${typo}" is not a route config key of restwell's; did you mean "${meant}"? (A key of the app's own may not be a near miss of one of restwell's: rename it.)`,
      },
      typo,
    )
  }
})

test("an app's own route config keys are left alone, near restwell's or not", async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(restwell, { rateLimit: false })
  // Other first letters, or more edits than a typo makes: another word, not a slip.
  const own = ['rawBody', 'batch', 'oauth', 'author', 'patches', 'paging', 'roles', 'output']
  app.get('/items', { config: Object.fromEntries(own.map((key) => [key, 1])) }, async (request) =>
    Object.keys(request.routeOptions.config),
  )
  app.get('/books', { config: { pagination: true, auth: false } }, (_request, reply) =>
    reply.paginate([]),
  )
  await app.ready()
  t.match((await app.inject('/items')).json(), own)
  t.equal((await app.inject('/books')).statusCode, 200)
})

test('a route declared before restwell with a near miss fails registration', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/books', { config: { negotation: { languages: ['en'] } } as never }, async () => [])
  await t.rejects(async () => app.register(restwell), {
    option: 'config.negotation',
    message: /did you mean "negotiation"\?/,
  })
})

test('nearMissOf: case aside, the same first letter and one or two edits by length', async (t) => {
  t.equal(nearMissOf('pagination'), undefined, 'a key of restwell is no miss')
  t.equal(nearMissOf('SoftDelete'), 'softDelete')
  t.equal(nearMissOf('versoining'), 'versioning', 'a swap of two letters')
  t.equal(nearMissOf('pagintaion'), 'pagination')
  t.equal(nearMissOf('paginatio'), 'pagination')
  t.equal(nearMissOf('pgination'), 'pagination')
  t.equal(nearMissOf('pginatn'), undefined, 'three edits')
  t.equal(nearMissOf('cor'), 'cors')
  t.equal(nearMissOf('crs'), 'cors')
  t.equal(nearMissOf('cr'), undefined, 'two edits from a short key')
  t.equal(nearMissOf('xors'), undefined, 'another first letter')
  t.equal(nearMissOf(''), undefined)
})
