/**
 * The pipeline: the order in which restwell shapes a request and its answer, in one place. The
 * plugins hand their steps to it (`@restwell/core`'s `installPipeline`); each route's plan is
 * the steps that apply to it, decided when the route is added, and one hook per phase runs them.
 */
import { auth } from '@restwell/auth'
import { cacheControl } from '@restwell/cache-control'
import { compress } from '@restwell/compress'
import { conditional } from '@restwell/conditional'
import { cors } from '@restwell/cors'
import { digest } from '@restwell/digest'
import { errors } from '@restwell/errors'
import { idempotency } from '@restwell/idempotency'
import { methods } from '@restwell/methods'
import { negotiation } from '@restwell/negotiation'
import { overload } from '@restwell/overload'
import { pagination } from '@restwell/pagination'
import { patch } from '@restwell/patch'
import { prefer } from '@restwell/prefer'
import { rateLimit } from '@restwell/rate-limit'
import { reroute } from '@restwell/reroute'
import { softDelete } from '@restwell/soft-delete'
import { versioning } from '@restwell/versioning'
import {
  type BodyStep,
  type Phase,
  RegistrationError,
  type RequestStep,
  type RouteEntry,
  type RoutePhase,
  routeName,
  type SendStep,
} from '@restwell/core'
import {
  addRouteHook,
  bodilessHead,
  notFoundSendHook,
  notModifiedHeaders,
  type Pipeline,
  parsingHook,
  pipelineRouteSteps,
  requestHook,
  type StepKey,
  sendHook,
  serializeHook,
  type WithPhase,
} from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'

/**
 * One phase's order: the conventions that have a step in it (a convention listed in a phase it
 * has no step in is a type error).
 */
type Order<P extends Phase> = readonly WithPhase<P>[]

/** The pipeline's own send steps, which come with what a route is (conditional, HEAD). */
type OwnSendStep = 'notModified' | 'head'

/** What a step of a phase is keyed by: its convention, or one of the pipeline's own. */
type Key = WithPhase<never> | OwnSendStep

/**
 * What every request runs first, route or not, in order: one root `onRequest` hook, before the
 * root hooks the app adds after restwell.
 */
export const REQUEST_ORDER: Order<'request'> = [
  // The request id on every answer; requests refused before anything runs (closing, Expect, Host).
  errors,
  // CORS headers on every answer, refusals included; a preflight is answered here, before auth.
  cors,
  // Method override sets the method its twin route was reached for: what follows sees it.
  reroute,
  // What the version carriers refuse (400, 406, an unknown /v<N> prefix) and a moved path's
  // 301/308, before any other work.
  versioning,
  // Overload sheds load before any other work.
  overload,
  // The root rate limit, before auth: a client failing authentication is counted too.
  rateLimit,
  // HTTPS only; with hideRoutes an unknown path asks for a token like a route.
  auth,
  // 405, automatic OPTIONS and 501 on the not-found path, before the body is read.
  methods,
]

/**
 * Who may make a request of the route, in order: one route `onRequest` hook. With an auth
 * requirement it comes first among the route's own hooks, which then see an authenticated
 * request; a route's own limit alone comes after them, where `@fastify/rate-limit` puts it, so
 * its `keyGenerator` may read what they found.
 */
export const ROUTE_GUARD_ORDER: Order<'guard'> = [
  // The route's own rate limit (`config.rateLimit`) first: a client failing authentication is counted.
  rateLimit,
  // The route's auth requirement: 401/403 before the route's own hooks and anything it reveals.
  auth,
]

/**
 * The route's own steps before its body is read, in order: one route `preParsing` hook, so they
 * run after every `onRequest` hook (auth's guard and a route's own rate limit among them: an
 * anonymous client learns nothing of the route's representations), then the body is decoded
 * (gzip, br, deflate) before the route's own `preParsing` hooks see it.
 */
export const ROUTE_REQUEST_ORDER: Order<'beforeBody'> = [
  // ?include=deleted read before anything looks at the query.
  softDelete,
  // Prefer read once; handling=strict|lenient on the query before any plugin reads it.
  prefer,
  // 406/415/300 and the representation chosen.
  negotiation,
  // 415 for a body that is not a patch format this route takes.
  patch,
  // The body decoded (gzip, br, deflate) once the steps above let it through.
  compress,
  // request.pagination read from the query (400 naming the parameter), before it is validated.
  pagination,
]

/**
 * The route's steps once the body is read, in order: one route `preHandler` hook after the
 * route's own.
 */
