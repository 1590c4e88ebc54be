/**
 * One operation served by the app itself (`fastify.inject`): it passes every hook of the app,
 * the rate limit included, with the batch's connection headers and credentials.
 */
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify'
import { toOutcome } from './outcome.js'
import type { Operation } from './parse.js'
import type { Outcome } from './schedule.js'

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

/** Serves `operation` of the batch `request`; `marker` tells the app's batch route it is one. */
export async function execute(
  fastify: FastifyInstance,
  marker: string,
  request: FastifyRequest,
  operation: Operation,
): Promise<Outcome> {
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
