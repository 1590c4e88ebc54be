/** What the conditional convention adds to a route's OpenAPI description. */
import type { RouteContext, RouteDescription } from '@restwell/core'
import { UNSAFE_METHODS, VALIDATED_METHODS } from '@restwell/core/internal'
import type { ConditionalRouteConfig } from './augment.js'
import type { ConditionalSettings } from './steps.js'

type Responses = NonNullable<RouteDescription['responses']>
type Headers = NonNullable<RouteDescription['requestHeaders']>

/**
 * A read (GET, HEAD, QUERY) carries its validators on its 200 and answers 304 to a matching
 * `If-None-Match` or `If-Modified-Since` (RFC 9110 §13.1.2-3); a GET serves byte ranges (206,
 * 416, `Accept-Ranges`; §14); a read or a write answers 412 for a precondition that fails, a
 * write with `getValidator` and `requirePrecondition` 428 without one (RFC 6585 §3). Every
 * success but a DELETE's carries an ETag.
 */
export function describeConditional(
  { methods, config = {} }: RouteContext<ConditionalRouteConfig>,
  { options }: ConditionalSettings,
): RouteDescription {
  const get = methods.includes('GET') || methods.includes('HEAD')
  const read = methods.some((m) => VALIDATED_METHODS.has(m))
  const write = methods.some((m) => UNSAFE_METHODS.has(m))
  const required =
    write &&
    config.getValidator !== undefined &&
    (config.requirePrecondition ?? options.requirePrecondition)
  const responses: Responses = [
    ...(get
      ? ([
          [
            206,
            'Partial Content: the requested byte range (`Content-Range`)',
            { headers: [['Content-Range', '`bytes <start>-<end>/<size>`']] },
          ],
        ] as const)
      : []),
    ...(read
      ? ([
          [
            304,
            'Not Modified: the client holds the current representation (`If-None-Match`, `If-Modified-Since`)',
            {
              headers: [
                ['ETag', 'The current entity tag'],
                ['Last-Modified', 'When the resource last changed'],
              ],
            },
          ],
        ] as const)
      : []),
    ...(read || write
      ? ([[412, 'Precondition Failed: `If-Match` or `If-Unmodified-Since` did not hold']] as const)
      : []),
    ...(get
      ? ([
          [
            416,
            'Range Not Satisfiable (`Content-Range: bytes */<total>`)',
            { headers: [['Content-Range', '`bytes */<size>`']] },
          ],
        ] as const)
      : []),
    ...(required
      ? ([[428, 'Precondition Required: send `If-Match` with the current ETag']] as const)
      : []),
  ]
  const requestHeaders: Headers = [
    ...(read
      ? ([
          ['If-None-Match', 'Entity tags the client holds: 304 when one matches'],
          ['If-Modified-Since', 'HTTP date: 304 when unchanged since'],
        ] as const)
      : []),
    ...(get
      ? ([
          ['Range', '`bytes=<start>-<end>`: 206 with that range'],
          ['If-Range', 'An ETag or date: the range only if it still matches'],
        ] as const)
      : []),
    ...(write
      ? ([
          ['If-Match', 'The ETag the client last saw: 412 when the resource changed since'],
          ['If-Unmodified-Since', 'HTTP date: 412 when the resource changed since'],
        ] as const)
      : []),
  ]
  return {
    responses,
    requestHeaders,
    responseHeaders: read
      ? [
          ['ETag', 'Strong entity tag of this representation (per content coding)', [200]],
          ['Last-Modified', 'When the resource last changed (IMF-fixdate), when known', [200]],
          ...(get ? ([['Accept-Ranges', '`bytes`', [200]]] as const) : []),
        ]
      : [],
    statusHeaders:
      methods[0] === 'DELETE' ? [] : [['success', [['ETag', 'Entity tag of this representation']]]],
  }
}
