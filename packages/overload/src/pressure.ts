/**
 * `@fastify/under-pressure` configured: its options, with a pressure handler that answers 503 +
 * `Retry-After` in restwell's error form, and the step that asks it once per request.
 */
import type { FastifyUnderPressureOptions } from '@fastify/under-pressure'
import type { RequestStep } from '@restwell/core'
import { ErrorCode, httpErrors } from '@restwell/errors'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ResolvedOverloadOptions } from './options.js'

/** Event-loop measures: the first samples after start-up include the start-up itself. */
const LOOP_MEASURES: ReadonlySet<string> = new Set(['eventLoopDelay', 'eventLoopUtilization'])

/** When the app became ready; event-loop pressure is ignored for two samples after it. */
export interface PressureClock {
  readyAt: number
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

/** Answers 503 + `Retry-After` for the measure `type` over its limit. */
function overloaded(reply: FastifyReply, retryAfter: number, type: string): never {
  reply.header('retry-after', retryAfter)
  throw httpErrors.serviceUnavailable(`Server overloaded (${type}); retry later`, {
    code: ErrorCode.OVERLOADED,
    expose: true,
    headers: { 'retry-after': retryAfter },
  })
}

/**
 * The options' pressure handler: 503 for the measure over its limit, but an event-loop stall in
 * the start-up grace (two samples after ready), where the limits under-pressure did not reach
 * (it stops at the first measure over its limit) are checked on its own samples.
 */
function pressureHandler(
  options: ResolvedOverloadOptions,
  clock: PressureClock,
  probe: () => Pick<PressureProbe, 'memoryUsage'>,
  healthy: () => boolean,
): (request: FastifyRequest, reply: FastifyReply, type: string) => void {
  const { retryAfter, sampleInterval, maxHeapUsedBytes: maxHeap, maxRssBytes: maxRss } = options
  return (_request, reply, type) => {
    // Compiling schemas and warming caches stalls the loop once; that is not overload.
    if (LOOP_MEASURES.has(type) && Date.now() - clock.readyAt < 2 * sampleInterval) {
      if (maxHeap > 0 || maxRss > 0) {
        const usage = probe().memoryUsage()
        if (maxHeap > 0 && usage.heapUsed > maxHeap) overloaded(reply, retryAfter, 'heapUsedBytes')
        if (maxRss > 0 && usage.rssBytes > maxRss) overloaded(reply, retryAfter, 'rssBytes')
      }
      if (!healthy()) overloaded(reply, retryAfter, 'healthCheck')
      return
    }
    overloaded(reply, retryAfter, type)
  }
}

/**
 * `@fastify/under-pressure`'s options. `probe` gives the instance it samples on, read in the
 * start-up grace (the heap and RSS limits still apply then).
 */
export function underPressureOptions(
  options: ResolvedOverloadOptions,
  clock: PressureClock,
  probe: () => Pick<PressureProbe, 'memoryUsage'>,
): FastifyUnderPressureOptions {
  const check = options.healthCheck
  // The last health-check answer (under-pressure runs it once before the first request).
  let healthy = true
  return {
    maxEventLoopDelay: options.maxEventLoopDelay,
    ...(options.maxEventLoopUtilization === undefined
      ? {}
      : { maxEventLoopUtilization: options.maxEventLoopUtilization }),
    maxHeapUsedBytes: options.maxHeapUsedBytes,
    maxRssBytes: options.maxRssBytes,
    retryAfter: options.retryAfter,
    sampleInterval: options.sampleInterval,
    ...(check === undefined
      ? {}
      : {
          healthCheck: async () => {
            healthy = false // a throwing check is a failing one (under-pressure logs it)
            healthy = (await check()) === true
            return healthy
          },
          healthCheckInterval: options.healthCheckInterval,
        }),
    exposeStatusRoute: false,
    pressureHandler: pressureHandler(options, clock, probe, () => healthy),
  }
}

/**
 * The overload step: `@fastify/under-pressure` samples the process (in a scope of its own, so
 * its hook, which reads the route's config on every request, runs nowhere), and this step asks
 * it once per request. Under pressure, the measure over its limit goes to the options'
 * `pressureHandler`, as under-pressure's own hook would hand it.
 */
export function overloadStep(
  options: ResolvedOverloadOptions,
  pressure: FastifyUnderPressureOptions,
  probe: () => PressureProbe,
): RequestStep {
  const { maxEventLoopDelay: maxDelay, maxHeapUsedBytes: maxHeap, maxRssBytes: maxRss } = options
  const maxUtilization = options.maxEventLoopUtilization
  const handler = pressure.pressureHandler as unknown as (
    request: FastifyRequest,
    reply: FastifyReply,
    type: string,
  ) => void
  return function restwellOverload(request, reply) {
    const sampled = probe()
    if (!sampled.isUnderPressure()) return undefined
    const usage = sampled.memoryUsage()
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
