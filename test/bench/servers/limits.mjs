// The rate limit every limiting stack gets in the bench: high enough that the load generator
// (one client IP) is never throttled; the limiter still counts every request.
export const RATE_LIMIT_MAX = 1_000_000_000
