/**
 * A route's plan: the steps each convention contributes to one route, decided once when the
 * route is added. Used alone, a plugin runs its steps from hooks of its own; under a pipeline
 * (the umbrella's), it hands them over and the pipeline runs them in the order it lists.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onSendHookHandler,
  preParsingHookHandler,
  preSerializationHookHandler,
} from 'fastify'
import { isNotModified } from './contracts.js'
import type { AnyConvention } from './convention.js'
import type { RouteEntry } from './routes.js'

/** What a pipeline keys a step by: the convention that declared it. */
export type StepKey = AnyConvention

/**
 * A step of the send phase: gets the payload, returns the one to send on (`undefined` keeps it)
 * or an error to answer with (a payload is never an `Error`: Fastify answers one as an error
 * before this phase). A step that throws answers with that error too.
 */
export type SendStep = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown

/**
 * What a request step tells the run: `true` once it has answered (`reply.send`) or handed the
 * request on (`reply.hijack`); an error to answer with (returned rather than thrown: a throw
 * costs V8 microseconds of stack walking on every refusal); `undefined` (or `false`) to go on.
 */
export type StepOutcome = boolean | undefined | Error

/**
 * A step of the request phase (before the body is read). What it returns (or the promise it
 * returns settles to) says whether the steps after it run (`StepOutcome`); a step that throws
 * or rejects answers with that error too.
 */
export type RequestStep = (
  request: FastifyRequest,
  reply: FastifyReply,
) => StepOutcome | PromiseLike<StepOutcome>

/**
 * A step of the serialization phase: gets the handler's value, returns the one to serialize
 * (`undefined` keeps it) or an error to answer with, as a `SendStep`.
 */
export type SerializeStep = SendStep

/** What a pipeline collects from the plugins registered under it. */
export interface Pipeline {
  /** Steps for answers of no route (404, 405, automatic OPTIONS, refusals before routing). */
  readonly notFound: Map<StepKey, SendStep>
  /** Steps every request runs before routing decides anything else (request id, CORS, limits). */
  readonly request: Map<StepKey, RequestStep>
  /**
   * Steps of the not-found handler's `preHandler` (what a route's `reply.callNotFound()` runs),
   * once a not-found handler has taken them (`notFoundPreHandler`).
   */
  notFoundPreHandler?: Map<StepKey, RequestStep>
  /**
   * Set once the plugins under the pipeline are registered and the plans are made: a plugin
   * registered later could hand over no step (`registerOnce` refuses it).
   */
  sealed: boolean
}

/** `Symbol.for`: the ESM and the CJS build of this package share the slots. */
const PIPELINE = Symbol.for('restwell.pipeline')
const WHEN_PLANNED = Symbol.for('restwell.plan.whenPlanned')

type WithPipeline = { [PIPELINE]?: Pipeline }

/**
 * Makes `fastify` (and every instance created under it from now on) collect the steps of the
 * plugins registered on it. Called by the umbrella before it registers them.
 */
export function installPipeline(fastify: FastifyInstance): Pipeline {
  const pipeline: Pipeline = { notFound: new Map(), request: new Map(), sealed: false }
  fastify.decorate(PIPELINE as unknown as string, pipeline)
  return pipeline
}

/** The pipeline that collects this instance's steps, if one does. */
export function pipelineOf(fastify: FastifyInstance): Pipeline | undefined {
  return (fastify as FastifyInstance & WithPipeline)[PIPELINE]
}

function isThenable(value: unknown): value is PromiseLike<StepOutcome> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
}