export const PRE_HANDLER_ORDER: Order<'beforeHandler'> = [
  // A route's own rate limit moved here (`config.rateLimit.hook: 'preHandler'`), keyed by what
  // the route's own hooks found (the principal).
  rateLimit,
  // A request whose content does not match its Content-Digest is a 400 before anything reads it.
  digest,
  // The Idempotency-Key looked up (replay, 409, 422) after auth and the limits counted the
  // retry, once the body is read (its fingerprint), before any precondition: a replay is the
  // first answer, whatever the resource's validators are now.
  idempotency,
  // A PATCH that restores a soft-deleted item (`{"deleted": false}`) is told apart.
  softDelete,
  // The stored validators read: 412/428 (and 404 for a missing target) before the handler writes.
  conditional,
  // respond-async: the job enqueued instead of the handler's work, once the write may proceed.
  prefer,
]

/**
 * The serialization phase, in order: one route `preSerialization` hook after the route's own,
 * which see the value the handler returned.
 */
export const SERIALIZE_ORDER: Order<'serialize'> = [
  // Soft-deleted fields shaped, before any serializer turns the body to text.
  softDelete,
  // A paginated route answers a page: an array is refused here.
  pagination,
  // XML, HAL, JSON:API and Siren bodies made from the value.
  negotiation,
  // Preconditions of a read decided on the value (304/412 without serializing).
  conditional,
  // A compressed page found in the cache by its item versions: nothing to serialize.
  compress,
]

/**
 * The send phase of an answer from a route, in order. One `onSend` hook per route runs it,
 * before the route's own `onSend` hooks and Fastify's hook that drops a HEAD body.
 */
export const SEND_ORDER: readonly (WithPhase<'send'> | OwnSendStep)[] = [
  // Vary: Origin first, whatever the handler set; CORS headers on refusals made before routing.
  cors,
  // Api-Version, Deprecation, Sunset; the versioned JSON media type, before anything reads it.
  versioning,
  // Vary: Accept…, Content-Language of the representation chosen.
  negotiation,
  // Accept-Patch on an OPTIONS 2xx and a 405; a route that answers a patch with 204 drops its
  // body before anything hashes or compresses it.
  patch,
  // A hard DELETE's 200 becomes a 204 without a body, likewise.
  softDelete,
  // return=minimal drops a write's body likewise; Preference-Applied, Vary: Prefer.
  prefer,
  // ETag from the identity bytes, 304/412, Accept-Ranges, 206/416: decided before compression.
  conditional,
  // A first answer stored (its identity bytes, ETag and Location), a replay sent as stored.
  idempotency,
  // gzip/br/deflate of what conditional let through (never a 206 or a 304), from the cache or
  // not; a compressed body's ETag names its coding (RFC 9110 §8.8.3).
  compress,
  // Repr-Digest and Content-Digest of the bytes sent: a content coding is part of the
  // representation (RFC 9530 §3), so after compression; a 206's whole from conditional.
  digest,
  // Cache-Control and the rest of Vary, by the final status.
  cacheControl,
  // The one 304 rule: representation metadata goes, whatever step added it (RFC 9110 §15.4.5).
  'notModified',
  // HEAD of a 204 or 304 goes without Content-Length (RFC 9110 §8.6).
  'head',
]

/**
 * The steps of `SEND_ORDER` a 304 skips, once an earlier step (or the handler) made it one: each
 * shapes a body or headers a 304 does not carry (RFC 9110 §15.4.5), so nothing is built to be
 * dropped. Those that keep `Vary`, `Cache-Control` and the validators still run.
 */
export const SKIPPED_ON_304: Order<'send'> = [
  // Accept-Patch (an OPTIONS 2xx, a 405) and a patch's 204.
  patch,
  // A hard DELETE's 204.
  softDelete,
  // Content codings of a body a 304 does not have.
  compress,
  // Digests of that body.
  digest,
]

/** The send phase of an answer of no route (404, 405, automatic OPTIONS), in order. */
export const NOT_FOUND_SEND_ORDER: Order<'notFoundSend'> = [cors, cacheControl, patch, negotiation]

/**
 * The steps of `order` found in `steps`, in that order. A step under a name `order` does not
 * list would never run: a registration error naming it, the `phase` and `where` (the route).
 */
function planOf<Step>(
  order: readonly Key[],
  steps: ReadonlyMap<Key, Step>,
  phase: string,
  where: string,
): Step[] {
  for (const key of steps.keys()) {
    if (!order.includes(key)) throw unlistedStep(key, phase, order, where)
  }
  const plan: Step[] = []
  for (const key of order) {
    const step = steps.get(key)
    if (step !== undefined) plan.push(step)
  }
  return plan
}

/** How a step's key is named in a message: a convention by its name. */
const keyName = (key: Key): string => (typeof key === 'string' ? key : key.name)

