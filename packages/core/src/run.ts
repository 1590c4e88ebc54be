/**
 * Runs declared conventions: one alone (`conventionPlugin`, a hook of its own per phase), or many
 * under a pipeline (`installConvention`, their steps collected per route for one hook per phase).
 */
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyPluginOptions,
  onSendHookHandler,
  preHandlerHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
import type {
  AlonePlacement,
  AnyConvention,
  AppPhase,
  Contributions,
  Phase,
  RouteContext,
  RouteDescription,
  RoutePhase,
  RouteSteps,
  SetupContext,
} from './convention.js'
import {
  addRouteHook,
  type BodyStep,
  type Pipeline,
  parsingHook,
  pipelineOf,
  type RequestStep,
  requestHook,
  type SendStep,
  sendHook,
} from './plan.js'
import { registerOnce } from './registration.js'
import { onEveryRoute, type RouteEntry } from './routes.js'
import { routeName, servedMethods } from './twins.js'

/** The options a convention's plugin takes: what its `options` function is given. */
export type OptionsInput<C> = C extends { options: (raw: infer I) => unknown }
  ? NonNullable<I> extends FastifyPluginOptions
    ? NonNullable<I>
    : FastifyPluginOptions
  : never

/** A convention installed in an instance, with what it was given and made. */
export interface InstalledConvention {
  readonly convention: AnyConvention
  readonly options: unknown
  readonly settings: unknown
}

const NO_CONTRIBUTIONS: Contributions = {
  queryParameters: [],
  requestHeaders: [],
  responseHeaders: [],
}

/** The union of what `conventions` contribute (each name once, in order). */
export function mergeContributions(
  entries: ReadonlyArray<{ convention: AnyConvention; options: unknown }>,
): Contributions {
  const lists: Record<keyof Contributions, Set<string>> = {
    queryParameters: new Set(),
    requestHeaders: new Set(),
    responseHeaders: new Set(),
  }
  for (const { convention, options } of entries) {
    const own = convention.contributes?.(options) ?? NO_CONTRIBUTIONS
    for (const key of Object.keys(lists) as (keyof Contributions)[]) {
      for (const value of own[key] ?? []) lists[key].add(value)
    }
  }
  return {
    queryParameters: [...lists.queryParameters],
    requestHeaders: [...lists.requestHeaders],
    responseHeaders: [...lists.responseHeaders],
  }
}

/** What `route` gives the convention: its methods, name and validated own settings. */
function routeContext(
  convention: AnyConvention,
  instance: FastifyInstance,
  route: RouteEntry,
): RouteContext<unknown> | undefined {
  const key = convention.routeConfigKey ?? convention.name
  const raw =
    key === false ? undefined : (route.config as Record<string, unknown> | undefined)?.[key]
  if (raw === false) return undefined
  const name = routeName(route)
  const config =
    raw === undefined || convention.routeConfig === undefined
      ? raw
      : convention.routeConfig(raw, `${convention.plugin} (config.${String(key)} of ${name})`)
  return { route, instance, methods: servedMethods(route), config, name }
}

/** The steps `convention` adds to `route`, each checked against the phases it declares. */
export function routeStepsOf(
  installed: InstalledConvention,
  instance: FastifyInstance,
  route: RouteEntry,
): RouteSteps | undefined {
  const { convention } = installed
  if (convention.route === undefined) return undefined
  const context = routeContext(convention, instance, route)
  if (context === undefined) return undefined
  const steps = convention.route(context, installed.settings) ?? undefined
  if (steps === undefined) return undefined
  for (const phase of Object.keys(steps) as Phase[]) {
    if (!convention.phases.includes(phase)) {
      throw new TypeError(
        `${convention.plugin}: route ${context.name} got a ${phase} step, a phase the convention does not declare (phases: ${convention.phases.join(', ')})`,
      )
    }
  }
  return steps
}

/**
 * How `installed` describes `route` in the OpenAPI document (its `describe`, given the route's
 * validated config), or undefined: nothing to add, or the route sets `config.<key>: false`.
 */
export function routeDescriptionOf(
  installed: InstalledConvention,
  instance: FastifyInstance,
  route: RouteEntry,
): RouteDescription | undefined {
  const { convention } = installed
  if (convention.describe === undefined) return undefined
  const context = routeContext(convention, instance, route)
  if (context === undefined) return undefined
  return convention.describe(context, installed.settings) ?? undefined
}

/**
 * The response headers `installed` may send on the answers of `route`: its
 * `routeResponseHeaders`, else all it contributes; none where the route sets `config.<key>: false`.
 */
export function routeResponseHeadersOf(
  installed: InstalledConvention,
  instance: FastifyInstance,
  route: RouteEntry,
): readonly string[] {
  const { convention } = installed
  const context = routeContext(convention, instance, route)
  if (context === undefined) return []
  if (convention.routeResponseHeaders !== undefined) {
    return convention.routeResponseHeaders(context, installed.settings)
  }
  return convention.contributes?.(installed.options).responseHeaders ?? []
}

