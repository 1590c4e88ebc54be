/** What pagination sets up once per registration: `request.pagination` and `reply.paginate()`. */
import { declareState, PAGE } from '@restwell/core/internal'
import type { FastifyInstance } from 'fastify'
import type { ResolvedPaginationOptions } from './options.js'
import { paginate, ROUTE } from './steps.js'

/** Decorates requests with `pagination` and replies with `paginate`; the options are the settings. */
export function setupPagination(
  fastify: FastifyInstance,
  options: ResolvedPaginationOptions,
): ResolvedPaginationOptions {
  fastify.decorateRequest('pagination', null)
  declareState(fastify, 'request', ROUTE)
  declareState(fastify, 'reply', PAGE)
  fastify.decorateReply('paginate', paginate)
  return options
}
