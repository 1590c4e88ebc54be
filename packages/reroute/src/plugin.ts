/** The `@restwell/reroute` plugin: installs the shared before-routing hook at this point of the chain. */
import { validateOptions } from '@restwell/errors'
import { type Static, Type } from '@sinclair/typebox'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { installReroute } from './reroute.js'

export const RerouteOptionsSchema = Type.Object({}, { additionalProperties: false })

/** `@restwell/reroute` takes no options. */
export type RerouteOptions = Static<typeof RerouteOptionsSchema>

const plugin: FastifyPluginAsync<RerouteOptions> = async (fastify, options) => {
  validateOptions('@restwell/reroute', RerouteOptionsSchema, options)
  installReroute(fastify)
}

/**
 * Registers the shared reroute hook now, so that it runs before the `onRequest` hooks of
 * plugins registered later. Optional: method override and versioning install it themselves.
 *
 * @example
 * await app.register(restwellReroute)
 */
export const restwellReroute: FastifyPluginAsync<RerouteOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/reroute',
})
