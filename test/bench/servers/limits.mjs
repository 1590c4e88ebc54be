// Settings the bench's servers and its runner share.

/**
 * The rate limit every limiting stack gets in the bench: high enough that the load generator
 * (one client IP) is never throttled; the limiter still counts every request.
 */
export const RATE_LIMIT_MAX = 1_000_000_000

/**
 * The conventions a route can keep alone (`only-<c>` variants) -> the key of `OPT_OUT` that
 * switches it, or `compress`, the route option.
 */
export const ONLY = {
  cors: 'cors',
  'rate-limit': 'rateLimit',
  conditional: 'conditional',
  negotiation: 'negotiation',
  versioning: 'versioning',
  'cache-control': 'cache',
  compress: 'compress',
  pagination: 'pagination',
}