function unlistedStep(
  key: Key,
  phase: string,
  order: readonly Key[],
  where: string,
): RegistrationError {
  return new RegistrationError(
    `restwell: a step "${keyName(key)}" was handed to the pipeline for the ${phase} phase of ${where}, which lists no such step (only ${order.map(keyName).join(', ')}), so it would never run: hand it over under one of those names, or list it in src/pipeline.ts.`,
  )
}

/** A route's steps of one phase, by the convention that declared each. */
function routeSteps<Step>(
  declared: ReadonlyMap<RoutePhase, ReadonlyMap<StepKey, unknown>>,
  phase: RoutePhase,
): Map<Key, Step> {
  return new Map(declared.get(phase) as ReadonlyMap<Key, Step> | undefined)
}

/**
 * The route's plan: the steps the plugins handed over for it, one hook per phase. The
 * `preParsing` and `onSend` hooks go before the route's own, the guard hook where
 * `ROUTE_GUARD_ORDER` says, the others after. The 304 rule comes with conditional, the HEAD rule
 * on HEAD routes; a route no convention shapes gets no hook.
 */
export function planRoute(pipeline: Pipeline, instance: FastifyInstance, route: RouteEntry): void {
  const where = `route ${routeName(route)}`
  const declared = pipelineRouteSteps(pipeline, instance, route)
  const guards = routeSteps<RequestStep>(declared, 'guard')
  const guardPlan = planOf(ROUTE_GUARD_ORDER, guards, 'onRequest guard (ROUTE_GUARD_ORDER)', where)
  if (guardPlan.length > 0) {
    const hook = requestHook('restwellGuard', guardPlan)
    addRouteHook(route, 'onRequest', hook, guards.has(auth) ? 'first' : 'last')
  }
  const requestPlan = planOf(
    ROUTE_REQUEST_ORDER,
    routeSteps<RequestStep | BodyStep>(declared, 'beforeBody'),
    'preParsing (ROUTE_REQUEST_ORDER)',
    where,
  )
  if (requestPlan.length > 0) {
    addRouteHook(route, 'preParsing', parsingHook('restwellPreParsing', requestPlan), 'first')
  }
  const preHandlerPlan = planOf(
    PRE_HANDLER_ORDER,
    routeSteps<RequestStep>(declared, 'beforeHandler'),
    'preHandler (PRE_HANDLER_ORDER)',
    where,
  )
  if (preHandlerPlan.length > 0)
    addRouteHook(route, 'preHandler', requestHook('restwellPreHandler', preHandlerPlan))
  const serialize = routeSteps<SendStep>(declared, 'serialize')
  const serializePlan = planOf(
    SERIALIZE_ORDER,
    serialize,
    'preSerialization (SERIALIZE_ORDER)',
    where,
  )
  if (serializePlan.length > 0)
    addRouteHook(route, 'preSerialization', serializeHook('restwellSerialize', serializePlan))
  const steps = routeSteps<SendStep>(declared, 'send')
  if (steps.has(conditional)) steps.set('notModified', notModifiedHeaders)
  if ([route.method].flat().includes('HEAD')) steps.set('head', bodilessHead)
  const plan = planOf(SEND_ORDER, steps, 'onSend (SEND_ORDER)', where)
  const skipped = new Set(SKIPPED_ON_304.flatMap((key) => steps.get(key) ?? []))
  if (plan.length > 0) {
    addRouteHook(route, 'onSend', sendHook('restwellSend', plan, skipped), 'first')
  }
}

/**
 * One root `onRequest` hook for the steps every request runs, in `REQUEST_ORDER`. It is added
 * before the plugins are registered (so it reaches every scope they create, ahead of any root
 * hook they add); the returned function makes its plan once they have handed their steps over.
 */
export function planRequest(fastify: FastifyInstance, pipeline: Pipeline): () => void {
  const plan: RequestStep[] = []
  fastify.addHook('onRequest', requestHook('restwellRequest', plan))
  return () => {
    plan.push(
      ...planOf(REQUEST_ORDER, pipeline.request, 'onRequest (REQUEST_ORDER)', 'every request'),
    )
  }
}

/** One root `onSend` hook for the answers of no route: the plan of the not-found path. */
export function planNotFound(fastify: FastifyInstance, pipeline: Pipeline): void {
  const plan = planOf(
    NOT_FOUND_SEND_ORDER,
    pipeline.notFound,
    'onSend (NOT_FOUND_SEND_ORDER)',
    'the answers of no route',
  )
  if (plan.length === 0) return
  fastify.addHook('onSend', notFoundSendHook('restwellSendNotFound', plan))
}
