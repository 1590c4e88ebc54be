import {
  conventionPlugin,
  defineConvention,
  optionNaming,
  type Phase,
  type RouteContext,
  type RouteEntry,
  type RoutePhase,
  type SetupContext,
} from '@restwell/core'
import {
  type AlonePlacement,
  type AnyConvention,
  installConvention,
  installedConventions,
  installPipeline,
  isConvention,
  mergeContributions,
  notFoundPreHandler,
  PHASES,
  pipelineRouteSteps,
  routeDescriptionOf,
  routeResponseHeadersOf,
} from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { app } from './helpers.js'

interface Seen {
  order: string[]
  contexts: RouteContext<unknown>[]
}

/** A convention with a step in every phase, each writing its name to `seen.order`. */
function everyPhase(seen: Seen, alone?: { [K in RoutePhase]?: AlonePlacement<K> }) {
  const mark = (name: string) => () => {
    seen.order.push(name)
    return undefined
  }
  return defineConvention({
    name: 'marks',
    plugin: '@test/marks',
    phases: [...PHASES],
    routeConfigKey: 'mark',
    options: (raw: { prefix?: string }) => ({ prefix: raw.prefix ?? '' }),
    routeConfig: (raw: unknown, where: string) => {
      if (typeof raw !== 'object' || raw === null) throw new TypeError(`${where}: not an object`)
      return raw as { skip?: boolean }
    },
    setup: (fastify: FastifyInstance, options: { prefix: string }, context: SetupContext) => {
      fastify.decorate('markPrefix', options.prefix)
      return { options, context }
    },
    app: () => ({
      request: mark('request'),
      notFoundHandler: mark('notFoundHandler'),
      notFoundSend: mark('notFoundSend'),
    }),
    route: (context) => {
      seen.contexts.push(context)
      if ((context.config as { skip?: boolean } | undefined)?.skip === true) return undefined
      return {
        guard: mark('guard'),
        beforeBody: mark('beforeBody'),
        beforeHandler: mark('beforeHandler'),
        serialize: mark('serialize'),
        send: mark('send'),
      }
    },
    contributes: (options) => ({ queryParameters: [`${options.prefix}q`] }),
    ...(alone === undefined ? {} : { alone }),
  })
}

test('defineConvention: a frozen value marked as declared, with a key per phase', async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const convention = everyPhase(seen)
  t.ok(isConvention(convention))
  t.notOk(isConvention({ name: 'x' }))
  t.notOk(isConvention(null))
  t.ok(Object.isFrozen(convention))
  t.same(Object.keys(convention.has).sort(), [...PHASES].sort())
  const base = {
    name: 'x',
    plugin: '@test/x',
    options: () => ({}),
    setup: () => ({}),
  }
  t.throws(
    () => defineConvention({ ...base, phases: ['send', 'sent' as Phase] }),
    /@test\/x: unknown phase "sent"/,
  )
  t.throws(
    () => defineConvention({ ...base, phases: ['send', 'send'] }),
    /@test\/x: a phase is listed twice/,
  )
})

test('conventionPlugin: alone, its steps run from hooks of their own, in the order of a request', async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const fastify = app()
  await fastify.register(conventionPlugin(everyPhase(seen)), { prefix: 'p-' })
  fastify.post('/things', { config: { mark: {} } }, async () => ({ ok: true }))
  fastify.get('/skipped', { config: { mark: { skip: true } } }, async () => 'skipped')
  fastify.get('/off', { config: { mark: false } }, async () => 'off')
  await fastify.ready()
  t.equal(
    (fastify as unknown as { markPrefix: string }).markPrefix,
    'p-',
    'setup ran on the instance',
  )
  t.ok(fastify.hasPlugin('@test/marks'), 'the plugin is named')

  await fastify.inject({ method: 'POST', url: '/things', payload: {} })
  t.same(seen.order, ['request', 'guard', 'beforeBody', 'beforeHandler', 'serialize', 'send'])

  seen.order.length = 0
  await fastify.inject('/skipped')
  t.same(seen.order, ['request'], 'a route the convention does nothing on gets no hook')

  seen.order.length = 0
  await fastify.inject('/nowhere')
  t.same(
    seen.order,
    ['request', 'notFoundHandler', 'notFoundSend'],
    'the answers of no route get its not-found steps',
  )

  const routes = seen.contexts.map((c) => c.name)
  t.same(routes, ['POST /things', 'GET /skipped', 'HEAD /skipped'], 'config false: not called')
  const post = seen.contexts[0] as RouteContext<unknown>
  t.same(post.methods, ['POST'])
  t.same(post.config, {})
  t.equal(post.route.url, '/things')
})

