/** The `@restwell/naming` plugin: every route's path checked against the naming rules when registered. */
import { validateOptions } from '@restwell/errors'
import { developerWarning, onEveryRoute, registerOnce } from '@restwell/core'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { type NamingOptions, NamingOptionsSchema, resolveNamingOptions } from './options.js'
import { checkRouteName, isExcluded, type NamingViolation } from './rules.js'

/** Thrown in `error` mode when a route breaks a naming rule. */
export class NamingError extends Error {
  override readonly name: string = 'NamingError'
  readonly code: string = 'RESTWELL_ROUTE_NAMING'
  /** The route's path as registered. */
  readonly route: string
  readonly violations: readonly NamingViolation[]

  constructor(route: string, violations: readonly NamingViolation[]) {
    super(
      `@restwell/naming: route ${route} breaks ${violations
        .map((v) => `"${v.rule}": ${v.message}`)
        .join('; ')}`,
    )
    this.route = route
    this.violations = violations
  }
}

const plugin: FastifyPluginAsync<NamingOptions> = async (fastify, rawOptions) => {
  // It checks routes as they are added: it may come after the umbrella.
  registerOnce(fastify, '@restwell/naming', 'naming', { steps: false })
  const options = resolveNamingOptions(
    validateOptions('@restwell/naming', NamingOptionsSchema, rawOptions),
  )
  if (options.mode === 'off') return
  /** Each path is checked once, whatever its methods (GET, the HEAD Fastify adds, ...). */
  const checked = new Set<string>()

  onEveryRoute(fastify, (route) => {
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
        `@restwell/naming: route ${url} breaks "${violation.rule}": ${violation.message}`,
        { route: url, rule: violation.rule, segment: violation.segment },
      )
    }
  })
}

/**
 * Checks every route registered after it against the naming rules of spec part 2, and warns
 * (or fails registration) naming the route and the rule. Options: {@link NamingOptions}.
 * @example
 * await app.register(restwellNaming, { mode: 'error', prefixes: ['/internal'] })
 */
export const restwellNaming: FastifyPluginAsync<NamingOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/naming',
})
