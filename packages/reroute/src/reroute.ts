/**
 * The rewrite installed by the code that needs it (method override alone), without a plugin of
 * its own: `installReroute` puts its step where the convention's plugin would.
 */
import { pipelineOf, requestHook } from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'
import { reroute } from './convention.js'
import { claimReroute, type RerouteState, type RewriterEntry, rewriteStep } from './rewriters.js'

/** Installs the rewrite on `fastify` unless it is there: a root `onRequest` hook, or the pipeline's step. */
function install(fastify: FastifyInstance): RerouteState {
  const { state, fresh } = claimReroute(fastify)
  if (!fresh) return state
  const step = rewriteStep(state)
  const pipeline = pipelineOf(fastify)
  if (pipeline !== undefined) pipeline.request.set(reroute, step)
  else fastify.addHook('onRequest', requestHook('restwellReroute', [step]))
  return state
}

/**
 * Installs the shared rewrite on this instance (once; later calls reuse it). Call it on the root
 * instance, before any plugin that answers in a root `onRequest` hook.
 */
export function installReroute(fastify: FastifyInstance): void {
  install(fastify)
}

/** Adds a rewriter to the shared rewrite, installing it if needed. */
export function addRewriter(fastify: FastifyInstance, entry: RewriterEntry): void {
  const state = install(fastify)
  if (state.rewriters.some((r) => r.name === entry.name)) {
    throw new Error(`@restwell/reroute: a rewriter named "${entry.name}" is already registered`)
  }
  let at = state.rewriters.findIndex((r) => r.order > entry.order)
  if (at === -1) at = state.rewriters.length
  state.rewriters.splice(at, 0, entry)
}
