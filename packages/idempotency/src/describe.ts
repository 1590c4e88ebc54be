/** What idempotency adds to a route's OpenAPI description. */
import type { RouteDescription } from '@restwell/core'
import type { RouteSettings } from './steps.js'

function duration(ms: number): string {
  const seconds = ms / 1000
  if (seconds % 3600 === 0) return `${seconds / 3600} h`
  if (seconds % 60 === 0) return `${seconds / 60} min`
  return `${seconds} s`
}

type Header = readonly [name: string, description: string, type?: 'integer' | 'string']

/**
 * The header (required or not: the document says so, the plugin answers a missing one), the
 * 400/409/422 (and 503 for a shared store) with their `Retry-After` and `Link`, the expiry.
 */
export function describeRoute(route: RouteSettings): RouteDescription {
  const { options } = route.settings
  const expiry = duration(options.expiryMs)
  const shared = 'redis' in options.store
  const link: Header[] =
    options.documentation === undefined
      ? []
      : [['Link', `\`<${options.documentation}>; rel="describedby"\`: the page on keys`]]
  const retry = (seconds: number): Header => [
    'Retry-After',
    `Seconds to wait before retrying (${seconds})`,
    'integer',
  ]
  return {
    requestHeaders: [
      [
        'Idempotency-Key',
        `A key the client makes (a UUID), up to ${options.maxKeyLength} characters, sent as a structured field String in double quotes. A retry with the same key and the same request gets the first answer again, without running the operation twice, for ${expiry} after it completed.`,
        route.required,
      ],
    ],
    responses: [
      [
        400,
        route.required
          ? 'The Idempotency-Key header is missing or malformed'
          : 'The Idempotency-Key header is malformed',
        { headers: link },
      ],
      [
        409,
        'A request with this Idempotency-Key is still being processed: retry after Retry-After',
        { headers: [retry(options.retryAfter), ...link] },
      ],
      [422, 'This Idempotency-Key was used with another request', { headers: link }],
      ...(shared
        ? ([
            [
              503,
              'The idempotency store is unavailable: retry after Retry-After',
              { headers: [retry(options.unavailableRetryAfter)] },
            ],
          ] as const)
        : []),
    ],
    responseHeaders: [['Idempotent-Replayed', '`true` on an answer replayed for a retried key']],
  }
}
