/** Options of `@restwell/overload` and their defaults. */
import { type Static, Type } from '@sinclair/typebox'

export const OverloadOptionsSchema = Type.Object(
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
 * @param maxEventLoopDelay Event-loop delay (ms) above which requests get 503; 0: off. [1000]
 * @param maxEventLoopUtilization Event-loop utilization (0-1) above which requests get 503. [off]
 * @param maxHeapUsedBytes Heap used above which requests get 503; 0: off. [off]
 * @param maxRssBytes RSS above which requests get 503; 0: off. [off]
 * @param retryAfter `Retry-After` seconds on the 503. [10]
 * @param sampleInterval How often the process is sampled (ms). [1000]
 * @param healthCheck `() => boolean | Promise<boolean>`, e.g. a database ping; false means 503. [none]
 * @param healthCheckInterval How often `healthCheck` runs (ms). [5000]
 */
export type OverloadOptions = Static<typeof OverloadOptionsSchema>

/** The options with their defaults applied (0: a limit that is off, as in under-pressure). */
export interface ResolvedOverloadOptions {
  readonly maxEventLoopDelay: number
  readonly maxEventLoopUtilization: number | undefined
  readonly maxHeapUsedBytes: number
  readonly maxRssBytes: number
  readonly retryAfter: number
  readonly sampleInterval: number
  readonly healthCheck: (() => Promise<boolean> | boolean) | undefined
  readonly healthCheckInterval: number
}

export function resolveOverloadOptions(options: OverloadOptions): ResolvedOverloadOptions {
  return {
    maxEventLoopDelay: options.maxEventLoopDelay ?? 1000,
    maxEventLoopUtilization: options.maxEventLoopUtilization,
    maxHeapUsedBytes: options.maxHeapUsedBytes ?? 0,
    maxRssBytes: options.maxRssBytes ?? 0,
    retryAfter: options.retryAfter ?? 10,
    sampleInterval: options.sampleInterval ?? 1000,
    healthCheck: options.healthCheck,
    healthCheckInterval: options.healthCheckInterval ?? 5000,
  }
}
