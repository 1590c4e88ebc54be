/**
 * A route's plan: the steps each convention contributes to one route, decided once when the
 * route is added. Used alone, a plugin runs its steps from hooks of its own; under a pipeline
 * (the umbrella's), it hands them over and the pipeline runs them in the order it lists.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
import type { RouteEntry } from './routes.js'

/**
 * A step of the send phase: gets the payload, returns the one to send on (`undefined` keeps it).
 * A step that throws turns the answer into that error, as a hook's `done(error)` does.
 */
export type SendStep = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown

/** What a pipeline collects from the plugins registered under it. */
export interface Pipeline {
  /** Steps for answers of no route (404, 405, automatic OPTIONS, refusals before routing). */
  readonly notFound: Map<string, SendStep>
}

/** `Symbol.for`: the ESM and the CJS build of this package share the slots. */
const PIPELINE = Symbol.for('restwell.pipeline')
const STEPS = Symbol.for('restwell.plan.send')

type WithPipeline = { [PIPELINE]?: Pipeline }
type WithSteps = { [STEPS]?: Map<string, SendStep> }

/**
 * Makes `fastify` (and every instance created under it from now on) collect the steps of the
 * plugins registered on it. Called by the umbrella before it registers them.
 */
export function installPipeline(fastify: FastifyInstance): Pipeline {
  const pipeline: Pipeline = { notFound: new Map() }
  fastify.decorate(PIPELINE as unknown as string, pipeline)
  return pipeline
}

/** The pipeline that collects this instance's steps, if one does. */
export function pipelineOf(fastify: FastifyInstance): Pipeline | undefined {
  return (fastify as FastifyInstance & WithPipeline)[PIPELINE]
}

/** The send steps contributed to `route` so far, by name. */
export function sendStepsOf(route: RouteEntry): ReadonlyMap<string, SendStep> {
  return (route as RouteEntry & WithSteps)[STEPS] ?? new Map()
}

/**
 * One `onSend` hook that runs `steps` in order, named `name` (as `printRoutes` shows it).
 * The first step that throws ends the run with that error.
 */
export function sendHook(name: string, steps: readonly SendStep[]): onSendHookHandler {
  const hook: onSendHookHandler = (request, reply, payload, done) => {
    let out = payload
    try {
      for (const step of steps) {
        const next = step(request, reply, out)
        if (next !== undefined) out = next
      }
    } catch (error) {
      done(error as Error)
      return
    }
    done(null, out)
  }
  return Object.defineProperty(hook, 'name', { value: name })
}

type HookSlots = Record<string, unknown>

/** Adds `hook` to the route's own hooks of `phase`, last or first. */
export function addRouteHook(
  route: RouteEntry,
  phase: 'onRequest' | 'preParsing' | 'preHandler' | 'preSerialization' | 'onSend',
  hook: unknown,
  where: 'last' | 'first' = 'last',
): void {
  const slots = route as unknown as HookSlots
  const current = slots[phase]
  const list = current === undefined ? [] : Array.isArray(current) ? current : [current]
  slots[phase] = where === 'last' ? [...list, hook] : [hook, ...list]
}

/** Hands a convention's send step for `route` to the pipeline, under `name`. */
export function contributeSend(route: RouteEntry, name: string, step: SendStep): void {
  const holder = route as RouteEntry & WithSteps
  let steps = holder[STEPS]
  if (steps === undefined) {
    steps = new Map()
    holder[STEPS] = steps
  }
  steps.set(name, step)
}

/**
 * Puts a convention's send step on `route` (from an `onRoute` hook; `instance` is its `this`).
 * Under a pipeline the step is handed over under `name`; otherwise the route runs it from a hook
 * of its own, named `name`, added last, or first when `where` says so.
 */
export function useSendStep(
  instance: FastifyInstance,
  route: RouteEntry,
  name: string,
  step: SendStep,
  where: 'last' | 'first' = 'last',
): void {
  if (pipelineOf(instance) === undefined)
    addRouteHook(route, 'onSend', sendHook(name, [step]), where)
  else contributeSend(route, name, step)
}

/**
 * Puts a send step on the answers of no route. Under a pipeline it is handed over under `name`;
 * otherwise a root hook named `name` runs it on those answers only.
 */
export function useNotFoundSendStep(fastify: FastifyInstance, name: string, step: SendStep): void {
  const pipeline = pipelineOf(fastify)
  if (pipeline !== undefined) {
    pipeline.notFound.set(name, step)
    return
  }
  const run = sendHook(name, [step])
  const hook: onSendHookHandler = function (request, reply, payload, done) {
    if (request.is404) run.call(this, request, reply, payload, done)
    else done(null, payload)
  }
  fastify.addHook('onSend', Object.defineProperty(hook, 'name', { value: name }))
}
