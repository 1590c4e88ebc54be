/** Type augmentation of Fastify for `@restwell/auth`. */
import type { RouteAuthConfig } from './options.js'

/**
 * Augment this interface to type the principal your `verify` returns:
 * `declare module '@restwell/auth' { interface AuthPrincipalRegistry { principal: User } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an augmentation point, empty until the user fills it
export interface AuthPrincipalRegistry {}

/** The `principal` a registry declares, else `unknown`. */
export type PrincipalFrom<R> = R extends { principal: infer P } ? P : unknown

/** The principal type: `AuthPrincipalRegistry['principal']` once augmented, else `unknown`. */
export type Principal = PrincipalFrom<AuthPrincipalRegistry>

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request is from: what `verify` returned; undefined on public routes and without credentials. */
    principal: Principal | undefined
  }
  interface FastifyContextConfig {
    /** false: public; true: the plugin's default requirement; or the route's own requirement. */
    auth?: RouteAuthConfig
  }
}