test('conventionPlugin: a route config the convention refuses fails registration, naming the route', async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const fastify = app()
  await fastify.register(conventionPlugin(everyPhase(seen)), {})
  t.throws(
    () => fastify.get('/x', { config: { mark: 'yes' } as never }, async () => 'x'),
    /@test\/marks \(config\.mark of GET \/x\): not an object/,
  )
})

test("conventionPlugin: `alone: 'first'` puts the hook before the route's own", async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const fastify = app()
  await fastify.register(conventionPlugin(everyPhase(seen, { send: 'first', guard: 'first' })), {})
  const own = (name: string) => async () => {
    seen.order.push(name)
  }
  fastify.get(
    '/x',
    {
      onRequest: own('own onRequest'),
      preHandler: own('own preHandler'),
      onSend: async (_request, _reply, payload) => {
        seen.order.push('own onSend')
        return payload
      },
    },
    async () => ({ x: 1 }),
  )
  await fastify.inject('/x')
  t.same(seen.order, [
    'request',
    'guard',
    'own onRequest',
    'beforeBody',
    'own preHandler',
    'beforeHandler',
    'serialize',
    'send',
    'own onSend',
  ])
})

test('conventionPlugin: conventions alone run in registration order, put first or last; a placement may be per route', async (t) => {
  const order: string[] = []
  const marker = (
    name: string,
    at: 'first' | 'last' | ((methods: readonly string[]) => 'first' | 'last'),
  ) =>
    defineConvention({
      name,
      plugin: `@test/${name}`,
      phases: ['send'],
      options: () => ({}),
      setup: () => ({}),
      route: () => ({
        send: () => {
          order.push(name)
          return undefined
        },
      }),
      alone: { send: at },
    })
  const headFirst = (methods: readonly string[]) => (methods.includes('HEAD') ? 'first' : 'last')
  const fastify = app()
  await fastify.register(conventionPlugin(marker('one', 'first')), {})
  await fastify.register(conventionPlugin(marker('two', headFirst)), {})
  await fastify.register(conventionPlugin(marker('three', headFirst)), {})
  fastify.get(
    '/x',
    {
      onSend: async (_request, _reply, payload) => {
        order.push('own')
        return payload
      },
    },
    async () => 'x',
  )
  fastify.get('/bare', async () => 'b')
  await fastify.inject('/x')
  t.same(order, ['one', 'own', 'two', 'three'], 'GET: first before the own hook, last after it')
  order.length = 0
  const head = await fastify.inject({ method: 'HEAD', url: '/x' })
  t.same(order, ['one', 'two', 'three', 'own'], 'HEAD: all first, in registration order')
  t.equal(head.headers['content-length'], '1', "before Fastify's HEAD hook, which sizes the body")
  order.length = 0
  await fastify.inject('/bare')
  t.same(order, ['one', 'two', 'three'], 'a route with no hook of its own')
})

test('conventionPlugin: `routeConfigKey: false` reads no route config', async (t) => {
  const contexts: RouteContext<unknown>[] = []
  const options = defineConvention({
    name: 'routeOptions',
    plugin: '@test/route-options',
    phases: ['send'],
    routeConfigKey: false,
    options: () => ({}),
    setup: () => ({}),
    route: (context) => {
      contexts.push(context)
      return undefined
    },
  })
  const fastify = app()
  await fastify.register(conventionPlugin(options), {})
  fastify.get('/x', { config: { routeOptions: false } as object }, async () => 'x')
  t.same(
    contexts.map((context) => [context.name, context.config]),
    [
      ['GET /x', undefined],
      ['HEAD /x', undefined],
    ],
    'called on every route, with no config',
  )
})

