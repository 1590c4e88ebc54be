import fastifyUnderPressure from '@fastify/under-pressure'
import { installPipeline } from '@restwell/core/internal'
import { restwellErrors } from '@restwell/errors'
import Fastify from 'fastify'
import { test } from 'tap'
import { until } from '../../../test/helpers/patience.js'
import { overload, resolveOverloadOptions, restwellOverload } from '../src/index.js'
import { overloadStep, underPressureOptions } from '../src/pressure.js'

test('an unhealthy service answers 503 + Retry-After in the error form', async (t) => {
  let healthy = true
  const app = Fastify()
  await app.register(restwellErrors)
  await app.register(restwellOverload, {
    healthCheck: async () => healthy,
    healthCheckInterval: 20,
    retryAfter: 7,
  })
  app.get('/books', async () => [])
  await app.ready()
  t.teardown(() => app.close())
  t.equal((await app.inject('/books')).statusCode, 200)
  healthy = false
  // The next health check (every 20 ms) sees it: wait for that, not for a number of ms.
  let res = await app.inject('/books')
  await until(async () => {
    res = await app.inject('/books')
    return res.statusCode !== 200
  }, 'the failed health check')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '7')
  t.equal(res.json().error.code, 'OVERLOADED')
  t.match(res.json().error.message, /overloaded/)
  healthy = true
  await until(async () => (await app.inject('/books')).statusCode === 200, 'recovery')
  t.pass('recovers')
})

test("thresholds are passed on; under-pressure's decorators stay in its scope", async (t) => {
  const app = Fastify()
  await app.register(restwellOverload, {
    maxEventLoopUtilization: 0.99,
    maxHeapUsedBytes: 1e12,
    maxRssBytes: 1e12,
    sampleInterval: 50,
    healthCheck: () => true,
  })
  await app.ready()
  t.equal((await app.inject('/nothing')).statusCode, 404, 'answers, not overloaded')
  t.equal(app.hasDecorator('memoryUsage'), false, "under-pressure's decorators stay in its scope")
  t.notOk(app.hasPlugin('@fastify/under-pressure'))
  await app.close()
})

test('@fastify/under-pressure beside it fails, registered before or after', async (t) => {
  const before = Fastify()
  t.teardown(() => before.close())
  await before.register(fastifyUnderPressure)
  await t.rejects(async () => before.register(restwellOverload), {
    name: 'RegistrationError',
    code: 'RESTWELL_REGISTRATION',
    message:
      '@restwell/overload: @fastify/under-pressure is registered before it: both would answer 503 under load. Remove @fastify/under-pressure: @restwell/overload configures it.',
  })
  const after = Fastify()
  t.teardown(() => after.close())
  await after.register(restwellOverload)
  await after.register(fastifyUnderPressure)
  await t.rejects(async () => after.ready(), {
    message: /^@restwell\/overload: @fastify\/under-pressure is registered after it/,
  })
  const bad = Fastify()
  await t.rejects(async () => bad.register(restwellOverload, { retryAfter: 0 }), {
    name: 'OptionsError',
    message: /^@restwell\/overload: option "retryAfter"/,
  })
})

test('under a pipeline its step is handed over, under the umbrella option underPressure', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const pipeline = installPipeline(app)
  await app.register(restwellOverload)
  t.ok(pipeline.request.has(overload))
  t.equal(overload.name, 'underPressure')
  t.same(overload.contributes?.(resolveOverloadOptions({})), { responseHeaders: ['Retry-After'] })
  await app.ready()
})

test('a start-up stall of the event loop is not overload; a later one is', async (t) => {
  const clock = { readyAt: Date.now() }
  const noMemory = () => {
    throw new Error('no heap or RSS limit: memory is not read')
  }
  const options = underPressureOptions(
    resolveOverloadOptions({ sampleInterval: 1000, retryAfter: 3 }),
    clock,
    noMemory,
  )
  const handler = options.pressureHandler as unknown as (
    request: unknown,
    reply: { header: (name: string, value: unknown) => void },
    type: string,
  ) => unknown
  const headers: Record<string, unknown> = {}
  const reply = {
    header: (name: string, value: unknown) => {
      headers[name] = value
    },
  }
  t.equal(
    handler({}, reply, 'eventLoopDelay'),
    undefined,
    'within two samples of ready: let through',
  )
  t.equal(handler({}, reply, 'eventLoopUtilization'), undefined)
  t.throws(
    () => handler({}, reply, 'heapUsedBytes'),
    { code: 'OVERLOADED' },
    'memory is never excused',
  )
  clock.readyAt = Date.now() - 2001
  t.throws(() => handler({}, reply, 'eventLoopDelay'), {
    code: 'OVERLOADED',
    message: /eventLoopDelay/,
  })
  t.equal(headers['retry-after'], 3)
  t.ok(underPressureOptions(resolveOverloadOptions({}), { readyAt: 0 }, noMemory).pressureHandler)
})

