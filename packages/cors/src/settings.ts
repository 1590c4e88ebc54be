/**
 * What the CORS steps read, decided once: the origin rule, and the header values a preflight and
 * an actual request get, made from the options and what the app's conventions contribute.
 */
import {
  type Contributions,
  optionNaming,
  RegistrationError,
  type RouteEntry,
  type SetupContext,
} from '@restwell/core'
import { declareState, refuseBeside, routeConfigReader } from '@restwell/core/internal'
import { OptionsError } from '@restwell/errors'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import {
  DEFAULT_ALLOWED_HEADERS,
  DEFAULT_EXPOSED_HEADERS,
  type ResolvedCorsOptions,
} from './options.js'
import { preflightTargetCors, queryRouteOf } from './preflight-target.js'
import { EXPOSE_PENDING } from './steps.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/cors'

/** The header values, joined once. */
export interface CorsHeaders {
  /** `Access-Control-Expose-Headers`. */
  readonly exposedHeaders: string
  /** The headers a preflight from an allowed origin gets. */
  readonly preflightHeaders: Readonly<Record<string, string>>
  /** `Access-Control-Allow-Methods` of a preflight for a QUERY a route takes: QUERY added. */
  readonly queryMethods: string
}

/** What the steps read. */
export interface CorsSettings {
  /** `Access-Control-Allow-Origin` for a request's `Origin`, or false: no CORS headers. */
  readonly allowOrigin: (origin: string) => string | false
  /**
   * The answer depends on `Origin` (a list, a RegExp, reflection): `Vary: Origin`. False for
   * `'*'`, sent to every request then, and for `false`.
   */
  readonly varies: boolean
  /** Send `Access-Control-Allow-Credentials: true` with an allowed origin. */
  readonly credentials: boolean
  /** The header values, made on first use: once every convention of the app is installed. */
  readonly headers: () => CorsHeaders
  /**
   * Under a pipeline: a route's answers get the route's own `Access-Control-Expose-Headers` from
   * its send step (`routeExposedHeaders`), not the app's from the request step.
   */
  readonly perRoute: boolean
  /**
   * `Access-Control-Expose-Headers` of one route's answers: the response headers its conventions
   * may send there, and the option's; the app's list alone.
   */
  readonly routeExposedHeaders: (instance: FastifyInstance, route: RouteEntry) => string
  /** The request's route's `config.cors` (`false`: opted out). */
  readonly routeCors: (request: FastifyRequest) => unknown
  /** Whether the route a preflight asks about allows CORS. */
  readonly preflightCors: (request: FastifyRequest) => boolean
  /** Whether the path of a preflight has a QUERY route. */
  readonly queryRoute: (request: FastifyRequest) => boolean
}

/** Whether `origin` lets any origin in (`'*'`, `true`, or a list holding `'*'`). */
function anyOrigin(origin: ResolvedCorsOptions['origin']): boolean {
  return origin === '*' || origin === true || (Array.isArray(origin) && origin.includes('*'))
}

/** The allowed-origin rule: `'*'`, one origin, a list, a RegExp, or `true` to reflect any. */
export function originRule(origin: ResolvedCorsOptions['origin']): CorsSettings['allowOrigin'] {
  if (origin === true) return (requested) => requested
  if (anyOrigin(origin)) return () => '*'
  if (origin === false) return () => false
  if (origin instanceof RegExp) {
    return (requested) => {
      origin.lastIndex = 0
      return origin.test(requested) ? requested : false
    }
  }
  const listed = new Set(Array.isArray(origin) ? origin : [origin])
  return (requested) => (listed.has(requested) ? requested : false)
}

/** Each name once, case-insensitively, where it first came, spelled as it last came. */
function unique(list: readonly string[]): string[] {
  return [...new Map(list.map((name) => [name.toLowerCase(), name])).values()]
}

/**
 * The header values: the default request headers, those the app's conventions read and the
 * option's; the response headers the conventions send (alone, every default one) and the
 * option's.
 */
export function corsHeaders(
  options: ResolvedCorsOptions,
  contributed: Contributions,
  alone: boolean,
): CorsHeaders {
  const exposed = exposedList(options, contributed.responseHeaders, alone)
  const allowed = [
    ...DEFAULT_ALLOWED_HEADERS,
    ...contributed.requestHeaders,
    ...options.allowedHeaders,
  ]
  return {
    exposedHeaders: exposed,
    queryMethods: unique([...options.methods, 'QUERY']).join(', '),
    preflightHeaders: {
      'access-control-allow-methods': options.methods.join(', '),
      'access-control-allow-headers': unique(allowed).join(', '),
      'access-control-max-age': String(options.maxAge),
      'cache-control': 'no-store',
    },
  }
}

/** `Access-Control-Expose-Headers`: the defaults alone, the response headers sent, the option's. */
function exposedList(
  options: ResolvedCorsOptions,
  sent: readonly string[],
  alone: boolean,
): string {
  return unique([
    ...(alone ? DEFAULT_EXPOSED_HEADERS : []),
    ...sent,
    ...options.exposedHeaders,
  ]).join(', ')
}

/** The refusal of `@fastify/cors` beside this plugin. */
function twoCors(when: 'before' | 'after'): RegistrationError {
  return new RegistrationError(
    `${PLUGIN}: @fastify/cors is registered ${when} it: both would answer CORS requests and preflights. Register one of them.`,
  )
}

/**
 * Checks the options (credentials need named origins), and, alone, that `@fastify/cors` is not
 * there too; returns what the steps read.
 */
export function setupCors(
  fastify: FastifyInstance,
  options: ResolvedCorsOptions,
  context: SetupContext,
): CorsSettings {
  const { origin, credentials } = options
  // A credentialed request fails its CORS check when Access-Control-Allow-Origin is '*'.
  if (credentials && anyOrigin(origin)) {
    const naming = optionNaming({ name: 'cors', plugin: PLUGIN }, context)
    throw new OptionsError(
      naming.plugin,
      naming.option('origin'),
      `must name the allowed origins when ${naming.option('credentials')} is true (not '*', true or a list holding '*': a browser refuses '*' with credentials, and reflecting every origin lets any site read a user's data)`,
    )
  }
  if (!context.pipeline) refuseBeside(fastify, '@fastify/cors', twoCors)
  declareState(fastify, 'reply', EXPOSE_PENDING)
  let headers: CorsHeaders | undefined
  const headersOf = (): CorsHeaders => {
    headers ??= corsHeaders(options, context.contributions(), !context.pipeline)
    return headers
  }
  const routeHeaders = context.routeResponseHeaders
  return {
    allowOrigin: originRule(origin),
    varies: origin !== false && (!anyOrigin(origin) || origin === true),
    credentials,
    headers: headersOf,
    perRoute: routeHeaders !== undefined,
    routeExposedHeaders: (instance, route) =>
      routeHeaders === undefined
        ? headersOf().exposedHeaders
        : exposedList(options, routeHeaders(instance, route), false),
    routeCors: routeConfigReader(fastify, 'cors'),
    preflightCors: preflightTargetCors(fastify, options.methodOverride),
    queryRoute: queryRouteOf(fastify),
  }
}
