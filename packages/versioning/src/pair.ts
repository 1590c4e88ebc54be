/**
 * A version's routes come in pairs: at `/v<N>/…`, reached by the path, and unprefixed, reached
 * under the version constraint when `Accept` or `?version=` names the version, or when it is the
 * default one. `versioned()` declares a plugin's routes as a version's.
 */
import type { RouteEntry } from '@restwell/core'
import {
  setScopeRouteDefaults,
  VERSION_PAIR,
  type VersionPair,
  versionPairOf,
} from '@restwell/core/internal'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyPluginCallback,
  FastifyPluginOptions,
} from 'fastify'
import { MAX_VERSION_DIGITS } from './version.js'

/** The routing constraint of a version's unprefixed routes: the version, as a string. */
export const VERSION_CONSTRAINT = 'restwellVersion'

/** `@fastify/swagger` leaves an unprefixed route out of the document: its `/v<N>` route is there. */
export const versionTwinDescription = ({ schema, url }: { schema?: unknown; url: string }) => ({
  schema: { ...(schema as object | undefined), hide: true },
  url,
})

/** `METHOD[,METHOD] url`: a route of one registration met in the other. */
function keyOf(route: RouteEntry, url: string): string {
  return `${[route.method].flat().join(',')} ${url}`
}

/**
 * Registers `plugin` as version `version` of the API: its routes answer at `/v<N>/…`, and for an
 * unprefixed URL whose `Accept` or `?version=` names the version (or that names none, when it is
 * the default one). Use it where you would write `app.register(plugin, { prefix: '/v<N>' })`.
 *
 * The plugin is registered twice, in two scopes of its own: under `/v<N>` (plus `options.prefix`)
 * and unprefixed, where each route is reached under the version constraint. Each scope has the
 * plugin's hooks, decorators and error handler; what the plugin sets up outside Fastify (a
 * connection, a timer) it sets up twice, so pass such things in `options`.
 *
 * Register restwell (or `@restwell/versioning`) first.
 * @example
 * await app.register(restwell)
 * await app.register(versioned(1, booksV1, { db }))
 * await app.register(versioned(2, booksV2, { db }))
 */
export function versioned<Options extends FastifyPluginOptions = Record<never, never>>(
  version: number,
  plugin: FastifyPluginAsync<Options>,
  options?: Options,
): FastifyPluginAsync
export function versioned<Options extends FastifyPluginOptions = Record<never, never>>(
  version: number,
  plugin: FastifyPluginCallback<Options>,
  options?: Options,
): FastifyPluginAsync
export function versioned<Options extends FastifyPluginOptions>(
  version: number,
  plugin: FastifyPluginAsync<Options> | FastifyPluginCallback<Options>,
  options?: Options,
): FastifyPluginAsync {
  if (
    !Number.isSafeInteger(version) ||
    version < 0 ||
    String(version).length > MAX_VERSION_DIGITS
  ) {
    throw new TypeError(
      `versioned(version, plugin): version must be a whole number from 0 to 999999999 (got ${String(version)})`,
    )
  }
  if (typeof plugin !== 'function') {
    throw new TypeError(`versioned(${version}, plugin): plugin must be a Fastify plugin function`)
  }
  const prefix = (options as { prefix?: unknown } | undefined)?.prefix ?? ''
  if (typeof prefix !== 'string' || (prefix !== '' && !prefix.startsWith('/'))) {
    throw new TypeError(
      `versioned(${version}, plugin, options): options.prefix must be a path starting with '/' (got ${JSON.stringify(prefix)})`,
    )
  }
  const at = `/v${version}`
  return async function restwellVersioned(scope: FastifyInstance) {
    if (!scope.hasConstraintStrategy(VERSION_CONSTRAINT)) {
      throw new Error(
        `versioned(${version}, …): register restwell (or @restwell/versioning) before the versions' routes`,
      )
    }
    /** The `/v<N>` routes by method and unprefixed URL: each unprefixed one shares its state. */
    const prefixedRoutes = new Map<string, RouteEntry>()
    await scope.register(async (prefixed) => {
      setScopeRouteDefaults(prefixed, (route) => {
        // A twin made from one of these routes (method override's) carries the mark already.
        if (versionPairOf(route) !== undefined) return
        if (!route.url.startsWith(at)) {
          throw new Error(
            `versioned(${version}, plugin): route ${keyOf(route, route.url)} did not get the prefix ${at}; a plugin wrapped with fastify-plugin ignores prefixes: pass it unwrapped`,
          )
        }
        const mark: VersionPair = { version, prefixed: true }
        route.config = { ...route.config, [VERSION_PAIR]: mark } as typeof route.config
        prefixedRoutes.set(keyOf(route, route.url.slice(at.length) || '/'), route)
      })
      await prefixed.register(plugin, { ...options, prefix: at + prefix } as unknown as Options)
    })
    await scope.register(async (unprefixed) => {
      setScopeRouteDefaults(unprefixed, (route) => {
        if (versionPairOf(route) !== undefined) return
        const mark: VersionPair = {
          version,
          prefixed: false,
          of: prefixedRoutes.get(keyOf(route, route.url)),
        }
        route.constraints = { ...route.constraints, [VERSION_CONSTRAINT]: String(version) }
        route.config = {
          ...route.config,
          [VERSION_PAIR]: mark,
          swaggerTransform: versionTwinDescription,
        } as typeof route.config
      })
      await unprefixed.register(plugin, { ...options, prefix } as unknown as Options)
    })
  }
}
