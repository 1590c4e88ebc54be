/** The patch convention: JSON Patch and JSON Merge Patch bodies, 415 + `Accept-Patch`. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { describePatch } from './describe.js'
import {
  type PatchOptions,
  PatchOptionsSchema,
  type PatchRouteConfig,
  PatchRouteConfigSchema,
  resolvePatchOptions,
} from './options.js'
import { ACCEPT_PATCH, patchRoute, patchRouteHeaders } from './route.js'
import { NAME } from './schema.js'
import { setupPatch } from './setup.js'
import { notFoundSend } from './steps.js'

/**
 * Every PATCH route (or those with `config.patch`) takes `application/json-patch+json` and
 * `application/merge-patch+json`, answers 415 with `Accept-Patch` otherwise, and gives the
 * handler `request.patch` and `request.applyPatch()`; `Accept-Patch` on OPTIONS and 405.
 */
export const patch = defineConvention({
  name: 'patch',
  plugin: NAME,
  phases: ['beforeBody', 'send', 'notFoundSend'],
  options: (raw: PatchOptions) =>
    resolvePatchOptions(validateOptions(NAME, PatchOptionsSchema, raw)),
  routeConfig: (raw: unknown, where: string): PatchRouteConfig =>
    raw === true ? {} : validateOptions(where, PatchRouteConfigSchema, raw),
  setup: setupPatch,
  app: (settings) => (settings.options.advertise ? { notFoundSend: notFoundSend(settings) } : {}),
  route: patchRoute,
  contributes: () => ({
    // A patch media type is never a CORS-safelisted Content-Type.
    requestHeaders: ['content-type'],
    responseHeaders: [ACCEPT_PATCH],
  }),
  routeResponseHeaders: patchRouteHeaders,
  describe: describePatch,
  // A child scope may register it again with options of its own (its parsers are shared); alone
  // its hooks come after the route's own, so the registration nearest the route decides last.
  scope: 'instance',
})
