/**
 * The one before-routing mechanism of restwell: a root `onRequest` hook that lets registered
 * rewriters change the method and URL of a request, and, when one did, routes it afresh.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type {
  FastifyInstance,
  FastifyRequest,
  onRequestHookHandler,
  RawRequestDefaultExpression,
} from 'fastify'

/** What a rewriter may change. Starts as the method and URL the client sent. */
export interface RerouteTarget {
  /** The first-pass request: routed by the method and URL the client sent (`is404` tells). */
  readonly request: FastifyRequest
  /** The method the request will be routed with (upper case). */
  method: string
  /** The URL (path and query) the request will be routed with. */
  url: string
}

/**
 * Changes `target.method` and/or `target.url`, or throws an `HttpError` (sent through the
 * normal error handler, the request is then not rerouted). Runs on the first pass only; it
 * must be cheap when it has nothing to do.
 */
export type Rewriter = (target: RerouteTarget) => void

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
}

/** Key of the shared state on the Fastify instance. */
export const REROUTE_STATE: unique symbol = Symbol.for('restwell.reroute.state')
/** Key of the record on a rerouted raw request: its presence is the loop guard. */
export const REROUTED: unique symbol = Symbol.for('restwell.reroute.record')

type GenReqId = (this: FastifyInstance, req: RawRequestDefaultExpression) => string
type StateHolder = { [REROUTE_STATE]?: RerouteState }
type MarkedRequest = IncomingMessage & { [REROUTED]?: RerouteRecord; originalUrl?: string }

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

function buildHook(fastify: FastifyInstance, state: RerouteState): onRequestHookHandler {
  return function restwellReroute(request, reply, done) {
    const raw = request.raw as MarkedRequest
    // Loop guard: a rerouted request is never rerouted again; rewriters run on the first pass only.
    if (raw[REROUTED] !== undefined) return done()
    const method = raw.method as string
    const url = raw.url as string
    const target: RerouteTarget = { request, method, url }
    try {
      for (const entry of state.rewriters) entry.rewrite(target)
    } catch (error) {
      return done(error as Error)
    }
    if (target.method === method && target.url === url) return done()
    raw[REROUTED] = { method, url, id: request.id }
    if (raw.originalUrl === undefined) raw.originalUrl = url
    raw.method = target.method
    raw.url = target.url
    request.log.debug(
      { rerouted: { from: `${method} ${url}`, to: `${target.method} ${target.url}` } },
      'request rerouted',
    )
    reply.hijack()
    detachFirstPass(reply.raw)
    fastify.routing(raw, reply.raw)
    done()
  }
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
  const state: RerouteState = { rewriters: [] }
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
  fastify.addHook('onRequest', buildHook(fastify, state))
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
