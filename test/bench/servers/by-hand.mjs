// What the servers that write restwell's conventions by hand (raw node, Fastify hand-specialized)
// share: the values restwell sends that do not depend on the request, and the few checks behind
// its headers, each written once.
import { randomUUID } from 'node:crypto'
import { RATE_LIMIT_MAX } from './limits.mjs'

/** `Access-Control-Expose-Headers` of restwell's CORS, on every answer. */
export const EXPOSED = [
  'ETag',
  'Location',
  'Link',
  'X-Total-Count',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
  'Content-Range',
  'Accept-Ranges',
  'Allow',
  'Accept',
  'Accept-Encoding',
  'Accept-Patch',
  'API-Version',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
].join(', ')

export const ITEM_ALLOW = 'GET, HEAD, PUT, PATCH, OPTIONS'
export const COLLECTION_ALLOW = 'GET, HEAD, OPTIONS'
export const ACCEPT_PATCH = 'application/json-patch+json, application/merge-patch+json'
export const JSON_TYPE = 'application/json; charset=utf-8'
export const RATE_LIMIT = String(RATE_LIMIT_MAX)

const SAFE_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/

/** The incoming `X-Request-Id` when it is a safe token, else a new UUID (restwell's `genReqId`). */
export function requestId(headers) {
  const incoming = headers['x-request-id']
  return typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID()
}

/** A fixed one-minute window per client address, as restwell's in-memory limiter counts. */
const WINDOW_MS = 60_000
const windows = new Map()

/** Counts one request of `key`: what its rate-limit headers say, and whether it is over. */
export function countRequest(key) {
  const now = Date.now()
  let window = windows.get(key)
  if (window === undefined || window.resetAt <= now) {
    window = { count: 0, resetAt: now + WINDOW_MS }
    windows.set(key, window)
  }
  window.count++
  return {
    remaining: String(Math.max(0, RATE_LIMIT_MAX - window.count)),
    reset: String(Math.ceil((window.resetAt - now) / 1000)),
    limited: window.count > RATE_LIMIT_MAX,
  }
}

/** True when `Accept` allows JSON (absent, `*\/*`, `application/*`, `application/json`). */
export function acceptsJson(accept) {
  if (accept === undefined) return true
  for (const part of accept.split(',')) {
    const semi = part.indexOf(';')
    const range = (semi === -1 ? part : part.slice(0, semi)).trim().toLowerCase()
    if (range === 'application/json' || range === '*/*' || range === 'application/*') {
      if (semi === -1 || !/;\s*q=0(\.0*)?\s*(;|$)/.test(part)) return true
    }
  }
  return false
}

/** restwell's `Link` of a page of `limit` items out of `total`: first, prev, next, last. */
export function pageLinks(page, limit, total) {
  const last = Math.ceil(total / limit)
  const link = (p, rel) => `</items?page=${p}&limit=${limit}>; rel="${rel}"`
  return [
    link(1, 'first'),
    ...(page > 1 ? [link(page - 1, 'prev')] : []),
    ...(page < last ? [link(page + 1, 'next')] : []),
    link(last, 'last'),
  ].join(', ')
}

/** restwell's error body. */
export function errorBody(code, message, requestIdValue) {
  return {
    error: {
      code,
      message,
      details: [],
      requestId: requestIdValue,
      timestamp: new Date().toISOString(),
    },
  }
}
