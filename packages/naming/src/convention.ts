/** The naming convention: every route's path checked against the naming rules when added. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { type NamingOptions, NamingOptionsSchema, resolveNamingOptions } from './options.js'
import { PLUGIN, setupNaming } from './setup.js'

/**
 * Route naming (spec 2): plural lowercase hyphenated collections, nesting at most 3 levels,
 * checked when each route is added (a warning, or an error in `error` mode). No step of a
 * request: it may be registered after the umbrella.
 */
export const naming = defineConvention({
  name: 'naming',
  plugin: PLUGIN,
  phases: [],
  options: (raw: NamingOptions) =>
    resolveNamingOptions(validateOptions(PLUGIN, NamingOptionsSchema, raw)),
  setup: setupNaming,
})
