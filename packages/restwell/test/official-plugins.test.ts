/**
 * An official plugin that does a job restwell does, registered beside it: registration fails,
 * naming the plugin, restwell's option and the fix, before or after restwell; with the option
 * off, the two compose. restwell registered twice fails the same way.
 */
import { gunzipSync } from 'node:zlib'
import fastifyCompress from '@fastify/compress'
import fastifyRateLimit from '@fastify/rate-limit'
import fastifyUnderPressure from '@fastify/under-pressure'
import Fastify from 'fastify'
import { test } from 'tap'
import restwellAuth from '@restwell/auth'
import restwell, { type RestwellOptions, restwellMethods } from '../src/index.js'

const big = { title: 'x'.repeat(2000) }

async function app(
  official: 'before' | 'after',
  plugin: typeof fastifyCompress | typeof fastifyUnderPressure | typeof fastifyRateLimit,
  options: RestwellOptions = {},
) {
  const app = Fastify()
  if (official === 'before') await app.register(plugin as typeof fastifyCompress)
  await app.register(restwell, options)
  if (official === 'after') await app.register(plugin as typeof fastifyCompress)
  app.get('/books/:id', { config: { auth: false } }, async () => big)
  return app
}

test('@fastify/compress beside restwell compression fails, before or after, with the fix', async (t) => {
  const before = await app('before', fastifyCompress).catch((error: Error) => error)
  t.match(before, {
    name: 'OptionsError',
    code: 'RESTWELL_INVALID_OPTION',
    option: 'compress',
    message:
      /option "compress" is on, and @fastify\/compress is registered before restwell: both would compress answers.*Remove @fastify\/compress.*or pass `compress: false` to restwell/,
  })
  const after = await app('after', fastifyCompress)
  await t.rejects(
    async () => {
      await after.ready()
    },
    {
      option: 'compress',
      message: /@fastify\/compress is registered after restwell/,
    },
  )
})

test('@fastify/compress with restwell compress off: one compression, weak ETags required', async (t) => {
  // Strong tags would name gzip and identity bytes alike: conditional refuses them.
  const strong = await app('after', fastifyCompress, { compress: false })
  await t.rejects(
    async () => {
      await strong.ready()
    },
    {
      message:
        /hash strong ETags, and @fastify\/compress compresses after.*Remove @fastify\/compress and turn restwell's `compress` option on/,
    },
  )
  const weak = await app('after', fastifyCompress, { compress: false, conditional: { weak: true } })
  t.teardown(() => weak.close())
  const response = await weak.inject({
    url: '/books/1',
    headers: { 'accept-encoding': 'gzip' },
  })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-encoding'], 'gzip')
  t.match(response.headers.etag, /^W\//)
  t.same(JSON.parse(gunzipSync(response.rawPayload).toString()), big)
})

test('@fastify/under-pressure and @fastify/rate-limit, before or after restwell, fail with the option named', async (t) => {
  await t.rejects(app('before', fastifyUnderPressure), {
    option: 'underPressure',
    message: /pass `underPressure: false` to restwell to keep @fastify\/under-pressure/,
  })
  const later = await app('after', fastifyUnderPressure)
  t.teardown(() => later.close())
  await t.rejects(
    async () => {
      await later.ready()
    },
    {
      option: 'underPressure',
      message:
        /@fastify\/under-pressure is registered after restwell: both would answer 503 under load.*pass `underPressure: false` to restwell/,
    },
  )
  await t.rejects(app('before', fastifyRateLimit), {
    option: 'rateLimit',
    message: /@fastify\/rate-limit is registered before restwell: both would count requests/,
  })
  const after = await app('after', fastifyRateLimit, { underPressure: false })
  t.teardown(() => after.close())
  await t.rejects(
    async () => {
      await after.ready()
    },
    {
      option: 'rateLimit',
      message: /@fastify\/rate-limit is registered after restwell: both would count requests/,
    },
  )
  // With restwell's rateLimit off, the app's own limiter is the only one counting.
  const alone = await app('after', fastifyRateLimit, { rateLimit: false })
  t.teardown(() => alone.close())
  await alone.ready()
  const limited = await alone.inject('/books/1')
  t.equal(limited.headers['x-ratelimit-limit'], '1000')
  t.equal(limited.headers['x-ratelimit-remaining'], '999', 'counted once')
  // With restwell's option off, the official plugin does the job alone.
  const own = await app('before', fastifyUnderPressure, { underPressure: false })
  t.teardown(() => own.close())
  await own.ready()
  t.equal(typeof own.isUnderPressure, 'function')
})

test('restwell registered twice fails, on one instance or on a child of it', async (t) => {
  const twice = Fastify()
  await twice.register(restwell)
  await t.rejects(
    async () => {
      await twice.register(restwell)
    },
    {
      code: 'RESTWELL_REGISTRATION',
      message: /restwell: registered twice.*register it once, at the root/,
    },
  )
  const nested = Fastify()
  await nested.register(restwell)
  nested.register(async (child) => {
    await child.register(restwell)
  })
  await t.rejects(
    async () => {
      await nested.ready()
    },
    { message: /restwell: registered twice/ },
  )
})

test("one of restwell's own plugins registered before it fails, named with the option", async (t) => {
  const app = Fastify()
  await app.register(restwellMethods)
  await t.rejects(
    async () => {
      await app.register(restwell)
    },
    {
      message:
        /^@restwell\/methods: registered twice .*pass these options to restwell as `methods`/,
    },
  )
  // auth is off in the umbrella until given: the app's own @restwell/auth is then the only one.
  const own = Fastify()
  await own.register(restwellAuth, { verify: () => null })
  await own.register(restwell)
  own.get('/books/:id', async () => big)
  t.equal((await own.inject('/books/1')).statusCode, 401)
  const given = Fastify()
  await given.register(restwellAuth, { verify: () => null })
  await t.rejects(
    async () => {
      await given.register(restwell, { auth: { verify: () => null } })
    },
    { message: /^@restwell\/auth: registered twice .*as `auth`/ },
  )
})
