/**
 * Overload protection under the umbrella: its `underPressure` option reaches @restwell/overload,
 * whose step the pipeline runs; `false` registers nothing. The protection itself is tested in
 * packages/overload.
 */
import { pipelineOf } from '@restwell/core/internal'
import { overload } from '@restwell/overload'
import Fastify from 'fastify'
import { test } from 'tap'
import { until } from '../../../test/helpers/patience.js'
import restwell from '../src/index.js'

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
  t.equal((await app.inject('/nothing')).statusCode, 404, 'answers, not overloaded')
  t.equal(app.hasDecorator('memoryUsage'), false, "under-pressure's decorators stay in its scope")
  t.ok(pipelineOf(app)?.request.has(overload))
  t.ok(app.hasPlugin('@restwell/overload'))
  await app.close()
  const off = Fastify()
  await off.register(restwell, { underPressure: false })
  t.notOk(pipelineOf(off)?.request.has(overload))
  t.notOk(off.printPlugins().includes('@fastify/under-pressure'))
  t.notOk(off.hasPlugin('@restwell/overload'))
})
