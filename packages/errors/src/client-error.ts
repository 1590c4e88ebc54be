/**
 * `clientErrorHandler` for `Fastify({ clientErrorHandler })`: the answers Node's HTTP parser
 * triggers before a request exists (a malformed request line or header section, a header
 * section over `maxHeaderSize`, a request timeout), in the structured error form instead of
 * Fastify's `{"error":"Bad Request","message":"Client Error","statusCode":400}`.
 */
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { JSON_CONTENT_TYPE, standaloneErrorBody } from './body.js'
import { createError } from './http-error.js'
import { normalizeError } from './normalize.js'
import { genReqId } from './request-id.js'
import { reasonPhrase } from './statuses.js'

/** What Node passes to a `clientError` listener (Fastify's `ConnectionError`). */
export interface ClientError extends Error {
  code?: string
}

/** Node's error codes with an answer other than 400, and that answer. */
const CLIENT_ERRORS: Readonly<Record<string, { status: number; message: string }>> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time' },
  HPE_HEADER_OVERFLOW: { status: 431, message: 'The request header section is too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'The chunk extensions are too large' },
}
const MALFORMED = { status: 400, message: 'The request could not be parsed as HTTP/1.1' }

/** The complete HTTP/1.1 response (head and body) for one client error. */
export function clientErrorResponse(error: ClientError): string {
  const { status, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED
  // No request exists (its head could not be parsed, or never arrived): a fresh id.
  const requestId = genReqId({ headers: {} })
  const body = standaloneErrorBody(normalizeError(createError(status, message)), requestId)
  return (
    `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\n` +
    `Content-Type: ${JSON_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    'Connection: close\r\n' +
    `X-Request-Id: ${requestId}\r\n` +
    `Date: ${new Date().toUTCString()}\r\n` +
    `\r\n${body}`
  )
}

/**
 * For `Fastify({ clientErrorHandler })` (Fastify binds it to the instance). Like Fastify's
 * default: nothing for a reset or destroyed socket, no write to a socket that is not writable,
 * then the socket is destroyed.
 */
export function clientErrorHandler(
  this: FastifyInstance,
  error: ClientError,
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  this.log.trace({ err: error }, 'client error')
  if (socket.writable) socket.write(clientErrorResponse(error))
  socket.destroy(error)
}
