/**
 * The one request rewrite of restwell: registered rewriters set the method and URL a request
 * stands for once routing has reached the route that serves them (method override's POST twin
 * of a PATCH route, reached under a routing constraint). The request is routed once; what runs
 * after the rewrite sees the method and URL it stands for.
 */
import type { IncomingMessage } from 'node:http'
import type { RequestStep } from '@restwell/core'
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

/** The rewriters of one app, shared by every copy of this module (hence `Symbol.for`). */
export interface RerouteState {
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

/** The request step: every rewriter in order, then the method and URL set in place. */
export function rewriteStep(state: RerouteState): RequestStep {
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
 * must run after the rewrite, or they would answer for the method the client sent.
 */
export const ANSWER_IN_ON_REQUEST: readonly string[] = ['@restwell/methods']

/** The rewriters of `fastify`, if the rewrite is installed there. */
export function rerouteStateOf(fastify: FastifyInstance): RerouteState | undefined {
  return (fastify as unknown as StateHolder)[REROUTE_STATE]
}

/**
 * The rewriters of `fastify`: those of the rewrite installed there (`fresh: false`), or a new
 * list the caller installs the step of, refused after a plugin that answers in `onRequest`.
 */
export function claimReroute(fastify: FastifyInstance): { state: RerouteState; fresh: boolean } {
  const existing = rerouteStateOf(fastify)
  if (existing !== undefined) return { state: existing, fresh: false }
  for (const name of ANSWER_IN_ON_REQUEST) {
    if (fastify.hasPlugin(name)) {
      throw new Error(
        `@restwell/reroute: register method override (or @restwell/reroute) before ${name}: its onRequest hook would answer for the method the client sent`,
      )
    }
  }
  const state: RerouteState = { rewriters: [] }
  Object.defineProperty(fastify, REROUTE_STATE, { value: state, enumerable: false })
  return { state, fresh: true }
}

/** The names of the registered rewriters, in the order they run. */
export function rewriterNames(fastify: FastifyInstance): string[] {
  return rerouteStateOf(fastify)?.rewriters.map((r) => r.name) ?? []
}
