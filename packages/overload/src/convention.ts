/** The overload convention: 503 + `Retry-After` while the process is under pressure. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { describeOverload } from './describe.js'
import { type OverloadOptions, OverloadOptionsSchema, resolveOverloadOptions } from './options.js'
import { PLUGIN, setupOverload } from './settings.js'

/**
 * Sheds load on every request, before any other work: over an event-loop, heap or RSS limit, or
 * with a failing health check, 503 `OVERLOADED` + `Retry-After`. Its umbrella option is
 * `underPressure`, after the library it configures.
 */
export const overload = defineConvention({
  name: 'underPressure',
  plugin: PLUGIN,
  phases: ['request'],
  options: (raw: OverloadOptions) =>
    resolveOverloadOptions(validateOptions(PLUGIN, OverloadOptionsSchema, raw)),
  setup: setupOverload,
  app: (settings) => ({ request: settings.request }),
  contributes: () => ({ responseHeaders: ['Retry-After'] }),
  describe: describeOverload,
})