test('conventionPlugin: a step in a phase the convention does not declare fails, naming it', async (t) => {
  const wrong = defineConvention({
    name: 'wrong',
    plugin: '@test/wrong',
    phases: ['send'],
    options: () => ({}),
    setup: () => ({}),
    route: () => ({ guard: () => undefined }) as never,
  })
  const fastify = app()
  await fastify.register(conventionPlugin(wrong), {})
  t.throws(
    () => fastify.get('/x', async () => 'x'),
    /@test\/wrong: route GET \/x got a guard step, a phase the convention does not declare \(phases: send\)/,
  )
  const wrongApp = defineConvention({
    name: 'wrongApp',
    plugin: '@test/wrong-app',
    phases: ['send'],
    options: () => ({}),
    setup: () => ({}),
    app: () => ({ request: () => undefined }) as never,
  })
  await t.rejects(
    async () => app().register(conventionPlugin(wrongApp), {}).ready(),
    /@test\/wrong-app: an app step for request, a phase the convention does not declare/,
  )
})

test('conventionPlugin: registered twice on one scope chain fails with the fix', async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const plugin = conventionPlugin(everyPhase(seen))
  const fastify = app()
  await fastify.register(plugin, {})
  await t.rejects(
    async () => fastify.register(plugin, {}).ready(),
    /@test\/marks: registered twice/,
  )
})

test("conventionPlugin: `alone: { beforeBody: 'onRequest' }` runs it before the route's own onRequest hooks", async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const fastify = app()
  await fastify.register(conventionPlugin(everyPhase(seen, { beforeBody: 'onRequest' })), {})
  fastify.get(
    '/x',
    {
      onRequest: async () => {
        seen.order.push('own onRequest')
      },
    },
    async () => ({ x: 1 }),
  )
  await fastify.inject('/x')
  t.same(seen.order.slice(0, 4), ['request', 'beforeBody', 'own onRequest', 'guard'])
})

test("conventionPlugin: `scope: 'instance'` may be registered again in a child scope", async (t) => {
  const made: string[] = []
  const scoped = defineConvention({
    name: 'scoped',
    plugin: '@test/scoped',
    phases: ['send'],
    options: (raw: { label?: string }) => ({ label: raw.label ?? 'root' }),
    setup: (_fastify: FastifyInstance, options: { label: string }) => {
      made.push(options.label)
      return options
    },
    scope: 'instance',
  })
  const plugin = conventionPlugin(scoped)
  const fastify = app()
  await fastify.register(plugin, {})
  await fastify.register(async (child) => {
    await child.register(plugin, { label: 'child' })
  })
  await fastify.ready()
  t.same(made, ['root', 'child'])
  await t.rejects(
    async () => app().register(plugin, {}).register(plugin, {}).ready(),
    /@test\/scoped: registered twice/,
    'twice on one instance is refused still',
  )
})

test("conventionPlugin: alone, the setup's context knows no other convention", async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const convention = everyPhase(seen)
  let context: SetupContext | undefined
  const spy = defineConvention({
    ...convention,
    setup: (fastify: FastifyInstance, options: { prefix: string }, given: SetupContext) => {
      context = given
      return convention.setup(fastify, options, given)
    },
  })
  await app().register(conventionPlugin(spy), { prefix: 'x-' }).ready()
  const given = context as SetupContext
  t.equal(given.pipeline, false)
  t.same(given.contributions(), {
    queryParameters: ['x-q'],
    requestHeaders: [],
    responseHeaders: [],
  })
})

