/** `reply.created(location, body?)`: 201 Created with a `Location` (RFC 9110 §15.3.2). */
import type { FastifyReply } from 'fastify'

/** No CR, LF or NUL: a `Location` that cannot split the response. */
const SAFE_LOCATION = /^[^\r\n\0]+$/

/** Sends 201 with `Location` and the created representation (or no body). */
export function created(this: FastifyReply, location: string | URL, body?: unknown): FastifyReply {
  const value =
    typeof location === 'string' ? location : location instanceof URL ? location.href : ''
  if (!SAFE_LOCATION.test(value)) {
    throw new TypeError('reply.created(location): location must be a non-empty URL or path')
  }
  this.code(201).header('location', value)
  return body === undefined ? this.send() : this.send(body)
}
