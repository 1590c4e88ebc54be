/** @restwell/auth: Bearer authentication (RFC 6750), per-route scopes and predicates, HTTPS enforcement. */
import './augment.js'
import { restwellAuth } from './plugin.js'

export type { AuthPrincipalRegistry, Principal, PrincipalFrom } from './augment.js'
export {
  countAuthorizationLines,
  type ParsedAuthorization,
  parseAuthorization,
} from './authorization.js'
export { type BearerChallenge, type BearerErrorCode, formatChallenge } from './challenge.js'
export { InvalidTokenError, isInvalidTokenError } from './invalid-token.js'
export {
  type AllowPredicate,
  type AuthOptions,
  AuthOptionsSchema,
  type AuthRequirement,
  type HttpsOptions,
  type RouteAuthConfig,
  type VerifyResult,
  type VerifyToken,
} from './options.js'
export { auth } from './convention.js'
export { restwellAuth }
export default restwellAuth
