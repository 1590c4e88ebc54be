import Fastify from 'fastify'
import { test } from 'tap'
import restwell from '../src/index.js'
import { underPressureOptions } from '../src/overload.js'

test('an unhealthy service answers 503 + Retry-After in the error form', async (t) => {
  let healthy = true
  const app = Fastify()
  await app.register(restwell, {
    underPressure: { healthCheck: async () => healthy, healthCheckInterval: 20, retryAfter: 7 },
  })
  app.get('/books', async () => [])
  await app.ready()
  t.teardown(() => app.close())
  t.equal((await app.inject('/books')).statusCode, 200)
  healthy = false
  await new Promise((resolve) => setTimeout(resolve, 80))
  const res = await app.inject('/books')
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '7')
  t.equal(res.json().error.code, 'OVERLOADED')
  t.match(res.json().error.message, /overloaded/)
  healthy = true
  await new Promise((resolve) => setTimeout(resolve, 80))
  t.equal((await app.inject('/books')).statusCode, 200, 'recovers')
})

test('thresholds are passed on; underPressure: false registers nothing', async (t) => {
  const app = Fastify()
  await app.register(restwell, {
    underPressure: {
      maxEventLoopUtilization: 0.99,
      maxHeapUsedBytes: 1e12,
      maxRssBytes: 1e12,
      sampleInterval: 50,
      healthCheck: () => true,
    },
  })
  await app.ready()
  t.equal(typeof app.memoryUsage, 'function')
  await app.close()
  const off = Fastify()
  await off.register(restwell, { underPressure: false })
  t.equal(off.hasDecorator('memoryUsage'), false)
})

test('a start-up stall of the event loop is not overload; a later one is', async (t) => {
  const clock = { readyAt: Date.now() }
  const options = underPressureOptions({ sampleInterval: 1000, retryAfter: 3 }, clock)
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
  t.ok(underPressureOptions({}).pressureHandler, 'a clock is optional')
})
