/** The methods convention: 405 with `Allow`, automatic OPTIONS and 501, where Fastify says 404. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { type MethodsOptions, MethodsOptionsSchema, resolveMethodsOptions } from './options.js'
import { describeMethods } from './describe.js'
import { PLUGIN } from './settings.js'
import { setupMethods } from './setup.js'
import { judgeNotFound } from './steps.js'

/**
 * Method semantics (spec 4.1, RFC 9110 §9): 405 with `Allow` for a path whose routes take other
 * methods, OPTIONS answered with `Allow`, 501 for a method the server does not know, TRACE and
 * CONNECT never routed, `reply.created()` for 201 + `Location`.
 */
export const methods = defineConvention({
  name: 'methods',
  plugin: PLUGIN,
  phases: ['request', 'notFoundHandler'],
  options: (raw: MethodsOptions) =>
    resolveMethodsOptions(validateOptions(PLUGIN, MethodsOptionsSchema, raw)),
  setup: setupMethods,
  app: (settings) => {
    const judge = judgeNotFound(settings)
    // `reply.callNotFound()` (a catch-all `OPTIONS *` route handing a plain OPTIONS on) runs
    // only the not-found handler's hooks: the same judgement is made there too.
    return { request: judge, notFoundHandler: judge }
  },
  contributes: () => ({ responseHeaders: ['allow'] }),
  // Its 405 and automatic OPTIONS are answers of no route.
  routeResponseHeaders: () => [],
  describe: describeMethods,
})
