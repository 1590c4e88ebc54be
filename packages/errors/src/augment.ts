/** Type augmentation of Fastify for `@restwell/errors`. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorBody, ErrorFormat } from './body.js'
import type { NormalizedError } from './normalize.js'

/**
 * Renders an error body in another representation (e.g. XML). Returns true when it has sent
 * the reply; false to leave it to the next renderer or the default JSON.
 */
export type ErrorRenderer = (
  body: ErrorBody,
  error: NormalizedError,
  request: FastifyRequest,
  reply: FastifyReply,
) => boolean

/** What `@restwell/errors` exposes on the Fastify instance. */
export interface RestwellErrorsApi {
  /** The configured body form. */
  readonly format: ErrorFormat
  /** The response header that carries the request id, or false. */
  readonly requestIdHeader: string | false
  /** The base of a problem body's `type` (`<base><code>`), or undefined for `about:blank`. */
  readonly problemTypeBase: string | undefined
  /** Adds a renderer consulted, in order, before the default JSON body. */
  addRenderer(renderer: ErrorRenderer): void
  /** Sends any thrown value as an error response in the configured form. */
  send(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply
}

declare module 'fastify' {
  interface FastifyInstance {
    restwellErrors: RestwellErrorsApi
  }
  interface FastifyRequest {
    /** The id in every error body and the `X-Request-Id` header. */
    requestId: string
  }
}
