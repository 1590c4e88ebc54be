/** Overload through `@fastify/under-pressure`: 503 + Retry-After in restwell's error form. */
import { type Static, Type } from '@sinclair/typebox'
import { ErrorCode, httpErrors } from '@restwell/errors'
import type { FastifyUnderPressureOptions as UnderPressureOptions } from '@fastify/under-pressure'

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

export function underPressureOptions(settings: UnderPressureSettings): UnderPressureOptions {
  const retryAfter = settings.retryAfter ?? 10
  const check = settings.healthCheck
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
    sampleInterval: settings.sampleInterval ?? 1000,
    ...(check === undefined
      ? {}
      : {
          healthCheck: async () => (await check()) === true,
          healthCheckInterval: settings.healthCheckInterval ?? 5000,
        }),
    exposeStatusRoute: false,
    pressureHandler: (_request, reply, type) => {
      reply.header('retry-after', retryAfter)
      throw httpErrors.serviceUnavailable(`Server overloaded (${type}); retry later`, {
        code: ErrorCode.OVERLOADED,
        expose: true,
        headers: { 'retry-after': retryAfter },
      })
    },
  }
}
