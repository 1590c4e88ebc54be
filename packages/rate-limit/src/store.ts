/**
 * A limiter of `@fastify/rate-limit` as a step: its 429 answered, a store that fails or does not
 * answer in time answered 503 (or let through with `failOpen`), a client key made first.
 */
import type { RequestStep } from '@restwell/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { storeUnavailable } from './answers.js'
import { type Announcement, restate } from './fields.js'
import type { KeyGenerator } from './options.js'

/** A limiter of `@fastify/rate-limit`: its request hook (`fastify.rateLimit()`). */
export type Limiter = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>

/** The client key a step computed (Redis with a `keyGenerator`), for the library to read. */
export const ROOT_KEY = Symbol('restwell.rateLimitKey')

/**
 * With Redis, the key a step made first (`limiterStep`), for the library to read back; a
 * request no step made one for has it made here.
 */
export function computedKeyFirst(keyGenerator: KeyGenerator): KeyGenerator {
  return (request) => {
    const key = (request as unknown as Record<symbol, string | number | null>)[ROOT_KEY]
    return key == null ? keyGenerator(request) : key
  }
}

/**
 * `work`, or a rejection after `ms`. An ioredis client queues commands while it reconnects
 * (by default for 20 reconnection attempts, tens of seconds), so a lost Redis would otherwise
 * hold every request that long. A late answer after the timeout is dropped.
 */
function withTimeout(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`rate-limit store did not answer within ${ms} ms`)),
      ms,
    )
  })
  work.catch(() => {})
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** How a limiter meets its store. */
export interface StoreSettings {
  /** The store is Redis (it may fail, or not answer within `storeTimeout`). */
  readonly redis: boolean
  readonly storeTimeout: number
  /** Let requests through when the store fails. */
  readonly failOpen: boolean
  /** The client key made first (with Redis and a `keyGenerator`), or undefined. */
  readonly keyOf: KeyGenerator | undefined
  /** The fields its answers carry, restated from the library's `X-RateLimit-*`. */
  readonly announced: Announcement
}

/**
 * What a limiter backed by a store becomes: a step that answers its 429, and a store that fails
 * or does not answer within `storeTimeout` (Redis lost, ioredis queueing) as a 503 with
 * `Retry-After`, or lets the request through when `failOpen`. With a `keyOf`, the client key is
 * made first, so that its error (a throw, a rejection, an HttpError such as a 401) is answered
 * as such and not taken for a store failure; the library reads it back.
 */
export function limiterStep(limiter: Limiter, settings: StoreSettings): RequestStep {
  const { storeTimeout, failOpen, keyOf, announced } = settings
  const counted = (reply: FastifyReply): undefined => {
    restate(reply, announced)
    return undefined
  }
  const failed = (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    if ((error as { statusCode?: unknown }).statusCode === 429) {
      restate(reply, announced)
      return error as Error
    }
    request.log.error({ err: error }, 'rate-limit store failed')
    return failOpen ? undefined : storeUnavailable()
  }
  // In memory the store cannot fail: what the limiter rejects with (its 429) is the answer.
  const limited = settings.redis
    ? (request: FastifyRequest, reply: FastifyReply): Promise<Error | undefined> =>
        withTimeout(limiter(request, reply), storeTimeout).then(
          () => counted(reply),
          (error: unknown) => failed(request, reply, error),
        )
    : (request: FastifyRequest, reply: FastifyReply): Promise<Error | undefined> =>
        limiter(request, reply).then(
          () => counted(reply),
          (error: unknown) => {
            restate(reply, announced)
            return error as Error
          },
        )
  if (keyOf === undefined) return limited
  return function keyFirst(request, reply) {
    const withKey = (resolved: string | number) => {
      ;(request as unknown as Record<symbol, string | number>)[ROOT_KEY] = resolved
      return limited(request, reply)
    }
    const key = keyOf(request)
    if (typeof key === 'object') return key.then(withKey)
    return withKey(key)
  }
}
