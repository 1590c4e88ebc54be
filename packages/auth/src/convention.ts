/** The auth convention: Bearer credentials (RFC 6750), scopes, HTTPS enforcement. */
import { defineConvention } from '@restwell/core'
import { AUTHENTICATES, asList } from '@restwell/core/internal'
import { validateOptions } from '@restwell/errors'
import {
  type AuthOptions,
  AuthOptionsSchema,
  type AuthRequirement,
  resolveAuthOptions,
} from './options.js'
import { describeAuth } from './describe.js'
import { routeRequirement } from './requirement.js'
import { PLUGIN } from './settings.js'
import { setupAuth } from './setup.js'
import { guardEveryRequest, guardRoute } from './steps.js'

/**
 * Authentication (spec 5): a Bearer token checked by the app's `verify` on every protected
 * route (401 + `WWW-Authenticate`, RFC 6750 §3), scopes and predicates (403), unknown paths
 * hidden from anonymous clients (`hideRoutes`), plain HTTP redirected or refused (`https`).
 */
export const auth = defineConvention({
  name: 'auth',
  plugin: PLUGIN,
  phases: ['request', 'guard'],
  options: (raw: AuthOptions) =>
    resolveAuthOptions(
      validateOptions(PLUGIN, AuthOptionsSchema, raw) as unknown as AuthOptions<unknown>,
    ),
  setup: setupAuth,
  app: (settings) =>
    settings.hideRoutes || settings.httpsRequired ? { request: guardEveryRequest(settings) } : {},
  route: ({ route, config, name }, settings) => {
    const requirement = routeRequirement(
      settings,
      config as true | AuthRequirement<unknown> | undefined,
      name,
    )
    if (requirement === null) return undefined
    // The answer depends on the credentials: cache-control makes it private and varies on them.
    Object.assign(route, { [AUTHENTICATES]: true })
    route.onError = [...asList(route.onError), settings.challenge]
    return { guard: guardRoute(settings, requirement) }
  },
  contributes: () => ({
    // Not CORS-safelisted, nor covered by `Access-Control-Allow-Headers: *` (Fetch standard).
    requestHeaders: ['authorization'],
    responseHeaders: ['www-authenticate'],
  }),
  describe: ({ config, name }, settings) => {
    const requirement = routeRequirement(
      settings,
      config as true | AuthRequirement<unknown> | undefined,
      name,
    )
    return requirement === null ? undefined : describeAuth(requirement.scopes)
  },
  // Alone, before the route's own onRequest hooks: they see an authenticated request.
  alone: { guard: 'first' },
})
