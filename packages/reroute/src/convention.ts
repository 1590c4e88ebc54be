/** The reroute convention: the rewriters' step, on every request before the others read it. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { type RerouteOptions, RerouteOptionsSchema } from './options.js'
import { claimReroute, rewriteStep } from './rewriters.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/reroute'

/**
 * Sets the method and URL a request stands for (what its rewriters say) on every request, once
 * routing has reached the twin route that serves them. A rewrite installed already (by
 * `installReroute`) is kept: its rewriters run once.
 */
export const reroute = defineConvention({
  name: 'reroute',
  plugin: PLUGIN,
  phases: ['request'],
  options: (raw: RerouteOptions) => validateOptions(PLUGIN, RerouteOptionsSchema, raw),
  setup: claimReroute,
  app: ({ state, fresh }) => (fresh ? { request: rewriteStep(state) } : {}),
})
