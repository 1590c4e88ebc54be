/** Overload through `@fastify/under-pressure`: 503 + Retry-After in restwell's error form. */
import { type Static, Type } from '@sinclair/typebox'
import { ErrorCode, httpErrors } from '@restwell/errors'
import type { FastifyUnderPressureOptions as UnderPressureOptions } from '@fastify/under-pressure'
import type { RequestStep } from '@restwell/core'
import type { FastifyReply, FastifyRequest } from 'fastify'

export const UnderPressureSettingsSchema = Type.Object(
  {
    maxEventLoopDelay: Type.Optional(Type.Integer({ minimum: 0 })),
    maxEventLoopUtilization: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    maxHeapUsedBytes: Type.Optional(Type.Integer({ minimum: 0 })),
    maxRssBytes: Type.Optional(Type.Integer({ minimum: 0 })),
    retryAfter: Type.Optional(Type.Integer({ minimum: 1 })),
    sampleInterval: Type.Optional(Type.Integer({ minimum: 1 })),
    healthCheck: Type.Optional(Type.Unsafe<() => Promise<boolean> | boolean>(Type.Any())),
    healthCheckInterval: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
)

/**
 * @param maxEventLoopDelay Event-loop delay (ms) above which requests get 503. [1000]
 * @param maxEventLoopUtilization Event-loop utilization (0-1) above which requests get 503. [off]
 * @param maxHeapUsedBytes Heap used above which requests get 503. [off]
 * @param maxRssBytes RSS above which requests get 503. [off]
 * @param retryAfter `Retry-After` seconds on the 503. [10]
 * @param sampleInterval How often the process is sampled (ms). [1000]
 * @param healthCheck `() => boolean | Promise<boolean>`, e.g. a database ping; false means 503. [none]
 * @param healthCheckInterval How often `healthCheck` runs (ms). [5000]
 */
export type UnderPressureSettings = Static<typeof UnderPressureSettingsSchema>

/** Event-loop measures: the first samples after start-up include the start-up itself. */
const LOOP_MEASURES: ReadonlySet<string> = new Set(['eventLoopDelay', 'eventLoopUtilization'])

/** When the app became ready; event-loop pressure is ignored for two samples after it. */
export interface PressureClock {
  readyAt: number
}

/**
 * `@fastify/under-pressure`'s options for `settings`. `probe` gives the instance it samples on,
 * read in the start-up grace (the heap and RSS limits still apply then).
 */
export function underPressureOptions(
  settings: UnderPressureSettings,
  clock: PressureClock,
  probe: () => Pick<PressureProbe, 'memoryUsage'>,
): UnderPressureOptions {
  const retryAfter = settings.retryAfter ?? 10
  const sampleInterval = settings.sampleInterval ?? 1000
  const check = settings.healthCheck
  // under-pressure treats 0 as "off", as here.
  const maxHeap = settings.maxHeapUsedBytes ?? 0
  const maxRss = settings.maxRssBytes ?? 0
  // The last health-check answer (under-pressure runs it once before the first request).
  let healthy = true
  const overloaded = (reply: FastifyReply, type: string): never => {
    reply.header('retry-after', retryAfter)
    throw httpErrors.serviceUnavailable(`Server overloaded (${type}); retry later`, {
      code: ErrorCode.OVERLOADED,
      expose: true,
      headers: { 'retry-after': retryAfter },
    })
  }
  return {
    maxEventLoopDelay: settings.maxEventLoopDelay ?? 1000,
    ...(settings.maxEventLoopUtilization === undefined
      ? {}
      : { maxEventLoopUtilization: settings.maxEventLoopUtilization }),
    ...(settings.maxHeapUsedBytes === undefined
      ? {}
      : { maxHeapUsedBytes: settings.maxHeapUsedBytes }),
    ...(settings.maxRssBytes === undefined ? {} : { maxRssBytes: settings.maxRssBytes }),
    retryAfter,
    sampleInterval,
    ...(check === undefined
      ? {}
      : {
          healthCheck: async () => {
            healthy = false // a throwing check is a failing one (under-pressure logs it)
            healthy = (await check()) === true
            return healthy
          },
          healthCheckInterval: settings.healthCheckInterval ?? 5000,
        }),
    exposeStatusRoute: false,
    pressureHandler: (_request, reply, type) => {
      // Compiling schemas and warming caches stalls the loop once; that is not overload.
      if (LOOP_MEASURES.has(type) && Date.now() - clock.readyAt < 2 * sampleInterval) {
        // under-pressure stops at the first measure over its limit: the ones after the
        // event loop (heap, RSS, health check) are checked here, on its own samples.
        if (maxHeap > 0 || maxRss > 0) {
          const usage = probe().memoryUsage()
          if (maxHeap > 0 && usage.heapUsed > maxHeap) overloaded(reply, 'heapUsedBytes')
          if (maxRss > 0 && usage.rssBytes > maxRss) overloaded(reply, 'rssBytes')
        }
        if (!healthy) overloaded(reply, 'healthCheck')
        return
      }
      overloaded(reply, type)
    },
  }
}

/** What `@fastify/under-pressure` decorates its instance with. */
export interface PressureProbe {
  isUnderPressure(): boolean
  memoryUsage(): {
    eventLoopDelay: number
    heapUsed: number
    rssBytes: number
    eventLoopUtilized: number
  }
}

/**
 * The overload step: `@fastify/under-pressure` samples the process (in a scope of its own, so
 * its hook, which reads the route's config on every request, runs nowhere), and this step asks
 * it once per request. Under pressure, the measure over its limit goes to the options'
 * `pressureHandler`, as under-pressure's own hook would hand it.
 */
export function overloadStep(
  settings: UnderPressureSettings,
  options: UnderPressureOptions,
  probe: () => PressureProbe,
): RequestStep {
  const maxDelay = settings.maxEventLoopDelay ?? 1000
  const maxHeap = settings.maxHeapUsedBytes ?? 0
  const maxRss = settings.maxRssBytes ?? 0
  const maxUtilization = settings.maxEventLoopUtilization
  const handler = options.pressureHandler as unknown as (
    request: FastifyRequest,
    reply: FastifyReply,
    type: string,
  ) => void
  return function restwellOverload(request, reply) {
    const pressure = probe()
    if (!pressure.isUnderPressure()) return undefined
    const usage = pressure.memoryUsage()
    let type = 'healthCheck'
    if (maxDelay > 0 && usage.eventLoopDelay > maxDelay) type = 'eventLoopDelay'
    else if (maxHeap > 0 && usage.heapUsed > maxHeap) type = 'heapUsedBytes'
    else if (maxRss > 0 && usage.rssBytes > maxRss) type = 'rssBytes'
    else if (maxUtilization !== undefined && usage.eventLoopUtilized > maxUtilization)
      type = 'eventLoopUtilization'
    handler(request, reply, type)
    return undefined
  }
}
