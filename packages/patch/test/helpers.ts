/** Test helpers shared by this package's tests. */
import { type HttpError, httpErrors, isHttpError } from '@restwell/errors'
import type { FastifyInstance } from 'fastify'

/** Runs `fn`, which must throw an `HttpError`, and returns that error. */
export function failure(fn: () => unknown): HttpError {
  try {
    fn()
  } catch (error) {
    if (isHttpError(error)) return error
    throw error
  }
  throw new Error('expected an HttpError, nothing was thrown')
}

/** The status, code and first detail's field of an `HttpError`, for one `t.same`. */
export function summary(error: HttpError): {
  status: number
  code: string
  field: string | undefined
} {
  return { status: error.statusCode, code: error.code, field: error.details[0]?.field }
}

/**
 * Stands in for @restwell/methods: answers OPTIONS (204) and other methods (405) of no route
 * from `onRequest` on the 404 route, with `Allow: PATCH`.
 */
export function answerUnroutedMethods(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return
    if (request.method === 'OPTIONS') return reply.code(204).header('allow', 'PATCH').send()
    throw httpErrors.methodNotAllowed('Not here', { headers: { allow: 'PATCH' } })
  })
}
