/**
 * What `@restwell/methods` sets on Fastify once per registration: `reply.created`, the refusal
 * of TRACE and CONNECT routes, the methods routed (known at ready), and the not-found handler
 * its step needs in a sub-plugin.
 */
import { asList, REFUSED_METHODS } from '@restwell/core/internal'
import { notFoundInScope } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import { routedMethods } from './allow.js'
import { created } from './created.js'
import type { ResolvedMethodsOptions } from './options.js'
import { type MethodsSettings, PLUGIN } from './settings.js'

/** Throws for a route of a method that is never routed. */
function refuseMethods(route: { method: string | string[]; url: string }): void {
  for (const method of asList(route.method)) {
    if (REFUSED_METHODS.has(method.toUpperCase())) {
      throw new Error(
        `${PLUGIN}: route ${method} ${route.url} refused: TRACE and CONNECT are never routed`,
      )
    }
  }
}

/** Throws when the app has routes of a method that is never routed. */
function refuseRoutedMethods(fastify: FastifyInstance): void {
  for (const method of REFUSED_METHODS) {
    if (!fastify.supportedMethods.includes(method)) continue
    const tree = fastify.printRoutes({ method, commonPrefix: false })
    if (!tree.includes('(empty tree)')) {
      throw new Error(`${PLUGIN}: ${method} routes are refused: they are never routed`)
    }
  }
}

/** Sets the plugin up on `fastify`; returns what its step reads. */
export function setupMethods(
  fastify: FastifyInstance,
  options: ResolvedMethodsOptions,
): MethodsSettings {
  // In a sub-plugin, unmatched requests run this plugin's hooks (405, OPTIONS, 501) only from a
  // not-found handler set in that sub-plugin: one is set, or the registration refused.
  notFoundInScope(fastify, PLUGIN, 'no 405, OPTIONS or 501 there')
  fastify.decorateReply('created', created)
  fastify.addHook('onRoute', refuseMethods)
  const settings: MethodsSettings = {
    ...options,
    fastify,
    judged: Symbol('restwell.methods.judged'),
    routed: undefined,
    known: undefined,
  }
  // A flag on the request, cheaper than a WeakSet entry per not-found request.
  fastify.decorateRequest(settings.judged as unknown as string, false)
  fastify.addHook('onReady', async () => {
    settings.routed = routedMethods(fastify)
    // Routes added at the root before this plugin loaded never reached onRoute: checked here.
    refuseRoutedMethods(fastify)
  })
  return settings
}
