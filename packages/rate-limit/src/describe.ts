/** What a rate limit adds to a route's OpenAPI description: its fields on every answer, the 429. */
import type { RouteDescription } from '@restwell/core'
import { type Announcement, QUOTA_EXCEEDED } from './fields.js'

/** One limit, as the document tells it. */
export interface DescribedLimit {
  readonly announced: Announcement
  /** Requests per window, or undefined when a function gives them per request. */
  readonly quota: number | undefined
  /** Where the limit counts a request (`config.rateLimit.hook`): answers before it carry none. */
  readonly phase: string
}

type Header = readonly [name: string, description: string, type?: 'integer' | 'string']

/** The fields a limit sends, in `contributes`' order, each with what it says. */
function fields(announced: Announcement, quota: number | undefined): Header[] {
  const out: Header[] = []
  if (announced.xRateLimit) {
    out.push(
      [
        'X-RateLimit-Limit',
        `Requests allowed in the window${quota === undefined ? '' : ` (${quota})`}`,
        'integer',
      ],
      ['X-RateLimit-Remaining', 'Requests left in the window (0 on a 429)', 'integer'],
      ['X-RateLimit-Reset', 'Seconds until the window resets', 'integer'],
    )
  }
  const { policy, window } = announced
  if (policy !== undefined) {
    const name = JSON.stringify(policy)
    const q = quota === undefined ? '<quota>' : String(quota)
    const w = window === undefined ? '' : `;w=${window}`
    out.push(
      [
        'RateLimit-Policy',
        `The limit, an RFC 9651 List: policy ${name}, its quota \`q\` per window \`w\` seconds (\`${name};q=${q}${w}\`)`,
      ],
      [
        'RateLimit',
        `What remains of policy ${name}, an RFC 9651 List: requests left \`r\`, seconds \`t\` until the window ends (\`${name};r=0;t=42\` on a 429)`,
      ],
    )
  }
  return out
}

/** The names of the fields `fields` sends (CORS exposes them). */
export function fieldNames(announced: Announcement): string[] {
  return fields(announced, undefined).map(([name]) => name)
}

/**
 * A limit's fields on every answer of the route, and its 429 with `Retry-After` (and, in the
 * problem form with the IETF fields, the `quota-exceeded` type naming the policy, §5.1).
 */
export function describeLimit(limit: DescribedLimit): RouteDescription {
  const { policy } = limit.announced
  const counted =
    limit.phase === 'onRequest' ? '' : ` (once the limit counts the request, at ${limit.phase})`
  return {
    answerHeaders: fields(limit.announced, limit.quota).map(([name, description, type]) => [
      name,
      `${description}${counted}`,
      type,
    ]),
    responses: [
      [
        429,
        'Too Many Requests: the limit of the window is used up; retry after `Retry-After`',
        {
          headers: [
            [
              'Retry-After',
              `Seconds until the window ends${policy === undefined ? '' : " (`RateLimit`'s `t`)"}`,
              'integer',
            ],
          ],
          ...(policy === undefined
            ? {}
            : {
                problem: {
                  type: QUOTA_EXCEEDED,
                  members: {
                    'violated-policies': {
                      type: 'array',
                      items: { type: 'string', enum: [policy] },
                      description: 'The policies exceeded, as `RateLimit-Policy` names them',
                    },
                  },
                },
              }),
        },
      ],
    ],
  }
}
