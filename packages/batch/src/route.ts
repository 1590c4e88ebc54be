/** The batch route: `POST <basePath>`, its operations run in order of their dependencies, 207. */
import { randomUUID } from 'node:crypto'
import { ErrorCode, httpErrors } from '@restwell/errors'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { BATCH_MARKER_HEADER, execute } from './execute.js'
import type { BatchTransaction, ResolvedBatchOptions } from './options.js'
import { failedDependency } from './outcome.js'
import { comparablePath, invalid, type Operation, type ParseLimits, parseBatch } from './parse.js'
import { batchRouteSchema } from './schema.js'
import { type Outcome, repeats, type Settled, schedule } from './schedule.js'

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

/** What the route reads: the options, and the limits of a batch body. */
interface BatchRoute {
  readonly options: ResolvedBatchOptions
  readonly limits: ParseLimits
  /** A random value: a client cannot make a request look like one a batch made. */
  readonly marker: string
}

/** Runs the batch of `request`: the answer of each operation, in the order of the batch. */
async function runBatch(
  fastify: FastifyInstance,
  route: BatchRoute,
  request: FastifyRequest,
): Promise<({ id: string } & Outcome)[]> {
  if (request.headers[BATCH_MARKER_HEADER] === route.marker) {
    throw invalid('url', 'may not be a batch: batches do not nest')
  }
  refuseIfMatch(request)
  const batch = parseBatch(request.body, route.limits)
  const { transaction, concurrency } = route.options
  if (batch.atomic && transaction === undefined) {
    throw invalid('atomic', 'is not supported by this API (no transaction is configured)')
  }
  const { operations } = batch
  const run = (atomic: boolean): Promise<Settled[]> =>
    schedule(operations, {
      concurrency: atomic ? 1 : concurrency,
      stopOnFailure: atomic,
      sameAs: repeats(operations),
      execute: (operation) => execute(fastify, route.marker, request, operation),
      failedDependency: (operation, failed) =>
        failedDependency(fastify, request, operation, failed),
    })
  const results =
    batch.atomic && transaction !== undefined
      ? await runAtomic(transaction, () => run(true))
      : await run(false)
  return results.map((result, index) => ({
    id: (operations[index] as Operation).id,
    ...result.outcome,
  }))
}

/** Adds the batch route to `fastify`. */
export function addBatchRoute(fastify: FastifyInstance, options: ResolvedBatchOptions): void {
  const route: BatchRoute = {
    options,
    marker: randomUUID(),
    limits: {
      maxOperations: options.maxOperations,
      batchPath: comparablePath(`${fastify.prefix}${options.basePath}`),
      forbiddenHeaders: new Set([...options.forbiddenHeaders, BATCH_MARKER_HEADER]),
      forbiddenQuery: options.forbiddenQuery,
    },
  }
  fastify.post(
    options.basePath,
    {
      bodyLimit: options.maxBodySize,
      // The batch is not a collection (no plural name), has one JSON form, and no validator
      // (it evaluates If-Match itself, as for a target without a representation).
      config: { naming: false, negotiation: false, conditional: false, ...options.config },
      schema: batchRouteSchema(route.limits),
      // parseBatch checks the body: Ajv's coercion would take `{ "requests": {…} }` for an array.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const responses = await runBatch(fastify, route, request)
      reply.code(207)
      return { responses }
    },
  )
}