test('installConvention: under a pipeline, the steps are collected for the pipeline to order', async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const convention = everyPhase(seen)
  const fastify = app()
  const pipeline = installPipeline(fastify)
  const context: SetupContext = {
    pipeline: true,
    contributions: () => mergeContributions(installedConventions(pipeline)),
  }
  const installed = await installConvention(fastify, convention, { prefix: 'u-' }, context)
  t.equal(installed.convention, convention)
  t.same(installed.options, { prefix: 'u-' })
  t.same(installedConventions(pipeline), [installed])
  t.ok(pipeline.request.has(convention), 'its request step, keyed by the convention')
  t.ok(pipeline.notFound.has(convention))
  t.ok(fastify.hasPlugin('@test/marks'))
  t.equal((fastify as unknown as { markPrefix: string }).markPrefix, 'u-', 'set up on the instance')

  let steps: ReturnType<typeof pipelineRouteSteps> | undefined
  fastify.addHook('onRoute', function (route) {
    steps = pipelineRouteSteps(pipeline, this, route)
  })
  fastify.get('/x', async () => 'x')
  t.same([...(steps?.keys() ?? [])], ['guard', 'beforeBody', 'beforeHandler', 'serialize', 'send'])
  t.ok(steps?.get('send')?.has(convention))
  fastify.get('/y', { config: { mark: false } }, async () => 'y')
  t.equal(steps?.size, 0, 'config false: no steps')
  t.same(context.contributions().queryParameters, ['u-q'])
  await fastify.ready()
})

test('installConvention: a not-found handler step goes where the not-found handler takes it', async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const convention = everyPhase(seen)
  const fastify = app()
  const pipeline = installPipeline(fastify)
  const preHandler = notFoundPreHandler(fastify)
  t.ok(preHandler)
  const context: SetupContext = {
    pipeline: true,
    contributions: () => mergeContributions([]),
  }
  await installConvention(fastify, convention, {}, context)
  t.ok(pipeline.notFoundPreHandler?.has(convention))
})

test('installConvention: without a pipeline it says so', async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const context: SetupContext = {
    pipeline: true,
    contributions: () => mergeContributions([]),
  }
  await t.rejects(
    installConvention(app(), everyPhase(seen) as AnyConvention, {}, context),
    /@test\/marks: installConvention needs a pipeline/,
  )
})

test('mergeContributions: each name once, in order; nothing from a convention that gives none', async (t) => {
  const one = defineConvention({
    name: 'one',
    plugin: '@test/one',
    phases: [],
    options: () => ({}),
    setup: () => ({}),
    contributes: () => ({ requestHeaders: ['a', 'b'], responseHeaders: ['x'] }),
  })
  const two = defineConvention({
    name: 'two',
    plugin: '@test/two',
    phases: [],
    options: () => ({}),
    setup: () => ({}),
    contributes: () => ({ requestHeaders: ['b', 'c'] }),
  })
  const none = defineConvention({
    name: 'none',
    plugin: '@test/none',
    phases: [],
    options: () => ({}),
    setup: () => ({}),
  })
  t.same(
    mergeContributions([
      { convention: one, options: {} },
      { convention: none, options: {} },
      { convention: two, options: {} },
    ]),
    { queryParameters: [], requestHeaders: ['a', 'b', 'c'], responseHeaders: ['x'] },
  )
})

test('routeDescriptionOf: the convention describes a route by its validated config; false or none says nothing', async (t) => {
  const fastify = app()
  const described = defineConvention({
    name: 'described',
    plugin: '@test/described',
    phases: [],
    options: () => ({ suffix: '!' }),
    routeConfig: (raw: unknown, where: string) => ({ raw, where }),
    setup: (_fastify: FastifyInstance, options: { suffix: string }) => options,
    describe: (context, settings) =>
      context.config === undefined
        ? undefined
        : { responses: [[409, `${context.name} ${String(context.config.raw)}${settings.suffix}`]] },
  })
  const installed = { convention: described, options: {}, settings: { suffix: '!' } }
  const route = (config?: unknown) =>
    ({
      method: 'POST',
      url: '/books',
      routePath: '/books',
      path: '/books',
      prefix: '',
      handler: async () => null,
      ...(config === undefined ? {} : { config: { described: config } }),
    }) as RouteEntry
  t.same(routeDescriptionOf(installed, fastify, route('yes')), {
    responses: [[409, 'POST /books yes!']],
  })
  t.equal(routeDescriptionOf(installed, fastify, route()), undefined, 'describe said nothing')
  t.equal(routeDescriptionOf(installed, fastify, route(false)), undefined, 'config false')
  const silent = { ...installed, convention: { ...described, describe: undefined } }
  t.equal(routeDescriptionOf(silent, fastify, route('yes')), undefined, 'no describe')
})

