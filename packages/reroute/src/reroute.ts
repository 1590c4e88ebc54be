/**
 * The one before-routing mechanism of restwell: a root `onRequest` hook that lets registered
 * rewriters change the method and URL of a request, and, when one did, routes it afresh.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { developerWarning, type RequestStep, useRootRequestStep } from '@restwell/core'
import type { FastifyInstance, FastifyRequest, RawRequestDefaultExpression } from 'fastify'

/** What a rewriter may change. Starts as the method and URL the client sent. */
export interface RerouteTarget {
  /** The first-pass request: routed by the method and URL the client sent (`is404` tells). */
  readonly request: FastifyRequest
  /** The method the request will be routed with (upper case). */
  method: string
  /** The URL (path and query) the request will be routed with. */
  url: string
  /**
   * Set by a rewriter when the route the request reached already serves `method` and `url` as
   * they are then (a method-override twin does, and so does the not-found path when no route
   * would): if no later rewriter changes them, the request goes on with them, in place, without
   * being routed again.
   */
  reached?: { readonly method: string; readonly url: string }
}

/**
 * Changes `target.method` and/or `target.url`, or returns (or throws) an `HttpError`, answered
 * through the normal error handler without a reroute. Runs on the first pass only; it must be
 * cheap when it has nothing to do.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a rewriter that only changes the target returns nothing
export type Rewriter = (target: RerouteTarget) => Error | undefined | void

/** A rewriter and where it runs among the others (lower `order` first). */
export interface RewriterEntry {
  /** Unique name, e.g. the plugin's (`@restwell/method-override`). */
  readonly name: string
  /** Position among rewriters: lower runs first. Method override uses 10, versioning 20. */
  readonly order: number
  readonly rewrite: Rewriter
}

/** The method and URL a rerouted request arrived with, and its request id. */
export interface RerouteRecord {
  readonly method: string
  readonly url: string
  readonly id: string
}

/** The state shared, per Fastify root, by every copy of this module (hence `Symbol.for`). */
interface RerouteState {
  readonly rewriters: RewriterEntry[]
  /**
   * The app's `rewriteUrl`, learnt at the first reroute: `unknown` until then; `none`; `aware`
   * (wrapped by `rerouteAware`: it does not run on the rerouted pass); `unaware` (it runs on
   * both passes).
   */
  rewriteUrl: 'unknown' | 'none' | 'aware' | 'unaware'
  /** Whether the "rewriteUrl ran again" warning was logged (once per root). */
  warnedRewriteUrl: boolean
}

/** Key of the shared state on the Fastify instance. */
export const REROUTE_STATE: unique symbol = Symbol.for('restwell.reroute.state')
/** Key of the record on a rerouted raw request: its presence is the loop guard. */
export const REROUTED: unique symbol = Symbol.for('restwell.reroute.record')

/**
 * Key of a one-shot mark on a raw request handed back to `fastify.routing`: the URL the client
 * sent. A `rewriteUrl` wrapped by `rerouteAware` consumes it: it does not run, and it puts the
 * client's URL back into `originalUrl` (which Fastify sets before it calls `rewriteUrl`).
 */
const SKIP_REWRITE: unique symbol = Symbol.for('restwell.reroute.skipRewriteUrl')

/** Fastify's `rewriteUrl` server option. */
export type RewriteUrl = (this: FastifyInstance, req: RawRequestDefaultExpression) => string
type GenReqId = (this: FastifyInstance, req: RawRequestDefaultExpression) => string
type StateHolder = { [REROUTE_STATE]?: RerouteState }
type MarkedRequest = IncomingMessage & {
  [REROUTED]?: RerouteRecord
  [SKIP_REWRITE]?: string
  originalUrl?: string
}

/**
 * Wraps the `rewriteUrl` server option so that it runs once per request: Fastify calls it each
 * time it routes a request, and a rerouted request (method override, versioning) is routed a
 * second time, with its URL already rewritten. On that second call the wrapper returns the URL
 * as it is, without calling `rewriteUrl`. `Fastify({ rewriteUrl: rerouteAware(myRewrite) })`.
 */
