/** What idempotency adds to a route's OpenAPI description. */
import type { RouteDescription } from '@restwell/core'
import type { RouteSettings } from './steps.js'

function duration(ms: number): string {
  const seconds = ms / 1000
  if (seconds % 3600 === 0) return `${seconds / 3600} h`
  if (seconds % 60 === 0) return `${seconds / 60} min`
  return `${seconds} s`
}

/** The header (required or not), the 400/409/422 (and 503 for a shared store), the expiry. */
export function describeRoute(route: RouteSettings): RouteDescription {
  const { options } = route.settings
  const expiry = duration(options.expiryMs)
  const shared = 'redis' in options.store
  return {
    requestHeaders: [
      [
        'Idempotency-Key',
        `${route.required ? 'Required. ' : ''}A key the client makes (a UUID), up to ${options.maxKeyLength} characters, sent as a structured field String in double quotes. A retry with the same key and the same request gets the first answer again, without running the operation twice, for ${expiry} after it completed.`,
      ],
    ],
    responses: [
      [
        400,
        route.required
          ? 'The Idempotency-Key header is missing or malformed'
          : 'The Idempotency-Key header is malformed',
      ],
      [
        409,
        'A request with this Idempotency-Key is still being processed: retry after Retry-After',
      ],
      [422, 'This Idempotency-Key was used with another request'],
      ...(shared
        ? ([[503, 'The idempotency store is unavailable: retry after Retry-After']] as const)
        : []),
    ],
    responseHeaders: [['Idempotent-Replayed', '`true` on an answer replayed for a retried key']],
  }
}
