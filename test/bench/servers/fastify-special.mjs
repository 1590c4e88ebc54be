// Fastify hand-specialized: bare Fastify, the same routes and response schemas, with one root
// `onRequest` and one root `onSend` hook that write by hand what restwell sends and checks on
// each workload, with what does not depend on the request decided once: the overload check,
// the request id, CORS, the rate counter and its headers, a remembered Accept check (406),
// method override's twin, 405 + Allow, the PATCH's media type (415) and If-Match (412), Vary,
// Cache-Control, Accept-Ranges, the ETag from the version or a sha1 of the bytes, 304 on
// If-None-Match, the page's Link, gzip with restwell's cache of compressed bodies, the
// batch, and a POST's Idempotency-Key (its lookup in the handler, its answer stored in `onSend`). No plugin suite on Fastify can do the same work for less: it is their ceiling.
//
// One hook more, `preSerialization`, on the two routes whose validator is known from the
// payload (the item's version, the page's item versions): it decides the 304, and finds a page
// already compressed, before the body is serialized, as restwell does. `onRequest` has no
// payload yet, `onSend` has it serialized already.
import { createHash } from 'node:crypto'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { gzipSync } from 'node:zlib'
import Fastify from 'fastify'
import {
  CREATED_ITEM,
  CREATED_LOCATION,
  etagListHas,
  HASHED_ITEMS,
  hashEtag,
  ITEM_BY_ID,
  ITEM_SCHEMA,
  ITEMS,
  itemEtag,
  mergePatch,
  PAGE_SCHEMA,
  pageBody,
  QUERY_RESULT_SCHEMA,
  QUERY_SCHEMA,
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
  RATE_LIMIT,
  READ_ONLY_ALLOW,
  REPLAYED,
  requestId,
  settleKey,
} from './by-hand.mjs'

const READ_VARY = 'Accept, Accept-Encoding'
/** Header values answered the same for every request, remembered by value (bounded). */
const MEMO_SIZE = 256
const acceptVerdicts = new Map()
const gzipVerdicts = new Map()

function remembered(memo, key, decide) {
  let value = memo.get(key)
  if (value === undefined) {
    value = decide(key)
    if (memo.size < MEMO_SIZE) memo.set(key, value)
  }
  return value
}

const acceptable = (accept) =>
  accept === undefined || remembered(acceptVerdicts, accept, acceptsJson)
const wantsGzip = (acceptEncoding) =>
  acceptEncoding !== undefined &&
  remembered(gzipVerdicts, acceptEncoding, (value) => /\bgzip\b/.test(value))

/** Pages compressed already, by `Accept-Encoding` and digest of their items (oldest go first). */
const COMPRESSED_PAGES = 64
const compressedPages = new Map()
/** The compressed page found before serialization, for `onSend` to send. */
const EARLY = Symbol('fastify-special.early')
const skipSerialization = () => ''
/** The Idempotency-Key a request holds while it runs, for `onSend` to store its answer. */
const CLAIM = Symbol('fastify-special.claim')

/**
 * restwell's overload check (`@fastify/under-pressure` as the umbrella sets it up): every second
 * the memory, the event loop's mean delay (10 ms resolution) and its utilization are sampled; a
 * request while the delay is over 1 s is refused with 503. Under the counter the limit is
 * lifted, as restwell's server lifts it there (the samples still run).
 */
const RESOLUTION_MS = 10
const MAX_DELAY_MS = process.env.RESTWELL_BENCH_COUNTING ? 0 : 1000
const RETRY_AFTER = '10'
let loopDelay = 0

function watchLoad() {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  histogram.enable()
  let elu = performance.eventLoopUtilization()
  const timer = setInterval(() => {
    process.memoryUsage()
    loopDelay = Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS)
    histogram.reset()
    elu = performance.eventLoopUtilization(elu)
  }, 1000)
  timer.unref()
  return () => {
    clearInterval(timer)
    histogram.disable()
  }
}

/** An error in restwell's form; the root headers are on the reply already. */
function fail(reply, status, code, message) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('vary', 'Accept')
    .send(errorBody(code, message, reply.request.id))
}

function notAllowed(request, reply, allow) {
  reply.header('allow', allow)
  if (allow === ITEM_ALLOW) reply.header('accept-patch', ACCEPT_PATCH)
  return fail(
    reply,
    405,
    'METHOD_NOT_ALLOWED',
    `Method ${request.method} is not allowed on ${request.url}`,
  )
}

