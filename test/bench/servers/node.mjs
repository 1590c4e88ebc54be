// Raw node:http, the ceiling: the conventions restwell applies to these answers, written by hand
// with no framework. Every response header restwell sends on a workload is sent here too (the
// bench checks it): request id, CORS, rate limit, Cache-Control, Vary, Accept-Ranges, the error
// body with its request id; and the checks behind them (Accept → 406, Range → 206, the media
// type and If-Match of a PATCH, 405 + Allow, method override). The hashed items' ETag is a sha1
// of the bytes, computed on every GET as restwell's default does.
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { gzipSync } from 'node:zlib'
import {
  CREATED_ITEM,
  CREATED_LOCATION,
  etagListHas,
  HASHED_ITEMS,
  hashEtag,
  ITEM_BY_ID,
  ITEMS,
  itemEtag,
  mergePatch,
  pageBody,
  queryResult,
  readPageQuery,
} from '../data.mjs'
import {
  ACCEPT_PATCH,
  acceptsJson,
  COLLECTION_ALLOW,
  countRequest,
  EXPOSED,
  EXPOSED_BY_ANSWER,
  errorBody,
  fingerprintOf,
  ITEM_ALLOW,
  JSON_TYPE,
  KEY_HEADER,
  lookUpKey,
  pageLinks,
  QUERY_TYPES,
  RATE_LIMIT,
  READ_ONLY_ALLOW,
  REPLAYED,
  requestId,
  settleKey,
} from './by-hand.mjs'

const HASHED_PREFIX = `${HASHED_ITEMS}/`