test('during the start-up grace, heap, RSS and a failing health check still answer 503', async (t) => {
  type Handler = (request: unknown, reply: unknown, type: string) => unknown
  const usage = { heapUsed: 50, rssBytes: 50, eventLoopDelay: 0, eventLoopUtilized: 0 }
  const probe = () => ({ memoryUsage: () => usage })
  const request = {}
  const reply = { header: () => reply }
  let answer: boolean | Error = true
  const options = underPressureOptions(
    resolveOverloadOptions({
      sampleInterval: 1000,
      maxHeapUsedBytes: 100,
      maxRssBytes: 100,
      healthCheck: () => {
        if (answer instanceof Error) throw answer
        return answer
      },
    }),
    { readyAt: Date.now() },
    probe,
  )
  const handler = options.pressureHandler as unknown as Handler
  const healthCheck = options.healthCheck as unknown as () => Promise<boolean>
  const overloaded = (message: RegExp) => ({ statusCode: 503, code: 'OVERLOADED', message })

  t.equal(await healthCheck(), true)
  t.equal(handler(request, reply, 'eventLoopDelay'), undefined, 'all well: the stall is excused')
  usage.heapUsed = 101
  t.throws(() => handler(request, reply, 'eventLoopDelay'), overloaded(/heapUsedBytes/))
  usage.heapUsed = 50
  usage.rssBytes = 101
  t.throws(() => handler(request, reply, 'eventLoopDelay'), overloaded(/rssBytes/))
  usage.rssBytes = 50

  answer = false
  t.equal(await healthCheck(), false)
  t.throws(() => handler(request, reply, 'eventLoopDelay'), overloaded(/healthCheck/))
  t.throws(() => handler(request, reply, 'eventLoopUtilization'), overloaded(/healthCheck/))
  answer = true
  await healthCheck()
  t.equal(handler(request, reply, 'eventLoopDelay'), undefined, 'healthy again')
  answer = new Error('database down')
  await t.rejects(healthCheck(), /database down/, 'under-pressure sees the throw and logs it')
  t.throws(() => handler(request, reply, 'eventLoopDelay'), overloaded(/healthCheck/))

  // One limit at a time; the other stays off (0, as in under-pressure).
  usage.heapUsed = 101
  usage.rssBytes = 101
  const heapOnly = underPressureOptions(
    resolveOverloadOptions({ maxHeapUsedBytes: 100 }),
    { readyAt: Date.now() },
    probe,
  )
  t.throws(
    () => (heapOnly.pressureHandler as unknown as Handler)(request, reply, 'eventLoopDelay'),
    overloaded(/heapUsedBytes/),
  )
  const rssOnly = underPressureOptions(
    resolveOverloadOptions({ maxRssBytes: 100 }),
    { readyAt: Date.now() },
    probe,
  )
  t.throws(
    () => (rssOnly.pressureHandler as unknown as Handler)(request, reply, 'eventLoopDelay'),
    overloaded(/rssBytes/),
  )
})

test('the overload step asks under-pressure once, and names the measure over its limit', async (t) => {
  const usage = { eventLoopDelay: 0, heapUsed: 0, rssBytes: 0, eventLoopUtilized: 0 }
  let pressed = false
  const probe = { isUnderPressure: () => pressed, memoryUsage: () => usage }
  const settings = resolveOverloadOptions({
    maxEventLoopDelay: 100,
    maxHeapUsedBytes: 100,
    maxRssBytes: 100,
    maxEventLoopUtilization: 0.5,
  })
  const handled: string[] = []
  const options = {
    ...underPressureOptions(settings, { readyAt: 0 }, () => probe),
    pressureHandler: (_request: unknown, _reply: unknown, type: string) => {
      handled.push(type)
    },
  }
  const step = overloadStep(settings, options as never, () => probe)
  const run = () => step({} as never, {} as never)
  t.equal(run(), undefined, 'not under pressure: nothing else is asked')
  pressed = true
  run()
  usage.eventLoopUtilized = 0.9
  run()
  usage.rssBytes = 101
  run()
  usage.heapUsed = 101
  run()
  usage.eventLoopDelay = 101
  run()
  t.same(handled, [
    'healthCheck',
    'eventLoopUtilization',
    'rssBytes',
    'heapUsedBytes',
    'eventLoopDelay',
  ])
  handled.length = 0
  const defaults = overloadStep(resolveOverloadOptions({}), options as never, () => probe)
  defaults({} as never, {} as never)
  t.same(handled, ['healthCheck'], 'defaults: a 1 s loop delay, no memory or utilization limit')
})