/** The root `onRequest` hook: what every answer carries, and the checks before any work. */
function onRequest(request, reply, done) {
  const answer = request.routeOptions.config.answer
  reply
    .header('x-request-id', request.id)
    .header('access-control-allow-origin', '*')
    .header('access-control-expose-headers', EXPOSED_BY_ANSWER[answer] ?? EXPOSED)
  if (MAX_DELAY_MS > 0 && loopDelay > MAX_DELAY_MS) {
    reply.header('retry-after', RETRY_AFTER)
    return fail(reply, 503, 'OVERLOADED', 'Server overloaded (eventLoopDelay); retry later')
  }
  const rate = countRequest(request.ip)
  reply
    .header('x-ratelimit-limit', RATE_LIMIT)
    .header('x-ratelimit-remaining', rate.remaining)
    .header('x-ratelimit-reset', rate.reset)
  if (rate.limited) {
    reply.header('retry-after', rate.reset)
    return fail(reply, 429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded')
  }
  if (!acceptable(request.headers.accept)) {
    return fail(reply, 406, 'NOT_ACCEPTABLE', 'Use application/json')
  }
  if (answer === 'patch') {
    const type = request.headers['content-type'] ?? ''
    if (
      !type.startsWith('application/merge-patch+json') &&
      !type.startsWith('application/json-patch+json')
    ) {
      reply.header('accept-patch', ACCEPT_PATCH)
      return fail(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Use application/merge-patch+json')
    }
    // The precondition before the body is read: a failed one reads nothing.
    const item = ITEM_BY_ID.get(request.params.id)
    const ifMatch = request.headers['if-match']
    if (
      item !== undefined &&
      ifMatch !== undefined &&
      !etagListHas(ifMatch, itemEtag(item), false)
    ) {
      return fail(reply, 412, 'PRECONDITION_FAILED', 'The if-match precondition failed')
    }
  }
  done()
}

/** `preSerialization` of the item route: its version is the ETag; a 304 needs no bytes. */
function versioned(request, reply, payload, done) {
  if (reply.statusCode !== 200) return done(null, payload)
  const etag = itemEtag(payload)
  reply.header('etag', etag)
  if (etagListHas(request.headers['if-none-match'], etag, true)) {
    reply.code(304).serializer(skipSerialization)
  }
  done(null, payload)
}

/**
 * `preSerialization` of the page route: the items' ids and versions (with the URL and total,
 * which the bytes also depend on) make the ETag, gzip's own; then a 304, or the page
 * compressed already.
 */
function versionedPage(request, reply, payload, done) {
  if (reply.statusCode !== 200) return done(null, payload)
  const hash = createHash('sha1').update(request.url).update(String(payload.meta.total))
  for (const item of payload.data) hash.update(`\n${item.id}:${item.version}`)
  const digest = hash.digest('base64url')
  const acceptEncoding = request.headers['accept-encoding']
  const gzip = wantsGzip(acceptEncoding)
  const etag = gzip ? `"${digest}-gzip"` : `"${digest}"`
  reply.header('etag', etag)
  if (etagListHas(request.headers['if-none-match'], etag, true)) {
    reply.code(304).serializer(skipSerialization)
  } else if (gzip) {
    const key = `${acceptEncoding}\n${digest}`
    const hit = compressedPages.get(key)
    reply[EARLY] = { key, hit }
    if (hit !== undefined) reply.serializer(skipSerialization)
  }
  done(null, payload)
}

/** A 304 keeps the validators, Vary, Cache-Control and the root headers: no content headers. */
function notModified(reply) {
  reply.removeHeader('content-type')
  return null
}

/** The root `onSend` hook: the headers of each kind of answer, and what needs the bytes. */
function onSend(request, reply, payload, done) {
  const answer = request.routeOptions.config.answer
  const status = reply.statusCode
  const claim = reply[CLAIM]
  if (claim !== null) {
    const stored = [['content-type', reply.getHeader('content-type')]]
    const location = reply.getHeader('location')
    if (location !== undefined) stored.push(['location', location])
    settleKey(claim, status, stored, payload)
  }
  // Errors carry their headers already; answers of no route are errors.
  if (answer === undefined || (status >= 400 && status !== 304)) return done(null, payload)
  if (answer === 'write' || answer === 'patch' || answer === 'create') {
    reply.header('vary', 'Accept').header('cache-control', 'no-store')
    return done(null, payload)
  }
  if (answer === 'batch') {
    reply.header('cache-control', 'no-store')
    return done(null, payload)
  }
  reply.header('vary', READ_VARY).header('cache-control', 'no-cache')
  if (status === 304) return done(null, notModified(reply))
  if (answer === 'hashed' || answer === 'query') {
    const etag = hashEtag(payload)
    reply.header('etag', etag)
    if (etagListHas(request.headers['if-none-match'], etag, true)) {
      reply.code(304)
      return done(null, notModified(reply))
    }
  }
  // A QUERY's answer has no ranges (RFC 9110 §14.2: GET only).
  if (answer === 'query') return done(null, payload)
  const early = reply[EARLY]
  if (early !== null) {
    const body = early.hit ?? gzipSync(payload)
    if (early.hit === undefined) {
      if (compressedPages.size >= COMPRESSED_PAGES) {
        compressedPages.delete(compressedPages.keys().next().value)
      }
      compressedPages.set(early.key, body)
    }
    reply.header('content-encoding', 'gzip')
    return done(null, body)
  }
  reply.header('accept-ranges', 'bytes')
  const range = request.headers.range
  if (range !== undefined) return done(null, ranged(reply, payload, range))
  return done(null, payload)
}

/** A `bytes=` range of the identity body: 206, or 416 when it cannot be satisfied. */
function ranged(reply, payload, range) {
  const bytes = Buffer.from(payload)
  const match = /^bytes=(\d*)-(\d*)$/.exec(range)
  const total = bytes.length
  const start = match?.[1] ? Number(match[1]) : total - Number(match?.[2] ?? 0)
  const end = match?.[1] && match[2] ? Math.min(Number(match[2]), total - 1) : total - 1
  if (match && start <= end && start < total) {
    reply.code(206).header('content-range', `bytes ${start}-${end}/${total}`)
    return bytes.subarray(start, end + 1)
  }
  reply
    .code(416)
    .header('content-range', `bytes */${total}`)
    .header('vary', 'Accept')
    .header('cache-control', 'no-store')
    .removeHeader('accept-ranges')
  return JSON.stringify(
    errorBody('RANGE_NOT_SATISFIABLE', 'The range is not satisfiable', reply.request.id),
  )
}

/** One operation of a batch, answered as the item route answers it alone, without a request. */
function batchOperation(request, operation) {
  const headers = operation.headers ?? {}
  const rate = countRequest(request.ip)
  const own = {
    'x-request-id': requestId(headers),
    'x-ratelimit-limit': RATE_LIMIT,
    'x-ratelimit-remaining': rate.remaining,
    'x-ratelimit-reset': rate.reset,
  }
  const error = (status, code, message) => ({
    id: operation.id,
    status,
    headers: { ...own, 'content-type': JSON_TYPE, 'cache-control': 'no-store', vary: 'Accept' },
    body: errorBody(code, message, own['x-request-id']),
  })
  if (!acceptable(headers.accept)) return error(406, 'NOT_ACCEPTABLE', 'Use application/json')
  const match = /^\/items\/(\d+)$/.exec(operation.url ?? '')
  if (operation.method !== 'GET' || match === null) return error(404, 'NOT_FOUND', 'Not found')
  const item = ITEM_BY_ID.get(match[1])
  if (item === undefined) return error(404, 'NOT_FOUND', 'No such item')
  const etag = itemEtag(item)
  const cached = { etag, vary: READ_VARY, 'cache-control': 'no-cache' }
  if (etagListHas(headers['if-none-match'], etag, true)) {
    return { id: operation.id, status: 304, headers: { ...own, ...cached } }
  }
  return {
    id: operation.id,
    status: 200,
    headers: { ...own, 'content-type': JSON_TYPE, ...cached, 'accept-ranges': 'bytes' },
    body: item,
  }
}

export async function build() {
  const app = Fastify({ genReqId: (req) => requestId(req.headers) })
  app.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  )
  const stopWatching = watchLoad()
  app.addHook('onClose', async () => stopWatching())
  app.decorateReply(EARLY, null)
  app.decorateReply(CLAIM, null)
  app.addHook('onRequest', onRequest)
  app.addHook('onSend', onSend)
  const getItem = (request, reply) =>
    ITEM_BY_ID.get(request.params.id) ?? fail(reply, 404, 'NOT_FOUND', 'No such item')
  const put = async (request, reply) => {
    const item = ITEM_BY_ID.get(request.params.id)
    return item ? { ...request.body, id: item.id } : fail(reply, 404, 'NOT_FOUND', 'No such item')
  }

  app.get(
    '/items/:id',
    {
      config: { answer: 'versioned' },
      preSerialization: versioned,
      schema: { response: { 200: ITEM_SCHEMA } },
    },
    async (request, reply) => getItem(request, reply),
  )
  app.get(
    `${HASHED_ITEMS}/:id`,
    { config: { answer: 'hashed' }, schema: { response: { 200: ITEM_SCHEMA } } },
    async (request, reply) => getItem(request, reply),
  )
  app.get(
    '/items',
    {
      config: { answer: 'page' },
      preSerialization: versionedPage,
      schema: { response: { 200: PAGE_SCHEMA } },
    },
    async (request, reply) => {
      const { page, limit } = readPageQuery(request.query)
      reply
        .header('link', pageLinks(page, limit, ITEMS.length))
        .header('x-total-count', String(ITEMS.length))
      // restwell's page: its links name the first and last pages too
      const body = pageBody(page, limit)
      const at = (p) => `/items?page=${p}&limit=${limit}`
      const links = { self: body.links.self, first: at(1) }
      if (page > 1) links.prev = at(page - 1)
      if (body.links.next !== undefined) links.next = body.links.next
      links.last = at(body.meta.totalPages)
      body.links = links
      return body
    },
  )
  app.route({
    method: 'QUERY',
    url: '/items',
    config: { answer: 'query' },
    schema: { body: QUERY_SCHEMA, response: { 200: QUERY_RESULT_SCHEMA } },
    handler: async (request) => queryResult(request.body),
  })
  app.patch(
    '/items/:id',
    { config: { answer: 'patch' }, schema: { response: { 200: ITEM_SCHEMA } } },
    async (request, reply) => {
      const item = ITEM_BY_ID.get(request.params.id)
      return item ? mergePatch(item, request.body) : fail(reply, 404, 'NOT_FOUND', 'No such item')
    },
  )
  app.put(
    '/items/:id',
    { config: { answer: 'write' }, schema: { response: { 200: ITEM_SCHEMA } } },
    put,
  )
  // Method override's twin: a POST that says PUT is the PUT; any other POST is not allowed.
  app.post(
    '/items/:id',
    { config: { answer: 'write' }, schema: { response: { 200: ITEM_SCHEMA } } },
    async (request, reply) => {
      const override = request.headers['x-http-method-override']
      if (typeof override === 'string' && override.toUpperCase() === 'PUT') {
        return put(request, reply)
      }
      return notAllowed(request, reply, ITEM_ALLOW)
    },
  )
  // Creates the item (the store is not written); a key's answer is replayed as stored.
  app.post(
    '/items',
    { config: { answer: 'create' }, schema: { response: { 201: ITEM_SCHEMA } } },
    async (request, reply) => {
      const value = request.headers[KEY_HEADER]
      if (value !== undefined) {
        const fingerprint = fingerprintOf('POST', request.url, JSON.stringify(request.body))
        const held = lookUpKey(value, request.ip, 'POST', '/items', fingerprint)
        if (held.error !== undefined) return fail(reply, ...held.error)
        if (held.replay !== undefined) {
          const { status, headers, body } = held.replay
          reply.code(status)
          for (const [name, v] of headers) reply.header(name, v)
          return reply.header(REPLAYED, 'true').send(body)
        }
        reply[CLAIM] = held.claim
      }
      reply.code(201).header('location', CREATED_LOCATION)
      return { ...CREATED_ITEM, ...request.body }
    },
  )
  app.post('/batch', { config: { answer: 'batch' } }, async (request, reply) => {
    const operations = request.body?.requests
    if (!Array.isArray(operations)) {
      return fail(reply, 400, 'BAD_REQUEST', 'The body needs a requests array')
    }
    reply.code(207)
    return { responses: operations.map((operation) => batchOperation(request, operation)) }
  })
  // 405 + Allow for a path that exists with other methods; 404 for the rest.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]
    if (/^\/items\/\d+$/.test(path)) return notAllowed(request, reply, ITEM_ALLOW)
    if (path === '/items') return notAllowed(request, reply, COLLECTION_ALLOW)
    if (path.startsWith(`${HASHED_ITEMS}/`)) return notAllowed(request, reply, READ_ONLY_ALLOW)
    return fail(reply, 404, 'NOT_FOUND', 'Not found')
  })

  return {
    listen: async () => {
      await app.listen({ port: 0, host: '127.0.0.1' })
      return app.server.address().port
    },
    close: () => app.close(),
    // Every workload to spec, the batch too (the other stacks but restwell have none).
    expect: { batch20: { status: 207 } },
  }
}
