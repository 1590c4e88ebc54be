/** The versioning convention: the version carriers, the routing of unprefixed requests, the version headers. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { versionHeaders } from './headers.js'
import {
  PLUGIN,
  type ResolvedVersioningOptions,
  resolveVersioningOptions,
  type VersioningOptions,
  VersioningOptionsSchema,
} from './options.js'
import { versionOfRoute } from './registry.js'
import { requestStep } from './request.js'
import { setupVersioning } from './setup.js'

/**
 * API versions: routes under `/v<N>` prefixes, a version carried by `Accept:
 * application/vnd.api.v<N>+json` or `?version=<N>` (or the default one) served through the
 * route's unprefixed twin; what the carriers refuse and moved paths answered on every request;
 * `API-Version`, `Vary: Accept` and a retired version's lifecycle headers on a versioned route's
 * answers (`config.versioning: false` sends none there).
 */
export const versioning = defineConvention({
  name: 'versioning',
  plugin: PLUGIN,
  phases: ['request', 'send'],
  options: (raw: VersioningOptions) =>
    resolveVersioningOptions(validateOptions(PLUGIN, VersioningOptionsSchema, raw)),
  setup: setupVersioning,
  app: (state) => ({ request: requestStep(state) }),
  route: ({ route }, state) => {
    const served = versionOfRoute(state.versions, route)
    if (served === undefined) return undefined
    return { send: versionHeaders(state.options, served.version, served.prefixed) }
  },
  contributes: (options) => ({
    queryParameters: options.query === false ? [] : [options.query],
    responseHeaders: sentHeaders(options),
  }),
  // Only a versioned route's answers carry them.
  routeResponseHeaders: ({ route }, state) =>
    versionOfRoute(state.versions, route) === undefined ? [] : sentHeaders(state.options),
})

/** The headers a versioned route's answers may carry. */
function sentHeaders(options: ResolvedVersioningOptions): string[] {
  return [
    ...(options.responseHeaderName === false ? [] : [options.responseHeaderName]),
    'Deprecation',
    'Sunset',
  ]
}
