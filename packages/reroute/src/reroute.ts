/**
 * The one request rewrite of restwell: a root `onRequest` hook in which registered rewriters set
 * the method and URL a request stands for once routing has reached the route that serves them
 * (method override's POST twin of a PATCH route, reached under a routing constraint). The
 * request is routed once; what runs after the hook sees the method and URL it stands for.
 */
import type { IncomingMessage } from 'node:http'
import { type RequestStep, useRootRequestStep } from '@restwell/core'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** What a rewriter may change. Starts as the method and URL the client sent. */
export interface RerouteTarget {
  /** The request, as routed (`is404`, `routeOptions`, headers). */
  readonly request: FastifyRequest
  /** The method the request stands for (upper case). */
  method: string
  /** The URL (path and query) the request stands for. */
  url: string
}

/**
 * Changes `target.method` and/or `target.url` to what the route reached serves, or returns (or
 * throws) an `HttpError`, answered through the normal error handler. It must be cheap when it
 * has nothing to do.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a rewriter that only changes the target returns nothing
export type Rewriter = (target: RerouteTarget) => Error | undefined | void

/** A rewriter and where it runs among the others (lower `order` first). */
export interface RewriterEntry {
  /** Unique name, e.g. the plugin's (`@restwell/method-override`). */
  readonly name: string
  /** Position among rewriters: lower runs first. Method override uses 10. */
  readonly order: number
  readonly rewrite: Rewriter
}

/** The method and URL a rewritten request arrived with, and its request id. */
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
/** Key of the record on a rewritten raw request. */
export const REROUTED: unique symbol = Symbol.for('restwell.reroute.record')

type StateHolder = { [REROUTE_STATE]?: RerouteState }
type MarkedRequest = IncomingMessage & { [REROUTED]?: RerouteRecord; originalUrl?: string }

/** The method and URL a request arrived with when a rewriter changed them, else undefined. */
export function reroutedFrom(request: FastifyRequest | IncomingMessage): RerouteRecord | undefined {
  const raw = ('raw' in request ? request.raw : request) as MarkedRequest
  return raw[REROUTED]
}

function buildStep(state: RerouteState): RequestStep {
  return function restwellReroute(request) {
    const raw = request.raw as MarkedRequest
    const method = raw.method as string
    const url = raw.url as string
    const target: RerouteTarget = { request, method, url }
    for (const entry of state.rewriters) {
      const refused = entry.rewrite(target)
      if (refused instanceof Error) return refused
    }
    if (target.method === method && target.url === url) return undefined
    raw[REROUTED] = { method, url, id: request.id }
    // The URL the client sent (Fastify's `rewriteUrl` put it in `originalUrl`, or nothing did),
    // read by `request.originalUrl` when first asked for.
    raw.originalUrl ??= url
    raw.method = target.method
    raw.url = target.url
    return undefined
  }
}

/**
 * Plugins that answer not-found requests in a root `onRequest` hook (405, OPTIONS). Their hook
 * must run after the rewrite hook, or they would answer for the method the client sent.
 */
export const ANSWER_IN_ON_REQUEST: readonly string[] = ['@restwell/methods']

function install(fastify: FastifyInstance): RerouteState {
  const holder = fastify as unknown as StateHolder
  const existing = holder[REROUTE_STATE]
  if (existing !== undefined) return existing
  for (const name of ANSWER_IN_ON_REQUEST) {
    if (fastify.hasPlugin(name)) {
      throw new Error(
        `@restwell/reroute: register method override (or @restwell/reroute) before ${name}: its onRequest hook would answer for the method the client sent`,
      )
    }
  }
  const state: RerouteState = { rewriters: [] }
  Object.defineProperty(fastify, REROUTE_STATE, { value: state, enumerable: false })
  useRootRequestStep(fastify, 'reroute', buildStep(state), 'restwellReroute')
  return state
}

/**
 * Installs the shared rewrite hook on this instance (once; later calls reuse it). Call it on
 * the root instance, before any plugin that answers in a root `onRequest` hook.
 */
export function installReroute(fastify: FastifyInstance): void {
  install(fastify)
}

/** Adds a rewriter to the shared hook, installing the hook if needed. */
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
