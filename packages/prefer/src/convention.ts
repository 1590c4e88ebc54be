/** The prefer convention: `Prefer` read and honoured, `Preference-Applied` sent (RFC 7240). */
import {
  defineConvention,
  type RouteContext,
  type RouteDescription,
  type SetupContext,
} from '@restwell/core'
import { addRouteHook, whenPlanned } from '@restwell/core/internal'
import { OptionsError, validateOptions } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'
import { respondAsync } from './async.js'
import {
  type PreferOptions,
  PreferOptionsSchema,
  type PreferRouteConfig,
  PreferRouteConfigSchema,
  type PreferSettings,
  resolvePreferOptions,
} from './options.js'
import {
  answerPreferences,
  handleBody,
  PLUGIN,
  planner,
  type RouteSettings,
  readPreferences,
} from './steps.js'

/** Methods whose request body Fastify never reads. */
const BODYLESS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE'])
const SAFE: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'QUERY', 'TRACE'])

/** What the steps read: the options, the pipeline's lists, the routes with an asynchronous form. */
interface Settings extends PreferSettings {
  readonly context: SetupContext
  /** Routes with an asynchronous form, by name: `@restwell/jobs` must be there at `ready()`. */
  readonly asyncRoutes: string[]
}

function setupPrefer(
  fastify: FastifyInstance,
  options: PreferSettings,
  context: SetupContext,
): Settings {
  fastify.decorateRequest('prefer', null)
  const settings: Settings = { ...options, context, asyncRoutes: [] }
  fastify.addHook('onReady', async function preferNeedsJobs() {
    if (settings.asyncRoutes.length === 0 || fastify.hasDecorator('jobs')) return
    throw new OptionsError(
      PLUGIN,
      `config.prefer.async of ${settings.asyncRoutes.join(', ')}`,
      'names a job, and no @restwell/jobs is registered to run it: register @restwell/jobs (the umbrella: give restwell the `jobs` option), or drop config.prefer.async',
    )
  })
  return settings
}

function routeSettingsOf(
  { methods, config }: RouteContext<PreferRouteConfig>,
  settings: Settings,
): RouteSettings {
  return {
    writes: config?.return !== false && methods.some((method) => !SAFE.has(method)),
    handling: config?.handling !== false,
    async: config?.async !== undefined,
    readByPlugins: () => [
      ...settings.queryParameters,
      ...settings.context.contributions().queryParameters,
    ],
  }
}

function describePrefer(
  context: RouteContext<PreferRouteConfig>,
  settings: Settings,
): RouteDescription {
  const route = routeSettingsOf(context, settings)
  return {
    requestHeaders: [['Prefer', 'Preferences (RFC 7240): return, respond-async, wait, handling']],
    responseHeaders: [['Preference-Applied', 'The preferences honoured (RFC 7240 §3)']],
    responses: [
      ...(route.async ? ([[202, 'Accepted: the job resource, with respond-async']] as const) : []),
      ...(route.async ? ([[303, "See Other: the finished job's result"]] as const) : []),
      ...(route.writes ? ([[204, 'No Content, with return=minimal']] as const) : []),
      ...(route.handling
        ? ([[400, 'An unknown parameter or member, with handling=strict']] as const)
        : []),
    ],
  }
}

/**
 * `Prefer` on every route: `return=minimal`/`representation` on writes, `handling=strict`/
 * `lenient` where the route's schema names its parameters, `respond-async` with `wait` on a
 * route with an asynchronous form (`config.prefer.async`); `Preference-Applied`, `Vary: Prefer`.
 */
export const prefer = defineConvention({
  name: 'prefer',
  plugin: PLUGIN,
  phases: ['beforeBody', 'beforeHandler', 'send'],
  options: (raw: PreferOptions) =>
    resolvePreferOptions(validateOptions(PLUGIN, PreferOptionsSchema, raw)),
  routeConfig: (raw: unknown, where: string): PreferRouteConfig =>
    validateOptions(where, PreferRouteConfigSchema, raw) as PreferRouteConfig,
  setup: setupPrefer,
  route: (context, settings) => {
    const { route, instance, methods, config, name } = context
    const own = routeSettingsOf(context, settings)
    const plan = planner(route, own)
    if (own.handling && methods.some((method) => !BODYLESS.has(method))) {
      // The body's unknown members are dropped or refused before validation sees them; no step
      // runs between parsing and validation, so the route's first preValidation hook does it.
      whenPlanned(instance, route, () => {
        addRouteHook(route, 'preValidation', handleBody(plan), 'first')
      })
    }
    const form = config?.async
    if (form !== undefined) settings.asyncRoutes.push(name)
    return {
      beforeBody: readPreferences(plan),
      ...(form === undefined
        ? {}
        : {
            beforeHandler: respondAsync({
              job: form.job,
              payload: form.payload,
              maxWait: form.maxWait ?? settings.maxWait,
            }),
          }),
      send: answerPreferences(own, plan),
    }
  },
  contributes: () => ({ requestHeaders: ['prefer'], responseHeaders: ['preference-applied'] }),
  describe: describePrefer,
  // Alone, the preferences are read before the route's own hooks look at the request, and the
  // answer is shaped before the route's own onSend hooks hash or compress it.
  alone: { beforeBody: 'first', beforeHandler: 'last', send: 'first' },
})
