/**
 * The steps of Prefer on one route: the preferences read before the body (and the query's
 * handling), the body's handling before validation, `respond-async` before the handler, and the
 * answer shaped at the end (`return=minimal`, `Preference-Applied`, `Vary: Prefer`).
 */
import { appendVary, type RequestStep, type RouteEntry, type SendStep } from '@restwell/core'
import { createError, type HttpError } from '@restwell/errors'
import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify'
import { applyHandling, type Declared, declaredOf } from './handling.js'
import { formatApplied } from './prefer.js'
import { RequestPreferences } from './state.js'

/** The plugin's name, as its messages begin. */
export const PLUGIN = '@restwell/prefer'

/** Methods a `return` preference never changes: safe ones (RFC 9110 §9.2.1). */
const SAFE: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'QUERY', 'TRACE'])

/** One route's settings, decided when the route is added. */
export interface RouteSettings {
  /** `return` is honoured (the route serves a write). */
  readonly writes: boolean
  /** `handling` is honoured. */
  readonly handling: boolean
  /** The route has an asynchronous form. */
  readonly async: boolean
  /** The query parameters every plugin reads (known once every plugin is set up). */
  readonly readByPlugins: () => readonly string[]
}

/** The names a route declares and whether its answers vary by `Prefer`, made on its first request. */
interface Plan extends Declared {
  readonly varies: boolean
}

/** The plan of `route`, made once, when its schema and the plugins' lists are final. */
export function planner(route: RouteEntry, settings: RouteSettings): () => Plan {
  let plan: Plan | undefined
  return () => {
    if (plan === undefined) {
      const declared = settings.handling
        ? declaredOf(route, settings.readByPlugins())
        : { query: undefined, body: undefined }
      const handles = declared.query !== undefined || declared.body !== undefined
      plan = { ...declared, varies: settings.writes || settings.async || handles }
    }
    return plan
  }
}

/** Before the body is read: the request's preferences, and `handling` of its query parameters. */
export function readPreferences(plan: () => Plan): RequestStep {
  return function readPreferences(request) {
    const field = request.headers.prefer
    if (field === undefined) return undefined
    request.prefer = new RequestPreferences(field)
    return applyHandling(request, 'querystring', plan().query)
  }
}

/** Before validation (the route's first `preValidation` hook): `handling` of the body's members. */
export function handleBody(plan: () => Plan): preValidationHookHandler {
  return function restwellPreferBody(request, _reply, done) {
    done(applyHandling(request, 'body', plan().body))
  }
}

/** A write's 200 becomes a 204, a 201 loses its body (its `Location` stays): `return=minimal`. */
function minimal(reply: FastifyReply): null {
  if (reply.statusCode === 200) reply.code(204)
  // Headers that described the dropped body: there is no content to type, measure or encode.
  reply.removeHeader('content-type')
  reply.removeHeader('content-length')
  reply.removeHeader('content-encoding')
  return null
}

/** `return` on a write's success: what to send instead, or undefined to send the body as it is. */
function applyReturn(
  request: FastifyRequest,
  reply: FastifyReply,
  prefer: RequestPreferences,
  payload: unknown,
): null | undefined {
  const status = reply.statusCode
  if (SAFE.has(request.method) || Math.trunc(status / 100) !== 2) return undefined
  if (prefer.return === 'minimal') {
    if (status === 200 || status === 201) {
      prefer.apply('return', 'minimal')
      return minimal(reply)
    }
    if (status === 204) prefer.apply('return', 'minimal')
    return undefined
  }
  const empty = (payload ?? '') === ''
  if (prefer.return === 'representation' && !empty && (status === 200 || status === 201)) {
    prefer.apply('return', 'representation')
  }
  return undefined
}

/**
 * The answer, before anything hashes or compresses it: `return` applied to a write's success,
 * `Preference-Applied` naming what was honoured (RFC 7240 §3), `Vary: Prefer` where a preference
 * may change the answer (§2).
 */
export function answerPreferences(settings: RouteSettings, plan: () => Plan): SendStep {
  return function answerPreferences(request, reply, payload) {
    if (plan().varies) appendVary(reply, 'Prefer')
    const prefer = request.prefer
    if (prefer === null) return undefined
    const out = settings.writes ? applyReturn(request, reply, prefer, payload) : undefined
    if (prefer.applied.length > 0) reply.header('preference-applied', formatApplied(prefer.applied))
    return out
  }
}

/** A failed job's error as the answer: its status, code, public message and details. */
export function jobFailure(error: JobFailureView): HttpError {
  return createError(error.statusCode, error.message, {
    code: error.code,
    details: error.details,
    expose: true,
  })
}

/** A failure as a job's status resource shows it (`@restwell/jobs`' `JobError`). */
export interface JobFailureView {
  statusCode: number
  code: string
  message: string
  details: { field: string; message: string; code?: string }[]
}
