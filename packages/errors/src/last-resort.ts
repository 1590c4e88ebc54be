/**
 * The last answer to a request whose error answer failed too (an `onSend` hook that throws on
 * every body, a header value Node refuses at `writeHead`): written to the raw response, past
 * Fastify's reply, its hooks and its fallback body (which shows the error's message).
 */
import type { OutgoingHttpHeaders } from 'node:http'
import { validateHeaderName, validateHeaderValue } from 'node:http'
import type { FastifyReply } from 'fastify'

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
