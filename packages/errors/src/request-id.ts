/** Request ids: an incoming `X-Request-Id` is honoured when it is a safe token, else one is made. */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyRequest } from 'fastify'

export const DEFAULT_REQUEST_ID_HEADER = 'x-request-id'
/** Longest incoming id we keep. */
export const MAX_REQUEST_ID_LENGTH = 128
const SAFE_ID = /^[A-Za-z0-9._:@+=/-]+$/

/** The incoming id if it is a safe token (1-128 chars of `A-Za-z0-9._:@+=/-`), else undefined. */
export function safeRequestId(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_REQUEST_ID_LENGTH) {
    return undefined
  }
  return SAFE_ID.test(value) ? value : undefined
}

/**
 * A `genReqId` for `Fastify({ genReqId })`: the safe incoming `X-Request-Id`, else a UUID, so
 * `request.id`, the logs and the error bodies share one id across instances.
 */
export function genReqId(req: Pick<IncomingMessage, 'headers'>): string {
  return safeRequestId(req.headers[DEFAULT_REQUEST_ID_HEADER]) ?? randomUUID()
}

/**
 * The request's id, decided once and kept on `request.requestId`: the safe incoming value of
 * `header`, else `request.id`.
 */
export function requestIdOf(request: FastifyRequest, header: string | false): string {
  // Falsy when not yet known: '' (the decorator's default) or, on the request Fastify makes
  // for `frameworkErrors` (its base class, without decorators), undefined.
  if (request.requestId) return request.requestId
  const id = (header && safeRequestId(request.headers[header])) || String(request.id)
  request.requestId = id
  return id
}
