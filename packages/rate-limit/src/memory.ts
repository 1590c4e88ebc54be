/**
 * The root limit with the counters in this process: a synchronous fixed-window counter, and the
 * default client key (the IP, an IPv6 client by its /64 network) as `@fastify/rate-limit` makes it.
 */
import { createRequire } from 'node:module'
import { isIPv6 } from 'node:net'
import { format } from '@lukeed/ms'
import type { RequestStep } from '@restwell/core'
import type { HttpError } from '@restwell/errors'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Address6 as IPv6Address } from 'ip-address'
import { LruMap } from 'toad-cache'
import { rateLimited } from './answers.js'
import { announcement, policyField, sendIetfFields } from './fields.js'
import type { ResolvedRateLimitOptions } from './options.js'

/** Clients whose windows the memory store keeps (least recently seen forgotten first). */
export const MEMORY_CLIENTS = 5000

/**
 * The default client key, as `@fastify/rate-limit` makes it: the IP, an IPv4-mapped IPv6
 * address as IPv4, any other IPv6 address as its /64 network (one host holds a whole /64).
 * A string without `:` is never IPv6, so the common case skips the IPv6 test.
 */
export function clientKey(ip: string): string {
  if (!ip.includes(':') || !isIPv6(ip)) return ip.toLowerCase()
  const Address6 = address6()
  const address = new Address6(ip)
  if (address.isMapped4()) return address.to4().correctForm()
  return new Address6(`${ip}/64`).startAddress().correctForm()
}

let Address6Class: typeof IPv6Address | undefined

/** ip-address's `Address6`, loaded for the first IPv6 client: importing restwell does not load it. */
function address6(): typeof IPv6Address {
  Address6Class ??= (createRequire(import.meta.url)('ip-address') as typeof import('ip-address'))
    .Address6
  return Address6Class
}

/** One client's window: requests counted since `start` (ms). */
interface Window {
  count: number
  start: number
}

/**
 * The root limit in memory: a fixed window per client that starts at its first request, the
 * least recently seen of `MEMORY_CLIENTS` forgotten first, as `@fastify/rate-limit`'s memory
 * store keeps them. Counted synchronously: the library's handler awaits three promises per
 * request (key, store callback, its own async function) for a store that answers at once.
 */
export function memoryRateLimitStep(
  options: ResolvedRateLimitOptions,
  window: number,
): RequestStep {
  const { max } = options
  const announced = announcement(options.headers, options.policy, window)
  const ietf =
    announced.policy === undefined ? undefined : { ...announced, policy: announced.policy }
  // The policy is the same on every answer (§3): serialized once.
  const policy = ietf === undefined ? '' : policyField(ietf.policy, max, ietf.window)
  const allowed = new Set<string | number>(options.allowList)
  const keyOf = options.keyGenerator ?? ((request: FastifyRequest) => clientKey(request.ip))
  const windows = new LruMap<Window>(MEMORY_CLIENTS)
  const count = (key: string | number, reply: FastifyReply): HttpError | undefined => {
    if (allowed.has(key)) return undefined
    const now = Date.now()
    let seen = windows.get(key)
    if (seen === undefined || seen.start + window <= now) {
      seen = { count: 0, start: now }
      windows.set(key, seen)
    }
    seen.count++
    const reset = Math.ceil((seen.start + window - now) / 1000)
    const remaining = seen.count > max ? 0 : max - seen.count
    if (announced.xRateLimit) {
      reply.header('x-ratelimit-limit', max)
      reply.header('x-ratelimit-remaining', remaining)
      reply.header('x-ratelimit-reset', reset)
    }
    if (ietf !== undefined) sendIetfFields(reply, ietf, max, remaining, reset, policy)
    if (seen.count <= max) return undefined
    // Never earlier than the RateLimit field's `t` (§6): the same second.
    reply.header('retry-after', reset)
    return rateLimited(max, format(reset * 1000, true) as string, announced.policy)
  }
  return function memoryRateLimit(request, reply) {
    const key = keyOf(request)
    if (typeof key === 'object') return key.then((resolved) => count(resolved, reply))
    return count(key, reply)
  }
}
