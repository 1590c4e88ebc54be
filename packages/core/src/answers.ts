/** The two rules every answer ends with: what a 304 keeps, and a bodiless HEAD. */
import { Readable } from 'node:stream'
import type { SendStep } from './plan.js'

/**
 * Representation metadata a 304 must not carry (RFC 9110 §15.4.5). What stays: the validators,
 * `Vary`, `Cache-Control`, `Expires`, `Content-Location`, and what describes the exchange rather
 * than the representation (CORS, the request id, the rate-limit headers).
 */
export const REMOVED_ON_304: readonly string[] = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-range',
  'content-disposition',
  'accept-ranges',
  'transfer-encoding',
]

/**
 * The one 304 rule: drops the representation metadata, whatever step added it. Only a header
 * present is removed: `removeHeader` deletes from two header maps, a cost paid for each name.
 */
export const notModifiedHeaders: SendStep = (_request, reply) => {
  if (reply.statusCode !== 304) return undefined
  for (const name of REMOVED_ON_304) if (reply.hasHeader(name)) reply.removeHeader(name)
  return undefined
}

/**
 * HEAD of a 204 or a 304: no `Content-Length` (RFC 9110 §8.6). Fastify's HEAD route sizes the
 * body it drops; an empty stream has no size, so none is sent. Other answers keep their body,
 * whose size is GET's `Content-Length`.
 */
export const bodilessHead: SendStep = (request, reply) => {
  if (request.method !== 'HEAD') return undefined
  const status = reply.statusCode
  if (status !== 204 && status !== 304) return undefined
  reply.removeHeader('content-length')
  return Readable.from([])
}