export function rerouteAware(rewriteUrl: RewriteUrl): RewriteUrl {
  const wrapped = function rerouteAwareRewriteUrl(
    this: FastifyInstance,
    req: RawRequestDefaultExpression,
  ): string {
    const clientUrl = (req as MarkedRequest)[SKIP_REWRITE]
    if (clientUrl === undefined) return rewriteUrl.call(this, req)
    const marked = req as MarkedRequest
    marked[SKIP_REWRITE] = undefined
    marked.originalUrl = clientUrl
    return marked.url as string
  }
  return wrapped
}

/**
 * Fastify's per-response listener of the first pass (it runs the first pass's `onResponse`
 * hooks and logs "request completed"). After a reroute the second pass has its own, so the
 * first one is detached: `onResponse` hooks run once, for the route that answered.
 */
const FIRST_PASS_LISTENER = 'onResFinished'

function detachFirstPass(res: ServerResponse): void {
  for (const event of ['finish', 'error'] as const) {
    for (const listener of res.listeners(event)) {
      if (listener.name === FIRST_PASS_LISTENER) {
        res.removeListener(event, listener as (...args: unknown[]) => void)
      }
    }
  }
}

/** How a request was rerouted, or undefined when it was routed as it arrived. */
export function reroutedFrom(request: FastifyRequest | IncomingMessage): RerouteRecord | undefined {
  const raw = ('raw' in request ? request.raw : request) as MarkedRequest
  return raw[REROUTED]
}

function buildStep(fastify: FastifyInstance, state: RerouteState): RequestStep {
  return function restwellReroute(request, reply) {
    const raw = request.raw as MarkedRequest
    // Loop guard: a rerouted request is never rerouted again; rewriters run on the first pass only.
    if (raw[REROUTED] !== undefined) return undefined
    const method = raw.method as string
    const url = raw.url as string
    const target: RerouteTarget = { request, method, url }
    for (const entry of state.rewriters) {
      const refused = entry.rewrite(target)
      if (refused instanceof Error) return refused
    }
    if (target.method === method && target.url === url) return undefined
    raw[REROUTED] = { method, url, id: request.id }
    // The URL the client sent: Fastify's rewriteUrl (first pass) put it there, or nothing did.
    const clientUrl = raw.originalUrl ?? url
    raw.method = target.method
    raw.url = target.url
    const reached = target.reached
    if (reached !== undefined && reached.method === target.method && reached.url === target.url) {
      // Read by `request.originalUrl` (once, when first asked for).
      raw.originalUrl = clientUrl
      return undefined
    }
    request.log.debug(
      { rerouted: { from: `${method} ${url}`, to: `${target.method} ${target.url}` } },
      'request rerouted',
    )
    reply.hijack()
    detachFirstPass(reply.raw)
    if (state.rewriteUrl === 'none') {
      raw.originalUrl = clientUrl
      fastify.routing(raw, reply.raw)
    } else {
      routeAgain(fastify, state, request, reply.raw, clientUrl)
    }
    // Hijacked: this pass ends here, the request is routed afresh.
    return true
  }
}

/**
 * `fastify.routing` for a request whose app may have a `rewriteUrl`: Fastify sets
 * `originalUrl = url` and calls it before routing. With `rerouteAware` it consumes the mark:
 * it does not run, and it puts the client's URL back. Otherwise, while routing, `originalUrl`
 * reads the client's URL and ignores Fastify's write, which tells that a `rewriteUrl` ran
 * again (the developer is warned once). The first reroute learns which case the app is.
 */
