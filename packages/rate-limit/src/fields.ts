/**
 * What a limit tells its client: `X-RateLimit-*`, the IETF fields of
 * draft-ietf-httpapi-ratelimit-headers-10 (`RateLimit-Policy`, `RateLimit`: RFC 9651 Lists
 * of a String with parameters), or both.
 */
import type { FastifyReply } from 'fastify'
import { serializeList } from 'structured-headers'

/** Which fields the limits send. */
export type HeaderFields = 'x-ratelimit' | 'ietf' | 'both'

/** The root limit's policy name in the IETF fields. */
export const DEFAULT_POLICY = 'default'

/** The problem type of a 429 named by its policies (the draft's §5.1). */
export const QUOTA_EXCEEDED = 'https://iana.org/assignments/http-problem-types#quota-exceeded'

/** How one limit announces itself. */
export interface Announcement {
  /** `X-RateLimit-Limit`, `-Remaining`, `-Reset` are sent. */
  readonly xRateLimit: boolean
  /** The policy the IETF fields name, or undefined when they are not sent. */
  readonly policy: string | undefined
  /** The policy's window in whole seconds (`w`), or undefined when it is not fixed. */
  readonly window: number | undefined
}

/** A policy name the IETF fields can carry: an RFC 9651 String is printable ASCII. */
export const POLICY_NAME = /^[\x20-\x7e]+$/

export function announcement(
  fields: HeaderFields,
  policy: string,
  windowMs: number | undefined,
): Announcement {
  return {
    xRateLimit: fields !== 'ietf',
    policy: fields === 'x-ratelimit' ? undefined : policy,
    // The field has no sub-second precision (§3.1.3): a window is announced no shorter than it is.
    window: windowMs === undefined ? undefined : Math.ceil(windowMs / 1000),
  }
}

/** `RateLimit-Policy`: the quota `q` per window `w` (§3). */
export function policyField(policy: string, quota: number, window: number | undefined): string {
  const parameters = new Map<string, number>([['q', quota]])
  if (window !== undefined) parameters.set('w', window)
  return serializeList([[policy, parameters]])
}

/** `RateLimit`: what remains (`r`) and the seconds until the window ends (`t`) (§4). */
export function limitField(policy: string, remaining: number, reset: number): string {
  return serializeList([
    [
      policy,
      new Map([
        ['r', remaining],
        ['t', reset],
      ]),
    ],
  ])
}

/** The IETF fields of one answer, `RateLimit-Policy` given when it was made once. */
export function sendIetfFields(
  reply: FastifyReply,
  announced: Announcement & { readonly policy: string },
  quota: number,
  remaining: number,
  reset: number,
  policy = policyField(announced.policy, quota, announced.window),
): void {
  reply.header('ratelimit-policy', policy)
  reply.header('ratelimit', limitField(announced.policy, remaining, reset))
}

const X_RATELIMIT = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const

/**
 * The IETF fields from the `X-RateLimit-*` `@fastify/rate-limit` set (its limiter tells no more),
 * those dropped unless announced. None when it set none (an `allowList` client, a failed store).
 */
export function restate(reply: FastifyReply, announced: Announcement): void {
  if (announced.policy === undefined) return
  const [limit, remaining, reset] = X_RATELIMIT.map((name) => reply.getHeader(name))
  if (limit === undefined) return
  sendIetfFields(
    reply,
    announced as Announcement & { readonly policy: string },
    Number(limit),
    Number(remaining),
    Number(reset),
  )
  if (!announced.xRateLimit) for (const name of X_RATELIMIT) reply.removeHeader(name)
}