/** The convention's app-wide steps, checked against the phases it declares. */
export function appStepsOf(installed: InstalledConvention): Partial<Record<AppPhase, unknown>> {
  const { convention } = installed
  const steps = convention.app?.(installed.settings) ?? {}
  for (const phase of Object.keys(steps) as Phase[]) {
    if (!convention.phases.includes(phase)) {
      throw new TypeError(
        `${convention.plugin}: an app step for ${phase}, a phase the convention does not declare (phases: ${convention.phases.join(', ')})`,
      )
    }
  }
  return steps
}

/** The hook phase of Fastify each route phase runs in. */
const ROUTE_HOOKS = {
  guard: 'onRequest',
  beforeBody: 'preParsing',
  beforeHandler: 'preHandler',
  serialize: 'preSerialization',
  send: 'onSend',
} as const satisfies Record<RoutePhase, string>

/** The route's hook that runs one step of `phase`, named after the convention. */
function hookOf(phase: RoutePhase, name: string, step: RequestStep | BodyStep | SendStep): unknown {
  if (phase === 'beforeBody') return parsingHook(name, [step as RequestStep | BodyStep])
  if (phase === 'serialize' || phase === 'send') return sendHook(name, [step as SendStep])
  return requestHook(name, [step as RequestStep])
}

/** Marks the hooks conventions used alone put first (`Symbol.for`: the ESM and CJS builds). */
const PUT_FIRST = Symbol.for('restwell.convention.first')

/**
 * Adds a convention's hook to the route's own hooks of `phase`: last, or first but after the
 * hooks conventions put first before it, so that conventions run in registration order either way.
 */
function placeHook(
  route: RouteEntry,
  phase: RoutePhase,
  hook: unknown,
  where: 'first' | 'last',
): void {
  const fastifyPhase = ROUTE_HOOKS[phase]
  if (where === 'last') {
    addRouteHook(route, fastifyPhase, hook)
    return
  }
  Object.defineProperty(hook, PUT_FIRST, { value: true })
  const slots = route as unknown as Record<string, unknown>
  const list = [slots[fastifyPhase] ?? []].flat() as { [PUT_FIRST]?: true }[]
  let at = 0
  for (const [i, placed] of list.entries()) if (placed[PUT_FIRST] === true) at = i + 1
  list.splice(at, 0, hook as { [PUT_FIRST]?: true })
  slots[fastifyPhase] = list
}

/** Runs `step` before the not-found handler only (a root `preHandler` hook). */
function notFoundHandlerHook(name: string, step: RequestStep): preHandlerHookHandler {
  const run = requestHook(name, [step])
  const hook: preHandlerHookHandler = function (request, reply, done) {
    if (request.is404) run.call(this, request, reply, done)
    else done()
  }
  return Object.defineProperty(hook, 'name', { value: name })
}

/**
 * Runs `steps`, in order, on the answers of no route only (a root `onSend` hook named `name`):
 * 404s, 405s and automatic OPTIONS answers.
 */
export function notFoundSendHook(name: string, steps: readonly SendStep[]): onSendHookHandler {
  const run = sendHook(name, steps)
  const hook: onSendHookHandler = function (request, reply, payload, done) {
    if (request.is404) run.call(this, request, reply, payload, done)
    else done(null, payload)
  }
  return Object.defineProperty(hook, 'name', { value: name })
}

/** A pipeline's conventions, by the instance it was installed on. */
const INSTALLED = Symbol.for('restwell.pipeline.conventions')
type WithInstalled = Pipeline & { [INSTALLED]?: InstalledConvention[] }

/** The conventions installed under `pipeline`, in the order they were installed. */
export function installedConventions(pipeline: Pipeline): readonly InstalledConvention[] {
  return (pipeline as WithInstalled)[INSTALLED] ?? []
}

/**
 * Sets `convention` up on `fastify`: registered once, its options validated, its setup run.
 * Under `pipeline` its steps are handed over for the pipeline to order; alone they run from
 * hooks of their own: the app-wide ones from root hooks, each route's from hooks of that route
 * (after the route's own hooks of the phase, unless the convention's `alone` says before).
 */