test('routeResponseHeadersOf: what a convention says it sends on a route, else all it contributes; none where config is false', async (t) => {
  const fastify = app()
  const sending = defineConvention({
    name: 'sending',
    plugin: '@test/sending',
    phases: [],
    options: () => ({}),
    setup: () => ({ paged: '/pages' }),
    contributes: () => ({ responseHeaders: ['X-Page', 'X-Any'] }),
    routeResponseHeaders: (context, settings) =>
      context.route.url === settings.paged ? ['X-Page', 'X-Any'] : ['X-Any'],
  })
  const installed = { convention: sending, options: {}, settings: { paged: '/pages' } }
  const route = (url: string, config?: unknown) =>
    ({
      method: 'GET',
      url,
      routePath: url,
      path: url,
      prefix: '',
      handler: async () => null,
      ...(config === undefined ? {} : { config: { sending: config } }),
    }) as RouteEntry
  t.same(routeResponseHeadersOf(installed, fastify, route('/pages')), ['X-Page', 'X-Any'])
  t.same(routeResponseHeadersOf(installed, fastify, route('/books')), ['X-Any'])
  t.same(routeResponseHeadersOf(installed, fastify, route('/pages', false)), [], 'config false')
  const everywhere = { ...installed, convention: { ...sending, routeResponseHeaders: undefined } }
  t.same(routeResponseHeadersOf(everywhere, fastify, route('/books')), ['X-Page', 'X-Any'])
  const silent = { ...everywhere, convention: { ...everywhere.convention, contributes: undefined } }
  t.same(routeResponseHeadersOf(silent, fastify, route('/books')), [], 'contributes nothing')
})

