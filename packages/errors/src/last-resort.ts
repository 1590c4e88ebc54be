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

/**
 * The description of the symbol under which Fastify keeps, per reply, the error handler the next
 * error goes to (`kReplyNextErrorHandler`, lib/error-handler.js `handleError`). It is not public
 * API: tests pin it, and without it errors go where Fastify sends them (the parent handler).
 */
export const NEXT_ERROR_HANDLER = 'fastify.reply.nextErrorHandler'

type ErrorHandlerFunc = (error: never, request: never, reply: never) => unknown

/**
 * Sends the next error of this reply to `func` instead of the parent error handler. Fastify calls
 * an error handler once per error and sends what fails in its answer to the parent handler
 * (Fastify's default at the root, whose fallback writes the error's message). Called from a
 * handler, while Fastify's slot holds that parent: `func` is put in front of it, so a third
 * error would still reach the parent. False when the slot is not there.
 */
export function routeNextErrorTo(reply: FastifyReply, func: ErrorHandlerFunc): boolean {
  const slot = nextErrorSlot(reply)
  if (slot === undefined) return false
  const slots = reply as unknown as Record<symbol, unknown>
  const parent = slots[slot]
  if (typeof parent !== 'object' || parent === null) return false
  let byFunc = fronts.get(parent)
  if (byFunc === undefined) {
    byFunc = new Map()
    fronts.set(parent, byFunc)
  }
  let front = byFunc.get(func)
  if (front === undefined) {
    front = Object.create(parent, { func: { value: func } }) as object
    byFunc.set(func, front)
  }
  slots[slot] = front
  return true
}

/**
 * The handler object put in front of a parent, per parent and handler: made once, as Fastify
 * makes its own chain once per context (an error answer, a 404 or a 405, pays a map lookup).
 */
const fronts = new WeakMap<object, Map<ErrorHandlerFunc, object>>()

/** The slot's symbol, found once by its description (every reply of a Fastify copy has the same). */
let knownSlot: symbol | undefined

function nextErrorSlot(reply: FastifyReply): symbol | undefined {
  if (knownSlot !== undefined && Object.hasOwn(reply, knownSlot)) return knownSlot
  const slot = Object.getOwnPropertySymbols(reply).find((s) => s.description === NEXT_ERROR_HANDLER)
  if (slot !== undefined) knownSlot = slot
  return slot
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
