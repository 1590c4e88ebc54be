/** The `@restwell/auth` plugin: Bearer credentials (RFC 6750), scopes, HTTPS enforcement. */
import {
  ErrorCode,
  errorStatus,
  HttpError,
  httpErrors,
  isHttpError,
  notFoundInScope,
  OptionsError,
  statusCode,
  validateOptions,
} from '@restwell/errors'
import {
  asList,
  AUTHENTICATES,
  onEveryRoute,
  refuseUnguardedRoutes,
  registerOnce,
  type RequestStep,
  type RouteEntry,
  routeName,
  useRootRequestStep,
  useRouteStep,
} from '@restwell/core'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onErrorHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
import { countAuthorizationLines, parseAuthorization } from './authorization.js'
import { formatChallenge, hasChallenge } from './challenge.js'
import { httpsLocation, isSecure, SAFE_METHODS } from './https.js'
import { isInvalidTokenError } from './invalid-token.js'
import {
  type AuthOptions,
  AuthOptionsSchema,
  type ResolvedRequirement,
  RequirementSchema,
  type RouteAuthConfig,
  resolveAuthOptions,
  resolveRequirement,
} from './options.js'

const PLUGIN = '@restwell/auth'
const DEFAULT_INVALID = 'The access token is invalid or has expired'
/** Unknown paths require a valid token and nothing more. */
const ANY_VALID_TOKEN: ResolvedRequirement = { scopes: [], allow: undefined, optional: false }
/** The code `httpErrors.unauthorized()` gets when given none. */
const UNAUTHORIZED_CODE = statusCode(401)

type RouteConfig = { auth?: RouteAuthConfig<unknown> } & Record<string, unknown>

