/** The refusals of a rate limit: 429 over the limit, 503 when its store fails. */
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'

/** Seconds a client is told to wait when the rate-limit store is unavailable. */
export const STORE_DOWN_RETRY_AFTER = 5

/** The 429, from both limiters. */
export function rateLimited(max: number, retryIn: string): HttpError {
  return httpErrors.tooManyRequests(
    `Rate limit exceeded: ${max} requests per window; retry in ${retryIn}`,
    { code: ErrorCode.RATE_LIMITED },
  )
}

/** The 503 of a store that failed or did not answer in time. */
export function storeUnavailable(): HttpError {
  return httpErrors.serviceUnavailable('Rate limiting is unavailable', {
    code: ErrorCode.OVERLOADED,
    headers: { 'retry-after': STORE_DOWN_RETRY_AFTER },
  })
}