test('a convention with no route steps, or a phase left undefined, adds no hook', async (t) => {
  const appOnly = defineConvention({
    name: 'appOnly',
    plugin: '@test/app-only',
    phases: ['request'],
    options: () => ({}),
    setup: () => ({}),
    app: () => ({ request: () => undefined }),
  })
  const sparse = defineConvention({
    name: 'sparse',
    plugin: '@test/sparse',
    phases: ['guard', 'send'],
    options: () => ({}),
    setup: () => ({}),
    route: () => ({ guard: undefined, send: () => undefined }),
  })
  const alone = app()
  await alone.register(conventionPlugin(appOnly), {})
  await alone.register(conventionPlugin(sparse), {})
  alone.get('/x', async () => 'x')
  await alone.ready()
  const hooks = alone.printRoutes({ includeHooks: true, commonPrefix: false })
  t.match(hooks, /\(onSend\) \["sparseAlone\(\)"\]/)
  t.notMatch(hooks, /sparseAlone\(\)"\][^\n]*\n[^\n]*\(onRequest\)/)

  const fastify = app()
  const pipeline = installPipeline(fastify)
  t.same(installedConventions(pipeline), [], 'none installed yet')
  const context: SetupContext = {
    pipeline: true,
    contributions: () => mergeContributions([]),
  }
  await installConvention(fastify, appOnly, {}, context)
  await installConvention(fastify, sparse, {}, context)
  let steps: ReturnType<typeof pipelineRouteSteps> | undefined
  fastify.addHook('onRoute', function (route) {
    steps = pipelineRouteSteps(pipeline, this, route)
  })
  fastify.get('/x', async () => 'x')
  t.same([...(steps?.keys() ?? [])], ['send'])
})

test('conventionPlugin: registered where a pipeline collects steps, it hands them over', async (t) => {
  const seen: Seen = { order: [], contexts: [] }
  const convention = everyPhase(seen)
  let context: SetupContext | undefined
  const spy = defineConvention({
    ...convention,
    setup: (fastify: FastifyInstance, options: { prefix: string }, given: SetupContext) => {
      context = given
      return convention.setup(fastify, options, given)
    },
  })
  const fastify = app()
  const pipeline = installPipeline(fastify)
  await fastify.register(conventionPlugin(spy), { prefix: 'in-' })
  await fastify.ready()
  t.ok(pipeline.request.has(spy), 'its request step is the pipeline’s')
  t.equal(installedConventions(pipeline)[0]?.convention, spy)
  const given = context as SetupContext
  t.equal(given.pipeline, true)
  t.same(given.contributions().queryParameters, ['in-q'])
  await fastify.inject('/nowhere')
  t.same(
    seen.order,
    ['notFoundHandler'],
    'its other steps are for the pipeline to plan; with no not-found handler taking it, its not-found step runs from a root hook',
  )
})

test('routeDescriptionOf over a pipeline: what each installed convention says of a route, none where it is off', async (t) => {
  const fastify = app()
  const pipeline = installPipeline(fastify)
  const context: SetupContext = {
    pipeline: true,
    contributions: () => mergeContributions([]),
  }
  const described = defineConvention({
    name: 'described',
    plugin: '@test/described',
    phases: [],
    options: () => ({ header: 'x-own' }),
    setup: (_fastify, options) => options,
    describe: ({ methods }, settings) =>
      methods.includes('POST') ? undefined : { requestHeaders: [[settings.header, 'own']] },
  })
  const silent = defineConvention({
    name: 'silent',
    plugin: '@test/silent',
    phases: [],
    options: () => ({}),
    setup: () => ({}),
  })
  await installConvention(fastify, described, {}, context)
  await installConvention(fastify, silent, {}, context)
  const seen: unknown[] = []
  fastify.addHook('onRoute', function (route) {
    seen.push(
      installedConventions(pipeline).flatMap(
        (installed) => routeDescriptionOf(installed, this, route) ?? [],
      ),
    )
  })
  fastify.get('/a', async () => 'a')
  fastify.get('/b', { config: { described: false } }, async () => 'b')
  fastify.post('/c', async () => 'c')
  const own = [{ requestHeaders: [['x-own', 'own']] }]
  t.same(seen, [own, own, [], [], []], 'GET /a and its HEAD; /b off; POST /c: nothing to say')
})

test('optionNaming: the umbrella and its option when the umbrella installed it, else the plugin', async (t) => {
  const convention = { name: 'cors', plugin: '@restwell/cors' }
  const context: SetupContext = {
    pipeline: true,
    contributions: () => mergeContributions([]),
  }
  const alone = optionNaming(convention, context)
  t.equal(alone.plugin, '@restwell/cors')
  t.equal(alone.option('origin'), 'origin')
  const umbrella = optionNaming(convention, { ...context, umbrella: 'restwell' })
  t.equal(umbrella.plugin, 'restwell')
  t.equal(umbrella.option('origin'), 'cors.origin')
})

test('conventionPlugin: a convention with no phase may come after the pipeline made its plans; one with steps may not', async (t) => {
  const routesOnly = defineConvention({
    name: 'routesOnly',
    plugin: '@test/routes-only',
    phases: [],
    options: (raw: { path?: string }) => ({ path: raw.path ?? '/status' }),
    setup: (fastify: FastifyInstance, options: { path: string }) => {
      fastify.get(options.path, async () => 'ok')
      return options
    },
  })
  const fastify = app()
  installPipeline(fastify).sealed = true
  await fastify.register(conventionPlugin(routesOnly), {})
  t.equal((await fastify.inject('/status')).body, 'ok', 'its setup ran')

  const seen: Seen = { order: [], contexts: [] }
  const late = app()
  installPipeline(late).sealed = true
  await t.rejects(
    async () => late.register(conventionPlugin(everyPhase(seen)), {}).ready(),
    /@test\/marks: registered after restwell, which has made every route's plan/,
  )
})
