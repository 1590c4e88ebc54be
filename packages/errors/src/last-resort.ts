/**
 * The last answer to a request whose error answer failed too (an `onSend` hook that throws on
 * every body, a header value Node refuses at `writeHead`): written to the raw response, past
 * Fastify's reply, its hooks and its fallback body (which shows the error's message).
 */
import type { OutgoingHttpHeaders } from 'node:http'
import { validateHeaderName, validateHeaderValue } from 'node:http'
import { pathOf } from '@restwell/core/internal'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { buildErrorBody, errorContentType, isoNow } from './body.js'
import { httpErrors } from './http-error.js'
import { logError, normalizeError } from './normalize.js'
import { requestIdOf } from './request-id.js'
import type { ErrorsSettings } from './settings.js'

/** Node's codes for a header name or value it refuses (`setHeader`, `writeHead`). */
const HEADER_ERROR_CODES: ReadonlySet<string> = new Set([
  'ERR_INVALID_CHAR',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_INVALID_HTTP_TOKEN',
])

/** Whether Node refused a header the reply carries: answering with the same headers fails again. */
export function isHeaderError(thrown: unknown): boolean {
  const code = (thrown as { code?: unknown } | null | undefined)?.code
  return typeof code === 'string' && HEADER_ERROR_CODES.has(code)
}

/** Puts `name: value` in `headers` when Node would accept it. */
export function setIfValid(headers: OutgoingHttpHeaders, name: string, value: unknown): void {
  try {
    validateHeaderName(name)
    // Typed for strings; Node checks numbers and arrays the way it sends them.
    validateHeaderValue(name, value as string)
  } catch {
    return
  }
  headers[name] = value as OutgoingHttpHeaders[string]
}

/**
 * Writes `status`, exactly `headers` and `body` (none for HEAD) to the raw response, after
 * `reply.hijack()` so Fastify writes nothing more. Nothing when the response was sent or its
 * connection is gone; a response whose head is out already cannot become an error response: it
 * is cut, as Fastify's own fallback does.
 */
export function writeRaw(
  reply: FastifyReply,
  status: number,
  headers: OutgoingHttpHeaders,
  body: string,
): void {
  const res = reply.raw
  if (reply.sent || res.destroyed) return
  if (res.headersSent) {
    res.destroy()
    return
  }
  reply.hijack()
  // Headers set on the raw response itself (`reply.raw.setHeader`) are the route's too.
  for (const name of res.getHeaderNames()) res.removeHeader(name)
  res.writeHead(status, headers)
  res.end(reply.request.method === 'HEAD' ? undefined : body)
}

/** Headers of the route a last-resort answer keeps: CORS, so a browser can read it, and Vary. */
const KEPT_HEADER = /^(?:access-control-|vary$)/

/** The masked 500 of the last-resort answer: nothing of the failure is shown. */
const LAST_RESORT_ERROR = normalizeError(httpErrors.internalServerError())

/**
 * The answer when answering an error failed (or would fail: a header Node refuses): the masked
 * 500 in the configured form (no renderer), with only the headers the plugin sets and the
 * route's CORS and Vary headers Node accepts, written past Fastify's reply and hooks (they
 * failed once). `logged`: the failure was logged at error already.
 */
export function lastResort(
  settings: ErrorsSettings,
  thrown: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  logged: boolean,
): void {
  const idHeader = settings.requestIdHeader
  const requestId = requestIdOf(request, idHeader)
  if (!logged) logError(request, thrown, LAST_RESORT_ERROR, requestId)
  const body = JSON.stringify(
    buildErrorBody(settings.format, LAST_RESORT_ERROR, {
      requestId,
      timestamp: isoNow(),
      instance: pathOf(request.originalUrl),
      problemTypeBase: settings.problemTypeBase,
    }),
  )
  const headers: OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (KEPT_HEADER.test(name)) setIfValid(headers, name, value)
  }
  if (idHeader !== false) setIfValid(headers, idHeader, requestId)
  headers['cache-control'] = 'no-store'
  headers['content-type'] = errorContentType(settings.format)
  // A HEAD answer's Content-Length is the one GET would get (RFC 9110 §9.3.2).
  headers['content-length'] = Buffer.byteLength(body)
  writeRaw(reply, LAST_RESORT_ERROR.statusCode, headers, body)
}
