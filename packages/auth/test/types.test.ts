import { expectTypeOf } from 'expect-type'
import type { FastifyContextConfig, FastifyPluginAsync, FastifyRequest } from 'fastify'
import { test } from 'tap'
import restwellAuthDefault, {
  type AuthOptions,
  type AuthRequirement,
  type HttpsOptions,
  type Principal,
  type PrincipalFrom,
  type RouteAuthConfig,
  restwellAuth,
  type VerifyToken,
} from '../src/index.js'

interface User {
  id: string
  roles: string[]
}

// The augmentation is project-wide, so this test checks the mechanism on a local registry:
// `declare module '@restwell/auth' { interface AuthPrincipalRegistry { principal: User } }`
// makes `Principal` (and so `request.principal`) `User`.
interface UserRegistry {
  principal: User
}

test('types of @restwell/auth', async (t) => {
  expectTypeOf(restwellAuth).toEqualTypeOf<FastifyPluginAsync<AuthOptions>>()
  expectTypeOf(restwellAuthDefault).toEqualTypeOf(restwellAuth)
  expectTypeOf<PrincipalFrom<UserRegistry>>().toEqualTypeOf<User>()
  expectTypeOf<Principal>().toEqualTypeOf<unknown>()
  expectTypeOf<FastifyRequest['principal']>().toEqualTypeOf<unknown>()
  expectTypeOf<AuthOptions['verify']>().toEqualTypeOf<VerifyToken>()
  expectTypeOf<VerifyToken<User>>().parameters.toEqualTypeOf<[string, FastifyRequest]>()
  expectTypeOf<ReturnType<VerifyToken<User>>>().toEqualTypeOf<
    User | null | undefined | false | Promise<User | null | undefined | false>
  >()
  expectTypeOf<AuthOptions['realm']>().toEqualTypeOf<string | undefined>()
  expectTypeOf<AuthOptions['defaultProtected']>().toEqualTypeOf<boolean | undefined>()
  expectTypeOf<AuthOptions['hideRoutes']>().toEqualTypeOf<boolean | undefined>()
  expectTypeOf<AuthOptions['https']>().toEqualTypeOf<HttpsOptions | undefined>()
  expectTypeOf<HttpsOptions>().toEqualTypeOf<{
    required?: boolean
    trustProxy?: boolean
    host?: string
  }>()
  expectTypeOf<AuthRequirement<User>['allow']>().toEqualTypeOf<
    ((principal: User, request: FastifyRequest) => boolean | Promise<boolean>) | undefined
  >()
  expectTypeOf<AuthRequirement<User>['scopes']>().toEqualTypeOf<readonly string[] | undefined>()
  expectTypeOf<FastifyContextConfig['auth']>().toEqualTypeOf<RouteAuthConfig | undefined>()
  expectTypeOf<RouteAuthConfig<User>>().toEqualTypeOf<boolean | AuthRequirement<User>>()
  const typed: AuthOptions<User> = {
    verify: async (token) => (token === 'x' ? { id: 'x', roles: [] } : null),
    requirement: { allow: (user) => user.roles.includes('reader') },
  }
  // @ts-expect-error verify must return the principal type (or null/undefined/false)
  const wrong: AuthOptions<User> = { verify: () => 42 }
  t.ok(typed && wrong)
  t.equal(restwellAuthDefault, restwellAuth)
})
