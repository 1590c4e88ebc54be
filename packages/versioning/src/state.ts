/**
 * What one registration of versioning knows, made in its setup and passed to every step: its
 * options, its versions, the app's own unprefixed routes, the twins it has added.
 */
import type { FastifyInstance } from 'fastify'
import type { ResolvedVersioningOptions } from './options.js'
import { createRegistry, type VersionRegistry } from './registry.js'
import { createRouting, type UnprefixedRouting } from './routing.js'
import { createTwinLedger, type TwinLedger } from './twins.js'

/** The settings of versioning's steps: written as routes are added and when ready, read per request. */
export interface VersioningState {
  readonly options: ResolvedVersioningOptions
  readonly versions: VersionRegistry
  readonly routing: UnprefixedRouting
  readonly twins: TwinLedger
}

/** The state of a registration on `fastify` with `options`, before any route is seen. */
export function createState(
  fastify: FastifyInstance,
  options: ResolvedVersioningOptions,
): VersioningState {
  return {
    options,
    versions: createRegistry(options.versions),
    routing: createRouting(fastify),
    twins: createTwinLedger(fastify, options),
  }
}
