/** An operation's answer as the 207 carries it: its status, its headers, its body decoded. */
import {
  buildErrorBody,
  errorContentType,
  type HttpError,
  httpErrors,
  normalizeError,
} from '@restwell/errors'
import type { FastifyInstance, FastifyRequest, LightMyRequestResponse } from 'fastify'
import type { Operation } from './parse.js'
import type { Outcome } from './schedule.js'

/** CORS headers: a browser reads those of the batch response, never an operation's. */
const CORS_PREFIX = 'access-control-'

/** Response headers that describe the inner message, not the operation's answer. */
const DROPPED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'date',
])

const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i
const TEXT_TYPE =
  /^(?:text\/|application\/(?:[\w.-]+\+)?xml\s*(?:;|$)|application\/x-www-form-urlencoded)/i

/** An operation's body as the 207 carries it: JSON parsed, text as a string, other bytes in base64. */
export function decodeBody(payload: Buffer, contentType: string | undefined): unknown {
  const type = contentType ?? ''
  if (JSON_TYPE.test(type)) {
    const text = payload.toString('utf8')
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return TEXT_TYPE.test(type) ? payload.toString('utf8') : payload.toString('base64')
}

/** The 207 entry of an injected response. */
export function toOutcome(response: LightMyRequestResponse): Outcome {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name) || name.startsWith(CORS_PREFIX)) continue
    headers[name] = typeof value === 'number' ? String(value) : value
  }
  const outcome: Outcome = { status: response.statusCode, headers }
  const payload = response.rawPayload
  if (payload.length > 0)
    outcome.body = decodeBody(payload, response.headers['content-type'] as string | undefined)
  return outcome
}

/** An answer made by the batch itself, in the error form `@restwell/errors` uses. */
function errorOutcome(
  fastify: FastifyInstance,
  request: FastifyRequest,
  error: HttpError,
  operation: Operation,
): Outcome {
  const errors = fastify.hasDecorator('restwellErrors') ? fastify.restwellErrors : undefined
  const format = errors?.format ?? 'structured'
  const body = buildErrorBody(format, normalizeError(error), {
    requestId: request.requestId ?? request.id,
    timestamp: new Date().toISOString(),
    instance: operation.url.split('?', 1)[0] as string,
    problemTypeBase: errors?.problemTypeBase,
  })
  return { status: error.statusCode, headers: { 'content-type': errorContentType(format) }, body }
}

/** The 424 of an operation not run: `failed` names its dependencies that failed (none: atomic). */
export function failedDependency(
  fastify: FastifyInstance,
  request: FastifyRequest,
  operation: Operation,
  failed: string[],
): Outcome {
  const reason =
    failed.length > 0
      ? `its dependency ${failed.map((id) => JSON.stringify(id)).join(', ')} failed`
      : 'an earlier operation of the atomic batch failed'
  return errorOutcome(
    fastify,
    request,
    httpErrors.failedDependency(`Not run: ${reason}`),
    operation,
  )
}
