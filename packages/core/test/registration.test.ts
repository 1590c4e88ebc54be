import { RegistrationError } from '@restwell/core'
import { installPipeline, refuseBeside, registerOnce } from '@restwell/core/internal'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { test } from 'tap'

const plugin = fp(
  async (fastify) => {
    registerOnce(fastify, '@restwell/example', 'example')
    fastify.decorateRequest('example', null)
  },
  { name: '@restwell/example' },
)

test('registerOnce: a second registration in the same scope chain fails with the fix', async (t) => {
  const app = Fastify()
  await app.register(plugin)
  await t.rejects(
    async () => {
      await app.register(plugin)
    },
    {
      name: 'RegistrationError',
      code: 'RESTWELL_REGISTRATION',
      message:
        /^@restwell\/example: registered twice on this instance \(or on it and a parent scope\)\. Register it once, at the level whose routes it serves\.$/,
    },
  )
  // Under the umbrella (a pipeline on the instance), the fix names its option.
  const umbrella = Fastify()
  installPipeline(umbrella)
  await umbrella.register(plugin)
  await t.rejects(
    async () => {
      await umbrella.register(plugin)
    },
    {
      message:
        /^@restwell\/example: registered twice on this instance \(or on it and a parent scope\)\. The restwell umbrella registers it unless its `example` option is false: pass these options to restwell as `example`, or set `example: false` there and register @restwell\/example once\.$/,
    },
  )
  const nested = Fastify()
  await nested.register(plugin)
  nested.register(async (child) => {
    await child.register(plugin)
  })
  await t.rejects(async () => nested.ready(), { message: /registered twice/ })
})

test('registerOnce: sibling scopes may each register the plugin', async (t) => {
  const app = Fastify()
  app.register(async (one) => {
    await one.register(plugin)
  })
  app.register(async (two) => {
    await two.register(plugin)
  })
  await app.ready()
  t.pass('both registered')
})

test("registerOnce with scope 'instance': a child scope may register it again, the same instance not", async (t) => {
  const perScope = fp(
    async (fastify) => {
      registerOnce(fastify, '@restwell/per-scope', 'perScope', { scope: 'instance' })
    },
    { name: '@restwell/per-scope' },
  )
  const app = Fastify()
  await app.register(perScope)
  app.register(async (child) => {
    await child.register(perScope)
  })
  await t.rejects(
    async () => {
      await app.register(perScope)
    },
    { message: /^@restwell\/per-scope: registered twice on this instance .*Register it once/ },
  )
  const nested = Fastify()
  await nested.register(perScope)
  nested.register(async (child) => {
    await child.register(perScope)
  })
  await nested.ready()
  t.pass('the child scope registered it again')
})

test('registerOnce under a sealed pipeline: a plugin registered after the plans are made fails', async (t) => {
  const app = Fastify()
  const pipeline = installPipeline(app)
  await app.register(plugin)
  pipeline.sealed = true
  app.register(async (child) => {
    await child.register(
      fp(async (scope) => registerOnce(scope, '@restwell/late', 'late'), { name: 'late' }),
    )
  })
  await t.rejects(async () => app.ready(), {
    name: 'RegistrationError',
    code: 'RESTWELL_REGISTRATION',
    message:
      /^@restwell\/late: registered after restwell, which has made every route's plan: its steps would never run\. Pass these options to restwell as `late`/,
  })
  // A plugin that hands over no step (routes, decorators) may come after.
  const routesOnly = Fastify()
  installPipeline(routesOnly).sealed = true
  await routesOnly.register(
    fp(async (scope) => registerOnce(scope, '@restwell/routes', 'routes', { steps: false }), {
      name: 'routes',
    }),
  )
  t.pass('registered after the plans, handing over no step')
})

test('refuseBeside: the other plugin registered before fails now, registered after fails ready()', async (t) => {
  const other = fp(async () => {}, { name: '@acme/other' })
  const refusal = (when: 'before' | 'after') => new RegistrationError(`other is there ${when}`)
  const before = Fastify()
  t.teardown(() => before.close())
  await before.register(other)
  t.throws(() => refuseBeside(before, '@acme/other', refusal), {
    name: 'RegistrationError',
    message: 'other is there before',
  })
  const after = Fastify()
  t.teardown(() => after.close())
  refuseBeside(after, '@acme/other', refusal)
  await after.register(other)
  await t.rejects(async () => after.ready(), { message: 'other is there after' })
  const alone = Fastify()
  t.teardown(() => alone.close())
  refuseBeside(alone, '@acme/other', refusal)
  await t.resolves(async () => alone.ready(), 'without it, nothing is refused')
})