async function setUp(
  fastify: FastifyInstance,
  convention: AnyConvention,
  raw: unknown,
  context: SetupContext,
  pipeline: Pipeline | undefined,
): Promise<InstalledConvention> {
  // A convention with no step (routes, decorators, checks) may come after the pipeline's plans.
  registerOnce(fastify, convention.plugin, convention.name, {
    scope: convention.scope ?? 'chain',
    steps: convention.phases.length > 0,
  })
  const options = convention.options(raw)
  const settings = await convention.setup(fastify, options, context)
  const installed: InstalledConvention = { convention, options, settings }
  const app = appStepsOf(installed)
  if (pipeline !== undefined) {
    const holder = pipeline as WithInstalled
    holder[INSTALLED] ??= []
    holder[INSTALLED].push(installed)
    if (app.request !== undefined) pipeline.request.set(convention, app.request as RequestStep)
    if (app.notFoundSend !== undefined) {
      pipeline.notFound.set(convention, app.notFoundSend as SendStep)
    }
    const notFoundHandler = app.notFoundHandler as RequestStep | undefined
    if (notFoundHandler !== undefined) {
      // Into the not-found handler that took the pipeline's steps, or a root hook of its own.
      const taken = pipeline.notFoundPreHandler
      if (taken !== undefined) taken.set(convention, notFoundHandler)
      else fastify.addHook('preHandler', notFoundHandlerHook(convention.name, notFoundHandler))
    }
    return installed
  }
  const hookName = `${convention.name}Alone`
  if (app.request !== undefined) {
    fastify.addHook('onRequest', requestHook(hookName, [app.request as RequestStep]))
  }
  if (app.notFoundHandler !== undefined) {
    fastify.addHook('preHandler', notFoundHandlerHook(hookName, app.notFoundHandler as RequestStep))
  }
  if (app.notFoundSend !== undefined) {
    fastify.addHook('onSend', notFoundSendHook(hookName, [app.notFoundSend as SendStep]))
  }
  if (convention.route === undefined) return installed
  type At = AlonePlacement<RoutePhase>
  const alone = (convention.alone ?? {}) as Partial<
    Record<RoutePhase, At | ((methods: readonly string[]) => At)>
  >
  onEveryRoute(fastify, function conventionRoute(this: FastifyInstance, route) {
    const steps = routeStepsOf(installed, this, route)
    if (steps === undefined) return
    for (const phase of Object.keys(ROUTE_HOOKS) as RoutePhase[]) {
      const step = steps[phase]
      if (step === undefined) continue
      const at = alone[phase] ?? 'last'
      const where = typeof at === 'function' ? at(servedMethods(route)) : at
      if (where === 'onRequest') {
        addRouteHook(route, 'onRequest', requestHook(hookName, [step as RequestStep]), 'first')
      } else {
        placeHook(route, phase, hookOf(phase, hookName, step), where)
      }
    }
  })
  return installed
}

/**
 * The plugin of `convention`: on a bare Fastify app it runs the convention alone, from hooks of
 * its own; registered where a pipeline collects steps (inside the umbrella), it hands them over.
 *
 * @param convention a value made by `defineConvention`
 * @example
 * export const restwellCacheControl = conventionPlugin(cacheControl)
 * await app.register(restwellCacheControl, { policy: { maxAge: 60 } })
 */
export function conventionPlugin<C extends AnyConvention>(
  convention: C,
): FastifyPluginAsync<OptionsInput<C>> {
  const plugin = async (fastify: FastifyInstance, raw: unknown): Promise<void> => {
    const pipeline = pipelineOf(fastify)
    const context: SetupContext =
      pipeline === undefined
        ? {
            pipeline: false,
            contributions: () =>
              mergeContributions([{ convention, options: convention.options(raw) }]),
          }
        : {
            pipeline: true,
            contributions: () => mergeContributions(installedConventions(pipeline)),
          }
    await setUp(fastify, convention, raw, context, pipeline)
  }
  return fp(plugin, { fastify: '5.x', name: convention.plugin }) as FastifyPluginAsync<
    OptionsInput<C>
  >
}

/**
 * Installs `convention` under the pipeline of `fastify` (the umbrella's), in a plugin of its
 * name (so `hasPlugin` sees it): its steps are the pipeline's to order. `context` is what the
 * pipeline tells every convention's setup.
 */
export async function installConvention(
  fastify: FastifyInstance,
  convention: AnyConvention,
  raw: unknown,
  context: SetupContext,
): Promise<InstalledConvention> {
  const pipeline = pipelineOf(fastify)
  if (pipeline === undefined) {
    throw new TypeError(
      `${convention.plugin}: installConvention needs a pipeline (installPipeline)`,
    )
  }
  let installed: InstalledConvention | undefined
  await fastify.register(
    fp(
      async (instance: FastifyInstance) => {
        installed = await setUp(instance, convention, raw, context, pipeline)
      },
      { fastify: '5.x', name: convention.plugin },
    ),
  )
  return installed as InstalledConvention
}

/** The steps every installed convention adds to `route`, per phase, by convention. */
export function pipelineRouteSteps(
  pipeline: Pipeline,
  instance: FastifyInstance,
  route: RouteEntry,
): Map<RoutePhase, Map<AnyConvention, RequestStep | BodyStep | SendStep>> {
  const out = new Map<RoutePhase, Map<AnyConvention, RequestStep | BodyStep | SendStep>>()
  for (const installed of installedConventions(pipeline)) {
    const steps = routeStepsOf(installed, instance, route)
    if (steps === undefined) continue
    for (const phase of Object.keys(steps) as RoutePhase[]) {
      const step = steps[phase]
      if (step === undefined) continue
      let byConvention = out.get(phase)
      if (byConvention === undefined) {
        byConvention = new Map()
        out.set(phase, byConvention)
      }
      byConvention.set(installed.convention, step)
    }
  }
  return out
}
