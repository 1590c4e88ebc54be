/** What a route requires: its `config.auth`, over the plugin's defaults. */
import { validateOptions } from '@restwell/errors'
import {
  type AuthRequirement,
  type ResolvedAuthOptions,
  type ResolvedRequirement,
  RequirementSchema,
  resolveRequirement,
} from './options.js'
import { PLUGIN } from './settings.js'

/**
 * The requirement of a route whose `config.auth` is `config` (never `false`: such a route is
 * public, and the convention skips it), or null for a public route. Throws an `OptionsError`
 * naming the route for an invalid requirement.
 */
export function routeRequirement(
  options: ResolvedAuthOptions,
  config: true | AuthRequirement<unknown> | undefined,
  route: string,
): ResolvedRequirement | null {
  if (config === undefined) return options.defaultProtected ? options.requirement : null
  if (config === true) return options.requirement
  validateOptions(`${PLUGIN}: route ${route} config.auth`, RequirementSchema, config)
  return resolveRequirement(config, options.requirement)
}
