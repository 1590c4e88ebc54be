/**
 * What `@restwell/auth` sets on Fastify once per registration: the `principal` decoration, the
 * checks of its place among the plugins, the refusal of routes it cannot reach, and, with
 * `hideRoutes`, the challenge on unknown paths (an `onError` hook, challenge-hook.ts).
 */
import { type RouteEntry, routeName } from '@restwell/core'
import { refuseUnguardedRoutes } from '@restwell/core/internal'
import { notFoundInScope, OptionsError } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import { challengeHook, challengeUnknownPaths } from './challenge-hook.js'
import type { ResolvedAuthOptions } from './options.js'
import { type AuthSettings, authSettings, PLUGIN } from './settings.js'

/** What the steps and the route hooks read: the settings, and the route's `onError` hook. */
export interface AuthSetup extends AuthSettings {
  readonly challenge: ReturnType<typeof challengeHook>
}

/** The refusal of routes asking for authentication out of this plugin's reach, with the fix. */
function outOfReach(routes: readonly RouteEntry[]): OptionsError {
  return new OptionsError(
    PLUGIN,
    'config.auth',
    `of ${routes.map(routeName).join(', ')} asks for authentication, but the route is out of the reach of @restwell/auth (declared outside the plugin it was registered in, or in a plugin that loaded before it), so nothing checks it and it would be public. Register @restwell/auth at the root, before the plugins that declare routes, or wrap the plugin that registers it with \`fastify-plugin\`.`,
  )
}

/** Sets the plugin up on `fastify`; returns what its steps read. */
export function setupAuth(fastify: FastifyInstance, options: ResolvedAuthOptions): AuthSetup {
  const { hideRoutes, httpsRequired } = options
  // Methods' step would answer 405 + Allow and OPTIONS 200 + Allow to anonymous clients
  // before this plugin's hideRoutes step runs.
  if (hideRoutes && fastify.hasPlugin('@restwell/methods')) {
    throw new OptionsError(
      PLUGIN,
      'hideRoutes',
      'needs @restwell/auth registered before @restwell/methods (its 405 and OPTIONS answers would reveal paths and methods to anonymous clients): register @restwell/auth first, or set hideRoutes: false',
    )
  }
  // Unknown paths in a sub-plugin run the root step only from a not-found handler set in that
  // sub-plugin: one is set, or the registration refused.
  if (hideRoutes || httpsRequired) {
    notFoundInScope(fastify, PLUGIN, 'hideRoutes and https.required would not reach unknown paths')
  }
  fastify.decorateRequest('principal', undefined)
  const settings = authSettings(options)
  const challenge = challengeHook(settings)
  // A route asking for authentication that this plugin's scope does not reach would be public.
  refuseUnguardedRoutes(fastify, outOfReach)
  if (hideRoutes) challengeUnknownPaths(fastify, challenge)
  return { ...settings, challenge }
}
