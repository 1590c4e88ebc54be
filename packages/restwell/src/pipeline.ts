/**
 * The pipeline: the order in which restwell shapes an answer, in one place. The plugins hand
 * their steps to it (`@restwell/core`'s `installPipeline`), each route's plan is the steps that
 * apply to it, decided when the route is added, and one hook runs them.
 */
import {
  bodilessHead,
  notModifiedHeaders,
  type Pipeline,
  type RouteEntry,
  type SendStep,
  sendHook,
  sendStepsOf,
  addRouteHook,
} from '@restwell/core'
import type { FastifyInstance, onSendHookHandler } from 'fastify'

/**
 * The send phase of an answer from a route, in order. One `onSend` hook per route runs it,
 * before the route's own `onSend` hooks and Fastify's hook that drops a HEAD body.
 */
export const SEND_ORDER = [
  // Vary: Origin first, whatever the handler set; CORS headers on refusals made before routing.
  'cors',
  // Accept-Patch on an OPTIONS route's answers and on a 405.
  'acceptPatch',
  // Api-Version, Deprecation, Sunset; the versioned JSON media type, before anything reads it.
  'versioning',
  // Vary: Accept…, Content-Language of the representation chosen.
  'negotiation',
  // A route that answers a patch with 204 drops its body before anything hashes or compresses it.
  'patch',
  // ETag from the identity bytes, 304/412, Accept-Ranges, 206/416: decided before compression.
  'conditional',
  // gzip/br/deflate of what conditional let through (never a 206 or a 304), from the cache or not.
  'compress',
  // A compressed body's ETag names its coding (RFC 9110 §8.8.3).
  'conditionalCoding',
  // Cache-Control and the rest of Vary, by the final status.
  'cacheControl',
  // The one 304 rule: representation metadata goes, whatever step added it (RFC 9110 §15.4.5).
  'notModified',
  // HEAD of a 204 or 304 goes without Content-Length (RFC 9110 §8.6).
  'head',
] as const

/** The send phase of an answer of no route (404, 405, automatic OPTIONS), in order. */
export const NOT_FOUND_SEND_ORDER = ['cors', 'cacheControl', 'acceptPatch'] as const

/** The steps of `order` found in `steps`, in that order. */
function planOf(order: readonly string[], steps: ReadonlyMap<string, SendStep>): SendStep[] {
  const plan: SendStep[] = []
  for (const name of order) {
    const step = steps.get(name)
    if (step !== undefined) plan.push(step)
  }
  return plan
}

/**
 * The route's plan: the steps the plugins handed over for it, plus `extra` (the umbrella's own,
 * such as compression), in `SEND_ORDER`, as one `onSend` hook put first. The 304 rule comes with
 * conditional, the HEAD rule on HEAD routes; a route no convention shapes gets no hook.
 */
export function planRoute(route: RouteEntry, extra: ReadonlyMap<string, SendStep>): void {
  const steps = new Map(sendStepsOf(route))
  for (const [name, step] of extra) steps.set(name, step)
  if (steps.has('conditional')) steps.set('notModified', notModifiedHeaders)
  if ([route.method].flat().includes('HEAD')) steps.set('head', bodilessHead)
  const plan = planOf(SEND_ORDER, steps)
  if (plan.length > 0) addRouteHook(route, 'onSend', sendHook('restwellSend', plan), 'first')
}

/** One root `onSend` hook for the answers of no route: the plan of the not-found path. */
export function planNotFound(fastify: FastifyInstance, pipeline: Pipeline): void {
  const plan = planOf(NOT_FOUND_SEND_ORDER, pipeline.notFound)
  if (plan.length === 0) return
  const run = sendHook('restwellSendNotFound', plan)
  const hook: onSendHookHandler = function restwellSendNotFound(request, reply, payload, done) {
    if (request.is404) run.call(this, request, reply, payload, done)
    else done(null, payload)
  }
  fastify.addHook('onSend', hook)
}