/** The headers every answer gets, or a 429 already sent (then undefined). */
function commonHeaders(req, res) {
  const rate = countRequest(req.socket.remoteAddress)
  const headers = {
    'x-request-id': requestId(req.headers),
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSED,
    'x-ratelimit-limit': RATE_LIMIT,
    'x-ratelimit-remaining': rate.remaining,
    'x-ratelimit-reset': rate.reset,
  }
  if (rate.limited) {
    headers['retry-after'] = headers['x-ratelimit-reset']
    error(res, headers, 429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded')
    return undefined
  }
  return headers
}

function sendBytes(res, status, bytes, headers) {
  if (bytes !== undefined) {
    headers['content-type'] = JSON_TYPE
    headers['content-length'] = bytes.length
  }
  res.writeHead(status, headers)
  res.end(res.req.method === 'HEAD' ? undefined : bytes)
}

function error(res, headers, status, code, message) {
  const body = errorBody(code, message, headers['x-request-id'])
  headers['cache-control'] = 'no-store'
  headers.vary = 'Accept'
  sendBytes(res, status, Buffer.from(JSON.stringify(body)), headers)
}

/** 405 with the `Allow` the caller put in `headers`. */
function notAllowed(req, res, headers, method) {
  const message = `Method ${method} is not allowed on ${req.url}`
  return error(res, headers, 405, 'METHOD_NOT_ALLOWED', message)
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function parseJson(res, headers, text) {
  try {
    return JSON.parse(text)
  } catch {
    error(res, headers, 400, 'BAD_REQUEST', 'The body is not valid JSON')
    return undefined
  }
}

/**
 * A GET's 200, 206 (one `bytes=` range) or 304, with the validators and caching headers; a
 * QUERY's has no range (`ranges` false: RFC 9110 §14.2 defines them for GET only).
 */
function sendRepresentation(req, res, headers, bytes, etag, ranges = true) {
  headers.etag = etag
  headers['cache-control'] = 'no-cache'
  headers.vary = 'Accept, Accept-Encoding'
  if (etagListHas(req.headers['if-none-match'], etag, true)) {
    res.writeHead(304, headers)
    return res.end()
  }
  if (!ranges) return sendBytes(res, 200, bytes, headers)
  // Ranges apply to the identity bytes only, as restwell's do.
  const identity = headers['content-encoding'] === undefined
  if (identity) headers['accept-ranges'] = 'bytes'
  const range = req.headers.range
  if (range !== undefined && identity) {
    const match = /^bytes=(\d*)-(\d*)$/.exec(range)
    const total = bytes.length
    const start = match?.[1] ? Number(match[1]) : total - Number(match?.[2] ?? 0)
    const end = match?.[1] && match[2] ? Math.min(Number(match[2]), total - 1) : total - 1
    if (match && start <= end && start < total) {
      headers['content-range'] = `bytes ${start}-${end}/${total}`
      return sendBytes(res, 206, bytes.subarray(start, end + 1), headers)
    }
    headers['content-range'] = `bytes */${total}`
    return error(res, headers, 416, 'RANGE_NOT_SATISFIABLE', 'The range is not satisfiable')
  }
  return sendBytes(res, 200, bytes, headers)
}

function getPage(req, res, headers, query) {
  const { page, limit } = readPageQuery(Object.fromEntries(query))
  const body = pageBody(page, limit)
  headers.link = pageLinks(page, limit, ITEMS.length)
  headers['x-total-count'] = String(ITEMS.length)
  const bytes = Buffer.from(JSON.stringify(body))
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
  // The gzip variant gets its own tag (RFC 9110 8.8.3); both are computed from one hash.
  const hash = hashEtag(bytes)
  if (!gzip) return sendRepresentation(req, res, headers, bytes, hash)
  const etag = `${hash.slice(0, -1)}-gzip"`
  if (etagListHas(req.headers['if-none-match'], etag, true)) {
    return sendRepresentation(req, res, headers, bytes, etag)
  }
  headers['content-encoding'] = 'gzip'
  return sendRepresentation(req, res, headers, gzipSync(bytes), etag)
}

async function item(req, res, headers, id, method) {
  const current = ITEM_BY_ID.get(id)
  if (method !== 'GET' && method !== 'HEAD' && method !== 'PATCH' && method !== 'PUT') {
    headers.allow = ITEM_ALLOW
    headers['accept-patch'] = ACCEPT_PATCH
    return notAllowed(req, res, headers, method)
  }
  if (!current) return error(res, headers, 404, 'NOT_FOUND', 'No such item')
  const etag = itemEtag(current)
  if (method === 'GET' || method === 'HEAD') {
    return sendRepresentation(req, res, headers, Buffer.from(JSON.stringify(current)), etag)
  }
  headers['cache-control'] = 'no-store'
  headers.vary = 'Accept'
  if (method === 'PATCH') {
    const type = req.headers['content-type'] ?? ''
    if (!type.startsWith('application/merge-patch+json')) {
      headers['accept-patch'] = ACCEPT_PATCH
      return error(res, headers, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Use application/merge-patch+json')
    }
    const ifMatch = req.headers['if-match']
    if (ifMatch !== undefined && !etagListHas(ifMatch, etag, false)) {
      return error(res, headers, 412, 'PRECONDITION_FAILED', 'The if-match precondition failed')
    }
    const patch = parseJson(res, headers, await readBody(req))
    if (patch === undefined) return undefined
    headers.etag = etag
    return sendBytes(res, 200, Buffer.from(JSON.stringify(mergePatch(current, patch))), headers)
  }
  const next = parseJson(res, headers, await readBody(req))
  if (next === undefined) return undefined
  return sendBytes(res, 200, Buffer.from(JSON.stringify({ ...next, id: current.id })), headers)
}

/** `QUERY /items` (RFC 10008): the items the JSON query names, the ETag hashed from the bytes. */
async function query(req, res, headers) {
  const type = req.headers['content-type'] ?? ''
  if (!type.startsWith('application/json')) {
    headers['accept-query'] = QUERY_TYPES
    return error(res, headers, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Use application/json')
  }
  const parsed = parseJson(res, headers, await readBody(req))
  if (parsed === undefined) return undefined
  const bytes = Buffer.from(JSON.stringify(queryResult(parsed)))
  return sendRepresentation(req, res, headers, bytes, hashEtag(bytes), false)
}

/** An item whose ETag is hashed from the bytes on every GET: no version is used. */
function hashedItem(req, res, headers, id, method) {
  if (method !== 'GET' && method !== 'HEAD') {
    headers.allow = READ_ONLY_ALLOW
    return notAllowed(req, res, headers, method)
  }
  const current = ITEM_BY_ID.get(id)
  if (!current) return error(res, headers, 404, 'NOT_FOUND', 'No such item')
  const bytes = Buffer.from(JSON.stringify(current))
  return sendRepresentation(req, res, headers, bytes, hashEtag(bytes))
}

/** `POST /items` creates the item (the store is not written); with a key, as restwell does. */
async function create(req, res, headers) {
  headers['cache-control'] = 'no-store'
  headers.vary = 'Accept'
  const text = await readBody(req)
  const value = req.headers[KEY_HEADER]
  let claim
  if (value !== undefined) {
    const url = req.url
    const held = lookUpKey(
      value,
      req.socket.remoteAddress,
      'POST',
      '/items',
      fingerprintOf('POST', url, text),
    )
    if (held.error !== undefined) return error(res, headers, ...held.error)
    if (held.replay !== undefined) {
      const { status, headers: stored, body } = held.replay
      for (const [name, v] of stored) headers[name] = v
      headers[REPLAYED] = 'true'
      headers['content-length'] = body.length
      res.writeHead(status, headers)
      return res.end(body)
    }
    claim = held.claim
  }
  const fields = parseJson(res, headers, text)
  if (fields === undefined) {
    if (claim !== undefined) settleKey(claim)
    return undefined
  }
  const bytes = Buffer.from(JSON.stringify({ ...CREATED_ITEM, ...fields }))
  headers.location = CREATED_LOCATION
  if (claim !== undefined) {
    settleKey(
      claim,
      201,
      [
        ['content-type', JSON_TYPE],
        ['location', CREATED_LOCATION],
      ],
      bytes,
    )
  }
  return sendBytes(res, 201, bytes, headers)
}

/** The kind of answer (`EXPOSED_BY_ANSWER`) of each method an item path has a route for. */
const ITEM_ANSWERS = { GET: 'versioned', HEAD: 'versioned', PATCH: 'patch', PUT: 'write' }
const READ_ANSWERS = { GET: 'hashed', HEAD: 'hashed' }

/** restwell's expose list of the route a request reaches (an answer of no route keeps them all). */
function exposeFor(headers, answer) {
  const exposed = EXPOSED_BY_ANSWER[answer]
  if (exposed !== undefined) headers['access-control-expose-headers'] = exposed
  return headers
}

async function handle(req, res) {
  const headers = commonHeaders(req, res)
  if (headers === undefined) return undefined
  const url = req.url
  const q = url.indexOf('?')
  const pathname = q === -1 ? url : url.slice(0, q)
  let method = req.method
  const override = req.headers['x-http-method-override']
  if (method === 'POST' && typeof override === 'string') {
    const target = override.toUpperCase()
    if (target === 'PUT' || target === 'PATCH' || target === 'DELETE') method = target
  }
  if (!acceptsJson(req.headers.accept)) {
    return error(res, headers, 406, 'NOT_ACCEPTABLE', 'Use application/json')
  }
  if (pathname === '/items') {
    if (method === 'GET' || method === 'HEAD') {
      exposeFor(headers, 'page')
      return getPage(req, res, headers, new URLSearchParams(q === -1 ? '' : url.slice(q + 1)))
    }
    if (method === 'POST') return create(req, res, exposeFor(headers, 'create'))
    if (method === 'QUERY') return query(req, res, exposeFor(headers, 'query'))
    headers.allow = COLLECTION_ALLOW
    return notAllowed(req, res, headers, method)
  }
  if (pathname.startsWith('/items/')) {
    const id = pathname.slice(7)
    if (/^[0-9]+$/.test(id))
      return item(req, res, exposeFor(headers, ITEM_ANSWERS[method]), id, method)
  }
  if (pathname.startsWith(HASHED_PREFIX)) {
    const id = pathname.slice(HASHED_PREFIX.length)
    if (/^[0-9]+$/.test(id)) {
      return hashedItem(req, res, exposeFor(headers, READ_ANSWERS[method]), id, method)
    }
  }
  return error(res, headers, 404, 'NOT_FOUND', 'Not found')
}

export async function build() {
  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      const id = res.getHeader('x-request-id') ?? randomUUID()
      error(res, { 'x-request-id': id }, 500, 'INTERNAL', 'Internal Server Error')
      console.error(err)
    })
  })
  // restwell's keep-alive timeout: longer than the usual proxies' 60 s (no reset races).
  server.keepAliveTimeout = 72_000
  return {
    server,
    listen: () =>
      new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port))),
    close: () => new Promise((resolve) => server.close(() => resolve())),
    expect: {},
  }
}
