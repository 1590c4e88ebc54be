/** Options of `@restwell/auth` and its per-route `config.auth`. */
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { Principal } from './augment.js'
import { HOST_PATTERN } from './https.js'

/** What `verify` may answer: a principal, or null/undefined/false for an invalid token. */
export type VerifyResult<P> = P | null | undefined | false

/** Checks a Bearer token. May throw `InvalidTokenError` (401 with its description) or any `HttpError`. */
export type VerifyToken<P = Principal> = (
  token: string,
  request: FastifyRequest,
) => VerifyResult<P> | Promise<VerifyResult<P>>

/** A route-level permission check on an authenticated principal. */
export type AllowPredicate<P = Principal> = (
  principal: P,
  request: FastifyRequest,
) => boolean | Promise<boolean>

/** What a protected route requires beyond a valid token. */
export interface AuthRequirement<P = Principal> {
  /** Scopes the principal must all hold (RFC 6749 §3.3 scope-tokens). */
  scopes?: readonly string[]
  /** Extra permission check; false → 403. */
  allow?: AllowPredicate<P>
  /** Credentials are checked when present, but their absence is not an error. */
  optional?: boolean
}

/** `config.auth` of a route: false = public, true = the default requirement, or a requirement. */
export type RouteAuthConfig<P = Principal> = boolean | AuthRequirement<P>

export interface HttpsOptions {
  /** Refuse plain HTTP: 308 to https for safe methods, 403 `HTTPS_REQUIRED` otherwise. [false] */
  required?: boolean
  /** Believe `X-Forwarded-Proto` (set true only behind a proxy you control). [false] */
  trustProxy?: boolean
  /** host[:port] put in redirects instead of the request's `Host`. [the Host header] */
  host?: string
}

/**
 * @param verify Checks a Bearer token; returns the principal, or null/undefined/false when the token is invalid. [required]
 * @param realm The `realm` of the `WWW-Authenticate` challenge. ['api']
 * @param defaultProtected Routes without `config.auth` require credentials. [true]
 * @param requirement What every protected route requires unless its `config.auth` says otherwise. [a valid token]
 * @param scopesOf Reads the scopes a principal holds. [`principal.scopes` array, or `principal.scope` space-separated]
 * @param hideRoutes Unknown paths and methods (404/405) require credentials too, so unauthenticated clients learn nothing about which paths exist. [true when defaultProtected]
 * @param https HTTPS enforcement. [not required]
 */
export interface AuthOptions<P = Principal> {
  verify: VerifyToken<P>
  realm?: string
  defaultProtected?: boolean
  requirement?: AuthRequirement<P>
  scopesOf?: (principal: P) => Iterable<string> | undefined
  hideRoutes?: boolean
  https?: HttpsOptions
}

/** RFC 9110 quoted-string content without quote and backslash. */
const REALM_PATTERN = '^[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]{1,100}$'
const SCOPE_PATTERN = '^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,200}$'

export const RequirementSchema = Type.Object(
  {
    scopes: Type.Optional(
      Type.Array(Type.String({ pattern: SCOPE_PATTERN }), { maxItems: 100, uniqueItems: true }),
    ),
    allow: Type.Optional(Type.Function([], Type.Unknown())),
    optional: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

export const AuthOptionsSchema = Type.Object(
  {
    verify: Type.Function([], Type.Unknown()),
    realm: Type.Optional(Type.String({ pattern: REALM_PATTERN })),
    defaultProtected: Type.Optional(Type.Boolean()),
    requirement: Type.Optional(RequirementSchema),
    scopesOf: Type.Optional(Type.Function([], Type.Unknown())),
    hideRoutes: Type.Optional(Type.Boolean()),
    https: Type.Optional(
      Type.Object(
        {
          required: Type.Optional(Type.Boolean()),
          trustProxy: Type.Optional(Type.Boolean()),
          host: Type.Optional(Type.String({ pattern: HOST_PATTERN.source })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

/** A requirement with its defaults applied. */
export interface ResolvedRequirement {
  scopes: readonly string[]
  allow: AllowPredicate<unknown> | undefined
  optional: boolean
}

export interface ResolvedAuthOptions {
  verify: VerifyToken<unknown>
  realm: string
  defaultProtected: boolean
  requirement: ResolvedRequirement
  scopesOf: (principal: unknown) => Iterable<string> | undefined
  hideRoutes: boolean
  httpsRequired: boolean
  trustProxy: boolean
  httpsHost: string | undefined
}

/** Default `scopesOf`: an array `scopes` or an OAuth-style space-separated `scope` claim. */
export function defaultScopesOf(principal: unknown): Iterable<string> | undefined {
  if (typeof principal !== 'object' || principal === null) return undefined
  const { scopes, scope } = principal as { scopes?: unknown; scope?: unknown }
  if (Array.isArray(scopes)) return scopes.filter((s): s is string => typeof s === 'string')
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '')
  return undefined
}

export function resolveRequirement(
  given: AuthRequirement<unknown> | undefined,
  base: ResolvedRequirement | undefined,
): ResolvedRequirement {
  return {
    scopes: given?.scopes ?? base?.scopes ?? [],
    allow: given?.allow ?? base?.allow,
    optional: given?.optional ?? base?.optional ?? false,
  }
}

export function resolveAuthOptions(options: AuthOptions<unknown>): ResolvedAuthOptions {
  const defaultProtected = options.defaultProtected ?? true
  return {
    verify: options.verify,
    realm: options.realm ?? 'api',
    defaultProtected,
    requirement: resolveRequirement(options.requirement, undefined),
    scopesOf: options.scopesOf ?? defaultScopesOf,
    hideRoutes: options.hideRoutes ?? defaultProtected,
    httpsRequired: options.https?.required ?? false,
    trustProxy: options.https?.trustProxy ?? false,
    httpsHost: options.https?.host,
  }
}