/** Runs `steps` from `from` on; a step's promise continues the run when it settles. */
function runSteps(
  steps: readonly RequestStep[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  for (let i = from; i < steps.length; i++) {
    let out: ReturnType<RequestStep>
    try {
      out = (steps[i] as RequestStep)(request, reply)
    } catch (error) {
      done(error as Error)
      return
    }
    if (out === undefined || out === false) continue
    if (out === true) return
    if (out instanceof Error) {
      done(out)
      return
    }
    if (isThenable(out)) {
      out.then(
        (outcome) => {
          if (outcome === true) return
          if (outcome instanceof Error) done(outcome)
          else runSteps(steps, i + 1, request, reply, done)
        },
        (error: unknown) => done(error as Error),
      )
      return
    }
  }
  done()
}

/**
 * One `onRequest` (or `preHandler`) hook that runs `steps` in order, named `name`. Synchronous
 * steps run in one call; the first step that returns a promise continues the run when it settles.
 */
export function requestHook(name: string, steps: readonly RequestStep[]): onRequestHookHandler {
  const hook: onRequestHookHandler = (request, reply, done) =>
    runSteps(steps, 0, request, reply, done)
  return Object.defineProperty(hook, 'name', { value: name })
}

/** The body a `preParsing` hook gets and hands on: the request's stream, or one decoding it. */
export type RequestBody = Parameters<preParsingHookHandler>[2]

const BODY_STEP = Symbol.for('restwell.plan.bodyStep')

/**
 * A step before the body is read that hands the body on (a content-coding decoder): it gets
 * the body stream and returns the stream to read instead (`undefined` keeps it) or an error to
 * answer with. Made with `bodyStep`, so that a phase's runner tells it from a `RequestStep`.
 */
export interface BodyStep {
  (request: FastifyRequest, reply: FastifyReply, body: RequestBody): RequestBody | Error | undefined
  readonly [BODY_STEP]: true
}

/**
 * Marks `decode` as a `BodyStep`: a `beforeBody` step that may replace the body stream.
 *
 * @param decode gets the body stream, returns the one to read instead, an error, or undefined
 * @example
 * const gunzip = bodyStep((request, _reply, body) =>
 *   request.headers['content-encoding'] === 'gzip' ? body.pipe(zlib.createGunzip()) : undefined,
 * )
 */
export function bodyStep(
  decode: (
    request: FastifyRequest,
    reply: FastifyReply,
    body: RequestBody,
  ) => RequestBody | Error | undefined,
): BodyStep {
  return Object.defineProperty(decode, BODY_STEP, { value: true }) as BodyStep
}

/** Whether `step` was made by `bodyStep`. */
export function isBodyStep(step: RequestStep | BodyStep): step is BodyStep {
  return (step as Partial<BodyStep>)[BODY_STEP] === true
}

/** Hands `body` through `steps` in order; the first error ends the run with it. */
function runBodySteps(
  steps: readonly BodyStep[],
  request: FastifyRequest,
  reply: FastifyReply,
  body: RequestBody,
  done: (error: Error | null, body?: RequestBody) => void,
): void {
  let out = body
  for (const step of steps) {
    let next: RequestBody | Error | undefined
    try {
      next = step(request, reply, out)
    } catch (error) {
      done(error as Error)
      return
    }
    if (next instanceof Error) {
      done(next)
      return
    }
    if (next !== undefined) out = next
  }
  done(null, out)
}

/**
 * One `preParsing` hook, named `name`, that runs the request steps of `steps` in order (as
 * `requestHook` does) and then hands the body stream through its body steps (`bodyStep`), or
 * passes it on unchanged. Request steps that answer or fail end the run before the body is
 * touched.
 */
export function parsingHook(
  name: string,
  steps: readonly (RequestStep | BodyStep)[],
): preParsingHookHandler {
  const requests = steps.filter((step) => !isBodyStep(step)) as RequestStep[]
  const bodies = steps.filter(isBodyStep)
  const hook: preParsingHookHandler =
    requests.length === 0
      ? // A route with nothing to check before its body is read decodes at once.
        (request, reply, payload, done) => runBodySteps(bodies, request, reply, payload, done)
      : (request, reply, payload, done) => {
          runSteps(requests, 0, request, reply, (error) => {
            if (error !== undefined) done(error)
            else runBodySteps(bodies, request, reply, payload, done)
          })
        }
  return Object.defineProperty(hook, 'name', { value: name })
}

/** One `preSerialization` hook that runs `steps` in order, named `name`. */
export function serializeHook(
  name: string,
  steps: readonly SerializeStep[],
): preSerializationHookHandler<unknown> {
  const send = sendHook(name, steps)
  return send as unknown as preSerializationHookHandler<unknown>
}

/**
 * Whether the answer is a 304: made one, or decided to be one before the send phase
 * (`markNotModified`) and not turned into another answer since (an error's pass is a 4xx/5xx).
 */
function notModified(reply: FastifyReply): boolean {
  const status = reply.statusCode
  return status === 304 || (status === 200 && isNotModified(reply))
}

/**
 * One `onSend` hook that runs `steps` in order, named `name` (as `printRoutes` shows it).
 * The first step that returns or throws an error ends the run with it. The steps of
 * `skippedOn304` do not run once the answer is (or was decided to be) a 304 (they shape a body, or headers a 304
 * drops: RFC 9110 §15.4.5).
 */
export function sendHook(
  name: string,
  steps: readonly SendStep[],
  skippedOn304: ReadonlySet<SendStep> = new Set(),
): onSendHookHandler {
  const skips = steps.map((step) => skippedOn304.has(step))
  const hook: onSendHookHandler = (request, reply, payload, done) => {
    let out = payload
    try {
      for (let i = 0; i < steps.length; i++) {
        if (skips[i] === true && notModified(reply)) continue
        const next = (steps[i] as SendStep)(request, reply, out)
        if (next === undefined) continue
        if (next instanceof Error) {
          done(next)
          return
        }
        out = next
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
  phase:
    | 'onRequest'
    | 'preParsing'
    | 'preValidation'
    | 'preHandler'
    | 'preSerialization'
    | 'onSend',
  hook: unknown,
  where: 'last' | 'first' = 'last',
): void {
  const slots = route as unknown as HookSlots
  const current = slots[phase]
  const list = current === undefined ? [] : Array.isArray(current) ? current : [current]
  slots[phase] = where === 'last' ? [...list, hook] : [hook, ...list]
}

/**
 * The `preHandler` for a not-found handler set on `fastify`: it runs the conventions'
 * `notFoundHandler` steps. Undefined without a pipeline (each convention then adds a root hook
 * of its own).
 */
export function notFoundPreHandler(fastify: FastifyInstance): onRequestHookHandler | undefined {
  const pipeline = pipelineOf(fastify)
  if (pipeline === undefined) return undefined
  const steps = new Map<StepKey, RequestStep>()
  pipeline.notFoundPreHandler = steps
  let run: onRequestHookHandler | undefined
  return function restwellNotFoundPreHandler(request, reply, done) {
    run ??= requestHook('restwellNotFoundPreHandler', [...steps.values()])
    run.call(this, request, reply, done)
  }
}

/**
 * Undoes `notFoundPreHandler` when the not-found handler could not be set (the app's own is
 * kept): the steps handed over from now on run from root `preHandler` hooks.
 */
export function forgetNotFoundPreHandler(fastify: FastifyInstance): void {
  const pipeline = pipelineOf(fastify)
  if (pipeline !== undefined) pipeline.notFoundPreHandler = undefined
}

type Deferred = { [WHEN_PLANNED]?: (() => void)[] }

/**
 * Runs `fn` once `route` is set up (from an `onRoute` hook; `instance` is its `this`): under a
 * pipeline, after the route's plan is made (`runWhenPlanned`), so that what `fn` adds (a twin
 * route) comes after every convention has seen the route; alone, at once.
 */
export function whenPlanned(instance: FastifyInstance, route: RouteEntry, fn: () => void): void {
  if (pipelineOf(instance) === undefined) {
    fn()
    return
  }
  const holder = route as unknown as Deferred
  const list = holder[WHEN_PLANNED] ?? []
  list.push(fn)
  holder[WHEN_PLANNED] = list
}

/** Runs what `whenPlanned` kept for `route` (the pipeline calls it once the plan is made). */
export function runWhenPlanned(route: RouteEntry): void {
  const holder = route as unknown as Deferred
  const list = holder[WHEN_PLANNED]
  if (list === undefined) return
  delete holder[WHEN_PLANNED]
  for (const fn of list) fn()
}
