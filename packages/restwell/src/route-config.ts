/** The umbrella's route config: its keys, and a typo of one refused. */
import { type RouteEntry, routeName } from '@restwell/core'
import { editDistance, OptionsError } from '@restwell/errors'
import type { FastifyContextConfig } from 'fastify'

/**
 * Every key of a route's `config` that restwell's plugins read (each declared in its plugin's
 * `FastifyContextConfig` augmentation; `rateLimit` is `@fastify/rate-limit`'s, run by restwell).
 */
export const ROUTE_CONFIG_KEYS = [
  'auth',
  'cache',
  'conditional',
  'cors',
  'digest',
  'idempotency',
  'naming',
  'negotiation',
  'pagination',
  'patch',
  'prefer',
  'rateLimit',
  'softDelete',
  'versioning',
] as const satisfies readonly (keyof FastifyContextConfig)[]

/** A key of a route's `config` that restwell reads. */
export type RouteConfigKey = (typeof ROUTE_CONFIG_KEYS)[number]

const KNOWN: ReadonlySet<string> = new Set(ROUTE_CONFIG_KEYS)

/**
 * The restwell key `key` is a near miss of, if any: the same but for case, or, with the same
 * first letter, one edit away (two from a key of more than six letters). A typo seldom changes
 * the first letter, and other words an app may use (`batch`, `oauth`) do.
 */
export function nearMissOf(key: string): RouteConfigKey | undefined {
  if (KNOWN.has(key)) return undefined
  const given = key.toLowerCase()
  for (const known of ROUTE_CONFIG_KEYS) {
    const lower = known.toLowerCase()
    if (given === lower) return known
    if (given[0] !== lower[0]) continue
    const bound = known.length > 6 ? 2 : 1
    if (Math.abs(given.length - lower.length) > bound) continue
    if (editDistance(given, lower) <= bound) return known
  }
  return undefined
}

/**
 * An `onRoute` hook refusing a route whose `config` has a near miss of one of restwell's keys
 * (`paginaton`): the setting it meant would be silently ignored. Other keys are the app's.
 */
export function refuseConfigTypos(route: RouteEntry): void {
  const config = route.config as Record<string, unknown> | undefined
  if (config === undefined) return
  for (const key of Object.keys(config)) {
    const meant = nearMissOf(key)
    if (meant === undefined) continue
    throw new OptionsError(
      `restwell (route ${routeName(route)})`,
      `config.${key}`,
      `is not a route config key of restwell's; did you mean "${meant}"? (A key of the app's own may not be a near miss of one of restwell's: rename it.)`,
    )
  }
}