const plugin: FastifyPluginAsync<AuthOptions> = async (fastify, rawOptions) => {
  registerOnce(fastify, '@restwell/auth', 'auth')
  const options = resolveAuthOptions(
    validateOptions(PLUGIN, AuthOptionsSchema, rawOptions) as unknown as AuthOptions<unknown>,
  )
  const { realm, verify, scopesOf, httpsRequired, hideRoutes, trustProxy, httpsHost } = options

  // Hooks run in the order they were added: methods' would answer 405 + Allow and OPTIONS
  // 200 + Allow to anonymous clients before this plugin's hideRoutes hook runs.
  if (hideRoutes && fastify.hasPlugin('@restwell/methods')) {
    throw new OptionsError(
      PLUGIN,
      'hideRoutes',
      'needs @restwell/auth registered before @restwell/methods (its 405 and OPTIONS answers would reveal paths and methods to anonymous clients): register @restwell/auth first, or set hideRoutes: false',
    )
  }
  // Unknown paths in a sub-plugin run the root hook below only from a not-found handler set in
  // that sub-plugin: one is set, or the registration refused.
  if (hideRoutes || httpsRequired) {
    notFoundInScope(fastify, PLUGIN, 'hideRoutes and https.required would not reach unknown paths')
  }

  fastify.decorateRequest('principal', undefined)

  const plainChallenge = formatChallenge({ realm })
  const missingHeaders = { 'www-authenticate': plainChallenge }

  function missingCredentials(): HttpError {
    return httpErrors.unauthorized(
      'Authentication required: send a Bearer token in the Authorization header',
      { code: ErrorCode.MISSING_CREDENTIALS, headers: missingHeaders },
    )
  }

  function malformed(reason: string): HttpError {
    return httpErrors.badRequest(`Malformed Authorization header: ${reason}`, {
      code: ErrorCode.MALFORMED_CREDENTIALS,
      headers: {
        'www-authenticate': formatChallenge({
          realm,
          error: 'invalid_request',
          description: reason,
        }),
      },
    })
  }

  function invalidToken(description: string): HttpError {
    return httpErrors.unauthorized(description, {
      code: ErrorCode.INVALID_TOKEN,
      headers: {
        'www-authenticate': formatChallenge({ realm, error: 'invalid_token', description }),
      },
    })
  }

  /**
   * A 401 `HttpError` from `verify` without a challenge (RFC 9110 §15.5.2: a 401 MUST carry
   * `WWW-Authenticate`): the same error with the `invalid_token` challenge added, describing
   * it by its message when that may be shown; the status's default code becomes ours.
   */
  function challenged(error: HttpError): HttpError {
    const description = (error.expose && error.message) || DEFAULT_INVALID
    return new HttpError(401, error.message, {
      code: error.code === UNAUTHORIZED_CODE ? ErrorCode.INVALID_TOKEN : error.code,
      details: error.details,
      headers: {
        ...error.headers,
        'www-authenticate': formatChallenge({ realm, error: 'invalid_token', description }),
      },
      cause: error.cause,
      expose: error.expose,
    })
  }

  function insufficient(requirement: ResolvedRequirement, message: string): HttpError {
    return httpErrors.forbidden(message, {
      code: ErrorCode.INSUFFICIENT_SCOPE,
      headers: {
        'www-authenticate': formatChallenge({
          realm,
          error: 'insufficient_scope',
          description: message,
          scopes: requirement.scopes,
        }),
      },
    })
  }

  /**
   * Authenticates, then authorizes, the request against one requirement: resolves to the
   * HttpError that refuses it (returned, not thrown: refusals are the common case), or undefined.
   */
  async function guard(
    request: FastifyRequest,
    requirement: ResolvedRequirement,
  ): Promise<HttpError | undefined> {
    const header = request.headers.authorization
    const parsed = parseAuthorization(header)
    if (parsed.kind === 'malformed') return malformed(parsed.reason)
    if (parsed.kind !== 'none' && countAuthorizationLines(request.raw.rawHeaders) > 1) {
      return malformed('several Authorization headers')
    }
    if (parsed.kind !== 'bearer') {
      return requirement.optional ? undefined : missingCredentials()
    }
    let principal: unknown
    try {
      principal = await verify(parsed.token, request)
    } catch (error) {
      if (isInvalidTokenError(error)) return invalidToken(error.message || DEFAULT_INVALID)
      if (isHttpError(error) && error.statusCode === 401 && !hasChallenge(error.headers)) {
        return challenged(error)
      }
      throw error
    }
    if (principal === null || principal === undefined || principal === false) {
      return invalidToken(DEFAULT_INVALID)
    }
    request.principal = principal as FastifyRequest['principal']
    if (requirement.scopes.length > 0) {
      const held = new Set(scopesOf(principal) ?? [])
      const lacking = requirement.scopes.filter((scope) => !held.has(scope))
      if (lacking.length > 0) {
        return insufficient(
          requirement,
          `Insufficient scope: requires ${requirement.scopes.join(' ')}`,
        )
      }
    }
    if (requirement.allow !== undefined && (await requirement.allow(principal, request)) !== true) {
      return insufficient(requirement, 'The credentials do not permit this request')
    }
    return undefined
  }

  function routeGuard(requirement: ResolvedRequirement): RequestStep {
    return (request) => guard(request, requirement)
  }

  /** The route's requirement; null for a public route. Throws on an invalid `config.auth`. */
  function requirementOf(
    config: RouteConfig | undefined,
    route: string,
  ): ResolvedRequirement | null {
    const auth = config?.auth
    if (auth === false) return null
    if (auth === undefined) return options.defaultProtected ? options.requirement : null
    if (auth === true) return options.requirement
    validateOptions(`${PLUGIN}: route ${route} config.auth`, RequirementSchema, auth)
    return resolveRequirement(auth, options.requirement)
  }

  /**
   * A protected route's own 401 (`throw httpErrors.unauthorized('Session expired')` in its
   * handler) gets the plain challenge when it has none: RFC 9110 §15.5.2. Runs on errors only.
   */
  const addChallenge: onErrorHookHandler = function restwellAuthChallenge(
    _request,
    reply,
    error,
    done,
  ) {
    if (
      errorStatus(error, reply.statusCode) === 401 &&
      !reply.hasHeader('www-authenticate') &&
      !hasChallenge((error as { headers?: unknown }).headers)
    ) {
      reply.header('www-authenticate', plainChallenge)
    }
    done()
  }

  // Routes added before this plugin loaded are set up alike (`onEveryRoute`).
  onEveryRoute(fastify, function restwellAuthRoute(this: FastifyInstance, route) {
    const config = route.config as RouteConfig | undefined
    const requirement = requirementOf(config, routeName(route))
    if (requirement === null)
      return // The answer depends on the credentials: cache-control makes it private and varies on them.
    ;(route as { [AUTHENTICATES]?: boolean })[AUTHENTICATES] = true
    // Before the route's own onRequest hooks: they see an authenticated request.
    useRouteStep(this, route, 'guard', 'auth', routeGuard(requirement), {
      where: 'first',
      hookName: 'restwellAuth',
    })
    route.onError = [...asList(route.onError), addChallenge]
  })

  // A route asking for authentication that this plugin's scope does not reach would be public.
  refuseUnguardedRoutes(fastify, outOfReach)

  if (!hideRoutes && !httpsRequired) return

  // With hideRoutes an unknown path is protected like a route: a 401 answered there by an
  // earlier hook (a rate limit's keyGenerator that demands credentials) gets the challenge too.
  if (hideRoutes) {
    fastify.addHook('onError', function restwellAuthHiddenChallenge(request, reply, error, done) {
      if (request.is404) addChallenge.call(this, request, reply, error, done)
      else done()
    })
  }

  function refuseInsecure(request: FastifyRequest, reply: FastifyReply): HttpError | undefined {
    const location = SAFE_METHODS.has(request.method)
      ? httpsLocation(request, httpsHost)
      : undefined
    if (location === undefined) {
      return httpErrors.forbidden(
        'This API is served over HTTPS only: repeat the request with https://',
        {
          code: ErrorCode.HTTPS_REQUIRED,
        },
      )
    }
    reply.code(308).header('location', location).send()
    return undefined
  }

  useRootRequestStep(
    fastify,
    'auth',
    function restwellAuthRoot(request, reply) {
      if (httpsRequired && !isSecure(request, trustProxy)) {
        const refusal = refuseInsecure(request, reply)
        return refusal ?? true
      }
      // Unknown paths: with hideRoutes, a client without a valid token learns nothing of them.
      if (!hideRoutes || !request.is404) return undefined
      return guard(request, ANY_VALID_TOKEN)
    },
    'restwellAuthRoot',
  )
}

/** The refusal of routes asking for authentication out of this plugin's reach, with the fix. */
function outOfReach(routes: readonly RouteEntry[]): OptionsError {
  return new OptionsError(
    PLUGIN,
    'config.auth',
    `of ${routes.map(routeName).join(', ')} asks for authentication, but the route is out of the reach of @restwell/auth (declared outside the plugin it was registered in, or in a plugin that loaded before it), so nothing checks it and it would be public. Register @restwell/auth at the root, before the plugins that declare routes, or wrap the plugin that registers it with \`fastify-plugin\`.`,
  )
}

/** The `@restwell/auth` plugin. */
export const restwellAuth: FastifyPluginAsync<AuthOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/auth',
})
