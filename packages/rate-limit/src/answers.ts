/** The refusals of a rate limit: 429 over the limit, 503 when its store fails. */
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'
import { QUOTA_EXCEEDED } from './fields.js'

/** Seconds a client is told to wait when the rate-limit store is unavailable. */
export const STORE_DOWN_RETRY_AFTER = 5

/**
 * The 429, from both limiters. With the IETF fields, the problem form's type is the draft's
 * `quota-exceeded`, naming the policy in `violated-policies` (§5.1).
 */
export function rateLimited(max: number, retryIn: string, policy: string | undefined): HttpError {
  return httpErrors.tooManyRequests(
    `Rate limit exceeded: ${max} requests per window; retry in ${retryIn}`,
    policy === undefined
      ? { code: ErrorCode.RATE_LIMITED }
      : {
          code: ErrorCode.RATE_LIMITED,
          type: QUOTA_EXCEEDED,
          members: { 'violated-policies': [policy] },
        },
  )
}

/** The 503 of a store that failed or did not answer in time. */
export function storeUnavailable(): HttpError {
  return httpErrors.serviceUnavailable('Rate limiting is unavailable', {
    code: ErrorCode.OVERLOADED,
    headers: { 'retry-after': STORE_DOWN_RETRY_AFTER },
  })
}
