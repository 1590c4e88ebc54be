/** The CORS convention: the headers of every answer, preflights answered before auth. */
import { defineConvention } from '@restwell/core'
import { validateOptions } from '@restwell/errors'
import { type CorsOptions, CorsOptionsSchema, resolveCorsOptions } from './options.js'
import { PLUGIN, setupCors } from './settings.js'
import { corsRequest, corsSend } from './steps.js'

/**
 * CORS (Fetch standard) on every answer, refusals and answers of no route included: a preflight
 * answered 200 before anything else, `Access-Control-Expose-Headers` for what the API sends,
 * `Vary: Origin` where the origin rule decides; `config.cors: false` opts a route out.
 */
export const cors = defineConvention({
  name: 'cors',
  plugin: PLUGIN,
  phases: ['request', 'send', 'notFoundSend'],
  options: (raw: CorsOptions) =>
    resolveCorsOptions(validateOptions(PLUGIN, CorsOptionsSchema, raw)),
  setup: setupCors,
  app: (settings) => ({ request: corsRequest(settings), notFoundSend: corsSend(settings) }),
  route: ({ instance, route }, settings) => {
    // Made on the route's first answer, once every convention has planned the route.
    let exposed: string | undefined
    return {
      send: corsSend(settings, () => {
        exposed ??= settings.routeExposedHeaders(instance, route)
        return exposed
      }),
    }
  },
})
