// What the servers that write restwell's conventions by hand (raw node, Fastify hand-specialized)
// share: the values restwell sends that do not depend on the request, and the few checks behind
// its headers, each written once.
import { hash, randomUUID } from 'node:crypto'
import { RATE_LIMIT_MAX } from './limits.mjs'

/** The names restwell's CORS exposes on the answers of no route (404, 405). */
const EXPOSED_NAMES = [
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
  'Accept-Query',
  'Content-Location',
  'API-Version',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
  'Idempotent-Replayed',
]

/** `Access-Control-Expose-Headers` of restwell's CORS on the answers of no route (404, 405). */
export const EXPOSED = EXPOSED_NAMES.join(', ')

/** The names no route of the bench may send: no convention that sends them applies there. */
const NOT_ON_ROUTES = new Set([
  'X-Total-Count',
  'Allow',
  'Accept-Patch',
  'Accept-Query',
  'Content-Location',
  'API-Version',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
  'Idempotent-Replayed',
])

/** What restwell exposes on the answers of every route of the bench: what they may send. */
const ROUTE_EXPOSED = EXPOSED_NAMES.filter((name) => !NOT_ON_ROUTES.has(name))

/**
 * restwell's `Access-Control-Expose-Headers` of each route by the kind of answer it gives: the
 * headers its conventions may send there (a page's total, a patch route's `Accept-Patch`, a
 * keyed route's `Idempotent-Replayed`, the QUERY route's `Accept-Query` and `Content-Location`;
 * the batch route does no negotiation).
 */
export const EXPOSED_BY_ANSWER = {
  versioned: ROUTE_EXPOSED.join(', '),
  hashed: ROUTE_EXPOSED.join(', '),
  write: ROUTE_EXPOSED.join(', '),
  page: ROUTE_EXPOSED.toSpliced(3, 0, 'X-Total-Count').join(', '),
  patch: [...ROUTE_EXPOSED, 'Accept-Patch'].join(', '),
  create: [...ROUTE_EXPOSED, 'Idempotent-Replayed'].join(', '),
  query: [...ROUTE_EXPOSED, 'Accept-Query', 'Content-Location'].join(', '),
  batch: ROUTE_EXPOSED.filter((name) => name !== 'Accept').join(', '),
}

export const ITEM_ALLOW = 'GET, HEAD, PUT, PATCH, OPTIONS'
export const COLLECTION_ALLOW = 'GET, HEAD, POST, OPTIONS, QUERY'
export const READ_ONLY_ALLOW = 'GET, HEAD, OPTIONS'
export const ACCEPT_PATCH = 'application/json-patch+json, application/merge-patch+json'
/** `Accept-Query` of the QUERY route (RFC 10008 §3), as restwell writes it. */
export const QUERY_TYPES = 'application/json'
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

/**
 * restwell's `Idempotency-Key` (memory store), by hand: the key is an RFC 9651 String; the first
 * request under (client, method, route, key) holds it while it runs, and its answer (status,
 * Content-Type and Location, bytes) is kept 24 h; the same request again gets that answer back
 * with `Idempotent-Replayed: true`, another request under the key is 422, one while the first
 * still runs 409. A 5xx, or a refusal before the work, frees the key.
 */
export const KEY_HEADER = 'idempotency-key'
export const REPLAYED = 'idempotent-replayed'
const KEY_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\]){1,255})"$/
const EXPIRY_MS = 86_400_000
const IN_FLIGHT_MS = 60_000
const MAX_KEYS = 100_000
const keys = new Map()

/** The fingerprint of a request: method, URL and the body (its bytes, or its JSON). */
export function fingerprintOf(method, url, body) {
  return hash('sha256', `${method}\n${url}\n${body}`, 'base64url')
}

/**
 * Looks a request's key up. Returns `{ error: [status, code, message] }` (a malformed key, 409,
 * 422), `{ replay }` (the stored answer), or `{ claim }` (the key is now held: pass it to
 * `settleKey` with the answer).
 */
export function lookUpKey(value, scope, method, route, fingerprint) {
  const match = typeof value === 'string' ? KEY_STRING.exec(value) : null
  if (match === null) {
    return { error: [400, 'INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be a String'] }
  }
  const id = `${scope}\0${method}\0${route}\0${match[1].replace(/\\(.)/g, '$1')}`
  const now = Date.now()
  const found = keys.get(id)
  if (found !== undefined && found.expires > now) {
    if (found.fingerprint !== fingerprint) {
      return {
        error: [
          422,
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used with another request',
        ],
      }
    }
    if (found.answer === undefined) {
      return {
        error: [
          409,
          'IDEMPOTENCY_KEY_IN_USE',
          'A request with this Idempotency-Key is still being processed',
        ],
      }
    }
    return { replay: found.answer }
  }
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value)
  const claim = { id, fingerprint, answer: undefined, expires: now + IN_FLIGHT_MS }
  keys.set(id, claim)
  return { claim }
}

/**
 * Stores the answer (`status`, `[name, value]` headers, bytes) of the request that holds
 * `claim`; frees the key instead after a 5xx, or when called without one (refused before it ran).
 */
export function settleKey(claim, status, headers, body) {
  if (keys.get(claim.id) !== claim) return
  keys.delete(claim.id)
  if (status === undefined || status >= 500) return
  claim.answer = { status, headers, body: Buffer.from(body) }
  claim.expires = Date.now() + EXPIRY_MS
  keys.set(claim.id, claim)
}