function routeAgain(
  fastify: FastifyInstance,
  state: RerouteState,
  request: FastifyRequest,
  res: ServerResponse,
  clientUrl: string,
): void {
  const raw = request.raw as MarkedRequest
  raw[SKIP_REWRITE] = clientUrl
  if (state.rewriteUrl === 'aware') {
    fastify.routing(raw, res)
    return
  }
  let rewriteUrlRan = false
  Object.defineProperty(raw, 'originalUrl', {
    configurable: true,
    enumerable: true,
    get: () => clientUrl,
    set: () => {
      rewriteUrlRan = true
    },
  })
  try {
    fastify.routing(raw, res)
  } finally {
    Object.defineProperty(raw, 'originalUrl', {
      configurable: true,
      enumerable: true,
      writable: true,
      value: clientUrl,
    })
  }
  const consumed = raw[SKIP_REWRITE] === undefined
  raw[SKIP_REWRITE] = undefined
  state.rewriteUrl = !rewriteUrlRan ? 'none' : consumed ? 'aware' : 'unaware'
  if (state.rewriteUrl === 'unaware') warnOnce(state, request)
}

function warnOnce(state: RerouteState, request: FastifyRequest): void {
  if (state.warnedRewriteUrl) return
  state.warnedRewriteUrl = true
  developerWarning(
    request.log,
    'RESTWELL_REWRITE_URL_TWICE',
    '@restwell/reroute: Fastify ran rewriteUrl again on a rerouted request (method override or versioning routed it a second time): wrap it, `Fastify({ rewriteUrl: rerouteAware(yourRewriteUrl) })`, so that it runs once',
  )
}

/**
 * Plugins that answer not-found requests in a root `onRequest` hook (405, OPTIONS). Their hook
 * must run after the reroute hook, or they would answer before the request is rerouted.
 */
export const ANSWER_IN_ON_REQUEST: readonly string[] = ['@restwell/methods']

function install(fastify: FastifyInstance): RerouteState {
  const holder = fastify as unknown as StateHolder
  const existing = holder[REROUTE_STATE]
  if (existing !== undefined) return existing
  for (const name of ANSWER_IN_ON_REQUEST) {
    if (fastify.hasPlugin(name)) {
      throw new Error(
        `@restwell/reroute: register method override and versioning (or @restwell/reroute) before ${name}: its onRequest hook would answer before the request is rerouted`,
      )
    }
  }
  const state: RerouteState = { rewriters: [], rewriteUrl: 'unknown', warnedRewriteUrl: false }
  Object.defineProperty(fastify, REROUTE_STATE, { value: state, enumerable: false })
  // The second pass keeps the first pass's request id (logs and error bodies show one id).
  // `genReqId` is a public getter of the instance that Fastify's types do not declare.
  const previous = (fastify as unknown as { genReqId: GenReqId }).genReqId
  fastify.setGenReqId(function rerouteAwareReqId(
    this: FastifyInstance,
    req: RawRequestDefaultExpression,
  ): string {
    const record = (req as MarkedRequest)[REROUTED]
    return record !== undefined ? record.id : previous.call(this, req)
  })
  useRootRequestStep(fastify, 'reroute', buildStep(fastify, state), 'restwellReroute')
  return state
}

/**
 * Installs the shared reroute hook on this instance (once; later calls reuse it). Call it on
 * the root instance, before any plugin that answers in a root `onRequest` hook.
 */
export function installReroute(fastify: FastifyInstance): void {
  install(fastify)
}

/**
 * Adds a rewriter to the shared hook, installing the hook if needed. Rewriters of all plugins
 * run in one pass, so a request changed by several of them is rerouted once.
 */
export function addRewriter(fastify: FastifyInstance, entry: RewriterEntry): void {
  const state = install(fastify)
  if (state.rewriters.some((r) => r.name === entry.name)) {
    throw new Error(`@restwell/reroute: a rewriter named "${entry.name}" is already registered`)
  }
  let at = state.rewriters.findIndex((r) => r.order > entry.order)
  if (at === -1) at = state.rewriters.length
  state.rewriters.splice(at, 0, entry)
}

/** The names of the registered rewriters, in the order they run. */
export function rewriterNames(fastify: FastifyInstance): string[] {
  const state = (fastify as unknown as StateHolder)[REROUTE_STATE]
  return state === undefined ? [] : state.rewriters.map((r) => r.name)
}
