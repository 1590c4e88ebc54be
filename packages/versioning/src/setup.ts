/**
 * Versioning's setup, once per registration: the version constraint, `request.apiVersion` and
 * `API_VERSIONS`, what each route tells (its version, its twin, or a path of the app's own), and
 * the checks once every route is known.
 */
import type { RouteEntry } from '@restwell/core'
import { API_VERSIONS, onEveryRoute, snapshotRoutes } from '@restwell/core/internal'
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify'
import { checkServedVersions, PLUGIN, type ResolvedVersioningOptions } from './options.js'
import { answerableIn, sealRegistry, serveVersion, versionOfRoute } from './registry.js'
import { addVersionConstraint, noteOwnRoute, servedVersion, shareVersionLookup } from './routing.js'
import { createState, type VersioningState } from './state.js'
import { addVersionTwin } from './twins.js'

/** Sets versioning up on `fastify`; returns the state its steps read. */
export function setupVersioning(
  fastify: FastifyInstance,
  options: ResolvedVersioningOptions,
): VersioningState {
  if (fastify.hasPlugin('@restwell/methods')) {
    throw new Error(
      `${PLUGIN}: register it before @restwell/methods, or a request its carriers refuse (400, 406) or its moved paths redirect would answer 405`,
    )
  }
  const state = createState(fastify, options)
  addVersionConstraint(fastify, state)
  fastify.decorateRequest('apiVersion', {
    getter(this: FastifyRequest): number | undefined {
      return servedVersion(state, this)
    },
  })
  fastify.decorateRequest(API_VERSIONS as unknown as string, {
    getter(this: FastifyRequest): ReadonlySet<number> {
      return answerableIn(state.versions, this.apiVersion)
    },
  })
  // Twins are made from the routes' options as first given (see twins.ts).
  snapshotRoutes(fastify)
  onEveryRoute(fastify, function versioningRoute(this: FastifyInstance, route) {
    learnRoute(state, this, route)
  })
  fastify.addHook('onReady', async function versioningReady() {
    sealVersions(state, fastify)
  })
  return state
}

/**
 * What `route` tells: the version it serves (a `versioned()` pair, or a `/v<N>` route, which then
 * gets its unprefixed twin), or, for any other route, a path of the app's own.
 */
function learnRoute(state: VersioningState, instance: FastifyInstance, route: RouteEntry): void {
  const served = versionOfRoute(state.versions, route)
  if (served === undefined) {
    noteOwnRoute(state.routing, route)
    return
  }
  serveVersion(state.versions, served.version, route)
  if (served.paired) {
    if (!served.prefixed) shareVersionLookup(state.routing)
    return
  }
  addVersionTwin(state.twins, instance, route, served.version, `/v${served.version}`.length)
}

/**
 * Once every route is known: the versions' list and default, the methods a resource may have,
 * and the default version and successors checked against the versions with routes.
 */
function sealVersions(state: VersioningState, fastify: FastifyInstance): void {
  state.routing.resourceMethods = fastify.supportedMethods.filter(
    (m) => m !== 'OPTIONS',
  ) as HTTPMethods[]
  const defaultVersion = sealRegistry(state.versions, state.options.defaultVersion)
  // Against the routes found (only supported versions), not the list: a version listed in
  // `versions` without routes can be neither the default nor a successor.
  checkServedVersions(state.options, state.versions.served, defaultVersion)
}
