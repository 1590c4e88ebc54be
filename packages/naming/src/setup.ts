/** The check of every route's path when it is added: a warning, or an error in `error` mode. */
import type { RouteEntry } from '@restwell/core'
import { developerWarning, onEveryRoute } from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'
import { NamingError } from './naming-error.js'
import type { ResolvedNamingOptions } from './options.js'
import { checkRouteName, isExcluded } from './rules.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/naming'

/** Checks the path of `route` (each path once, whatever its methods: GET, its HEAD, ...). */
export function checkRoute(
  fastify: FastifyInstance,
  options: ResolvedNamingOptions,
  checked: Set<string>,
  route: RouteEntry,
): void {
  if (route.config?.naming === false) return
  const url = route.url
  if (checked.has(url) || isExcluded(url, options)) return
  checked.add(url)
  const violations = checkRouteName(url, options)
  if (violations.length === 0) return
  if (options.mode === 'error') throw new NamingError(url, violations)
  for (const violation of violations) {
    // On the logger, and as a Node warning when no logger shows it (Fastify's default).
    developerWarning(
      fastify.log,
      'RESTWELL_ROUTE_NAMING',
      `${PLUGIN}: route ${url} breaks "${violation.rule}": ${violation.message}`,
      { route: url, rule: violation.rule, segment: violation.segment },
    )
  }
}

/** Checks every route added to `fastify`, those added before included, unless `mode` is off. */
export function setupNaming(
  fastify: FastifyInstance,
  options: ResolvedNamingOptions,
): ResolvedNamingOptions {
  if (options.mode === 'off') return options
  const checked = new Set<string>()
  onEveryRoute(fastify, (route) => checkRoute(fastify, options, checked, route))
  return options
}
