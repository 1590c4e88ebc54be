/**
 * The steps of auth: on every request, HTTPS and, with `hideRoutes`, a token for an unknown
 * path; on a protected route, its requirement.
 */
import type { RequestStep } from '@restwell/core'
import { ANY_VALID_TOKEN, authorize } from './guard.js'
import { isSecure, refuseInsecure } from './https.js'
import type { ResolvedRequirement } from './options.js'
import type { AuthSettings } from './settings.js'

/** The route's guard: 401/403 unless the request meets `requirement`. */
export function guardRoute(settings: AuthSettings, requirement: ResolvedRequirement): RequestStep {
  return function restwellAuth(request) {
    return authorize(settings, request, requirement)
  }
}

/**
 * Before routing decides anything else: plain HTTP is redirected or refused when HTTPS is
 * required; with `hideRoutes`, a client without a valid token learns nothing of unknown paths.
 */
export function guardEveryRequest(settings: AuthSettings): RequestStep {
  const { httpsRequired, hideRoutes, trustProxy, httpsHost } = settings
  return function restwellAuthRoot(request, reply) {
    if (httpsRequired && !isSecure(request, trustProxy)) {
      return refuseInsecure(request, reply, httpsHost) ?? true
    }
    if (!hideRoutes || !request.is404) return undefined
    return authorize(settings, request, ANY_VALID_TOKEN)
  }
}
