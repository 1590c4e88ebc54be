/** The `@restwell/batch` plugin: `POST /batch`, each operation served by the app itself, 207 Multi-Status. */
import { registerOnce } from '@restwell/core'
import { randomUUID } from 'node:crypto'
import {
  buildErrorBody,
  ErrorCode,
  errorContentType,
  type HttpError,
  httpErrors,
  normalizeError,
} from '@restwell/errors'
import type {
  FastifyPluginAsync,
  FastifyRequest,
  HTTPMethods,
  LightMyRequestResponse,
} from 'fastify'
import fp from 'fastify-plugin'
import {
  type BatchOptions,
  type BatchTransaction,
  type ResolvedBatchOptions,
  resolveBatchOptions,
} from './options.js'
import { comparablePath, invalid, type Operation, parseBatch } from './parse.js'
import { batchRouteSchema } from './schema.js'
import { type Outcome, repeats, type Settled, schedule } from './schedule.js'

/** Marks the requests a batch makes, so that a batch reached through another path is refused too. */
export const BATCH_MARKER_HEADER = 'x-restwell-batch'

/** The headers of the batch request that every operation gets: those of the connection. */
const CONNECTION_HEADERS = [
  'host',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
]

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

/**
 * The batch endpoint has no current representation (it only processes POSTs), so an `If-Match`
 * on the batch request is false (RFC 9110 §13.1.1): 412, nothing runs. `If-None-Match` holds
 * (§13.1.2). A precondition on one operation goes in that operation's `headers`.
 */
function refuseIfMatch(request: FastifyRequest): void {
  if (request.headers['if-match'] === undefined) return
  throw httpErrors.preconditionFailed('The if-match precondition failed', {
    code: ErrorCode.PRECONDITION_FAILED,
    details: [
      {
        field: 'headers/if-match',
        message:
          "the batch endpoint has no representation to match; send If-Match in an operation's headers",
        code: ErrorCode.PRECONDITION_FAILED,
      },
    ],
  })
}

/** Thrown inside the transaction to roll an atomic batch back. */
class Rollback extends Error {}

/**
 * Runs an atomic batch: one operation at a time inside `transaction`, nothing more after the
 * first failure, and everything rolled back then (the operations that had succeeded are marked).
 */
export async function runAtomic(
  transaction: BatchTransaction,
  run: () => Promise<Settled[]>,
): Promise<Settled[]> {
  let results: Settled[] = []
  try {
    await transaction(async () => {
      results = await run()
      if (results.some((result) => result.failed)) throw new Rollback('atomic batch rolled back')
    })
  } catch (error) {
    if (!(error instanceof Rollback)) throw error
    for (const result of results) if (result.ran && !result.failed) result.outcome.rolledBack = true
  }
  return results
}

const plugin: FastifyPluginAsync<BatchOptions> = async (fastify, rawOptions) => {
  // Its route needs no step of the pipeline: it may come after the umbrella.
  registerOnce(fastify, '@restwell/batch', 'batch', { steps: false })
  const options: ResolvedBatchOptions = resolveBatchOptions(rawOptions)
  // A random value: a client cannot make a request look like one a batch made.
  const marker = randomUUID()
  const limits = {
    maxOperations: options.maxOperations,
    batchPath: comparablePath(`${fastify.prefix}${options.basePath}`),
    forbiddenHeaders: new Set([...options.forbiddenHeaders, BATCH_MARKER_HEADER]),
    forbiddenQuery: options.forbiddenQuery,
  }

  /** An answer made here (424), in the error form `@restwell/errors` uses. */
  function errorOutcome(request: FastifyRequest, error: HttpError, operation: Operation): Outcome {
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

  function failedDependency(
    request: FastifyRequest,
    operation: Operation,
    failed: string[],
  ): Outcome {
    const reason =
      failed.length > 0
        ? `its dependency ${failed.map((id) => JSON.stringify(id)).join(', ')} failed`
        : 'an earlier operation of the atomic batch failed'
    return errorOutcome(request, httpErrors.failedDependency(`Not run: ${reason}`), operation)
  }

  /** Serves one operation through the app's own routes and hooks, with the batch's connection headers. */
  async function execute(request: FastifyRequest, operation: Operation): Promise<Outcome> {
    const headers: Record<string, string> = { [BATCH_MARKER_HEADER]: marker }
    for (const name of CONNECTION_HEADERS) {
      const value = request.headers[name]
      if (typeof value === 'string') headers[name] = value
    }
    // The batch's credentials, unless the operation brings its own.
    const authorization = request.headers.authorization
    if (authorization !== undefined) headers.authorization = authorization
    Object.assign(headers, operation.headers)
    let payload: string | undefined
    if (typeof operation.body === 'string') {
      payload = operation.body
      headers['content-type'] ??= 'text/plain; charset=utf-8'
    } else if (operation.body !== undefined) {
      payload = JSON.stringify(operation.body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await fastify.inject({
      method: operation.method as HTTPMethods,
      url: operation.url,
      headers,
      ...(payload === undefined ? {} : { payload }),
      // The client's address: the rate limit counts each operation against the client.
      remoteAddress: request.ip,
    })
    return toOutcome(response)
  }

  fastify.post(
    options.basePath,
    {
      bodyLimit: options.maxBodySize,
      // The batch is not a collection (no plural name), has one JSON form, and no validator
      // (it evaluates If-Match itself, as for a target without a representation).
      config: { naming: false, negotiation: false, conditional: false, ...options.config },
      schema: batchRouteSchema(limits),
      // parseBatch checks the body: Ajv's coercion would take `{ "requests": {…} }` for an array.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      if (request.headers[BATCH_MARKER_HEADER] === marker) {
        throw invalid('url', 'may not be a batch: batches do not nest')
      }
      refuseIfMatch(request)
      const batch = parseBatch(request.body, limits)
      const { transaction } = options
      if (batch.atomic && transaction === undefined) {
        throw invalid('atomic', 'is not supported by this API (no transaction is configured)')
      }
      const { operations } = batch
      const run = (atomic: boolean): Promise<Settled[]> =>
        schedule(operations, {
          concurrency: atomic ? 1 : options.concurrency,
          stopOnFailure: atomic,
          sameAs: repeats(operations),
          execute: (operation) => execute(request, operation),
          failedDependency: (operation, failed) => failedDependency(request, operation, failed),
        })
      const results =
        batch.atomic && transaction !== undefined
          ? await runAtomic(transaction, () => run(true))
          : await run(false)
      reply.code(207)
      return {
        responses: results.map((result, index) => ({
          id: (operations[index] as Operation).id,
          ...result.outcome,
        })),
      }
    },
  )
}

/** The `@restwell/batch` plugin. */
export const restwellBatch: FastifyPluginAsync<BatchOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@restwell/batch',
})
