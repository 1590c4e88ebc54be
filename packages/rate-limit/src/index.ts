/** @restwell/rate-limit: 429 + Retry-After + X-RateLimit-* for a Fastify API, per client and route. */
import { restwellRateLimit } from './plugin.js'

// `config.rateLimit` is `@fastify/rate-limit`'s: its type, re-exported by name, carries its
// Fastify augmentation to users of the ESM and the CommonJS declarations alike.
export type { RateLimitOptions as RouteRateLimitOptions } from '@fastify/rate-limit'
export { rateLimit } from './convention.js'
export { DEFAULT_POLICY, type HeaderFields, QUOTA_EXCEEDED } from './fields.js'
export { clientKey, MEMORY_CLIENTS } from './memory.js'
export {
  DEFAULT_MAX,
  DEFAULT_NAMESPACE,
  DEFAULT_STORE_TIMEOUT,
  DEFAULT_TIME_WINDOW,
  type RateLimitOptions,
  RateLimitOptionsSchema,
  type ResolvedRateLimitOptions,
  resolveRateLimitOptions,
} from './options.js'
export { restwellRateLimit }
export default restwellRateLimit

declare module '@fastify/rate-limit' {
  interface RateLimitOptions {
    /** The route's policy name in the IETF fields (`headers: 'ietf'`). [its method and URL] */
    policy?: string
  }
}
