// Raw node:http, the ceiling: every convention the workloads need, written by hand with no
// framework (ETag + 304, gzip, merge patch + If-Match, 405 + Allow, method override). The
// hashed items' ETag is a sha1 of the bytes, computed on every GET as restwell's default does.
import { createServer } from 'node:http'
import { gzipSync } from 'node:zlib'
import {
  etagListHas,
  HASHED_ITEMS,
  hashEtag,
  ITEM_BY_ID,
  itemEtag,
  mergePatch,
  pageBody,
  pageLink,
  readPageQuery,
} from '../data.mjs'

const ITEM_ALLOW = 'GET, HEAD, PATCH, PUT'
const COLLECTION_ALLOW = 'GET, HEAD'
const HASHED_ALLOW = 'GET, HEAD'
const HASHED_PREFIX = `${HASHED_ITEMS}/`

function send(res, status, body, headers = {}) {
  sendBytes(
    res,
    status,
    body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    headers,
  )
}

function sendBytes(res, status, bytes, headers = {}) {
  res.writeHead(status, {
    ...(bytes ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    'content-length': bytes ? bytes.length : 0,
    ...headers,
  })
  res.end(bytes)
}

const error = (res, status, code, message, headers) =>
  send(res, status, { error: { code, message } }, headers)

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function getPage(req, res, query) {
  const { page, limit } = readPageQuery(Object.fromEntries(query))
  const body = pageBody(page, limit)
  const bytes = Buffer.from(JSON.stringify(body))
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
  // The gzip variant gets its own tag (RFC 9110 8.8.3); both are computed from one hash.
  const hash = hashEtag(bytes)
  const etag = gzip ? `${hash.slice(0, -1)}-gzip"` : hash
  const common = { etag, vary: 'accept-encoding', link: pageLink(body) }
  if (etagListHas(req.headers['if-none-match'], etag, true)) {
    res.writeHead(304, common)
    return res.end()
  }
  const out = gzip ? gzipSync(bytes) : bytes
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': out.length,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    ...common,
  })
  res.end(req.method === 'HEAD' ? undefined : out)
}

async function item(req, res, id, method) {
  const current = ITEM_BY_ID.get(id)
  if (!current) return error(res, 404, 'NOT_FOUND', 'No such item')
  const etag = itemEtag(current)
  if (method === 'GET' || method === 'HEAD') {
    if (etagListHas(req.headers['if-none-match'], etag, true)) {
      res.writeHead(304, { etag })
      return res.end()
    }
    return send(res, 200, current, { etag })
  }
  if (method === 'PATCH') {
    const type = req.headers['content-type'] ?? ''
    if (!type.startsWith('application/merge-patch+json')) {
      return error(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Use application/merge-patch+json', {
        'accept-patch': 'application/merge-patch+json',
      })
    }
    const ifMatch = req.headers['if-match']
    if (ifMatch !== undefined && !etagListHas(ifMatch, etag, false)) {
      return error(res, 412, 'PRECONDITION_FAILED', 'If-Match does not match')
    }
    const next = mergePatch(current, JSON.parse(await readBody(req)))
    return send(res, 200, next, { etag })
  }
  if (method === 'PUT') {
    const next = { ...JSON.parse(await readBody(req)), id: current.id }
    return send(res, 200, next)
  }
  return error(res, 405, 'METHOD_NOT_ALLOWED', `Method ${method} is not allowed`, {
    allow: ITEM_ALLOW,
  })
}

/** An item whose ETag is hashed from the bytes on every GET: no version is used. */
function hashedItem(req, res, id, method) {
  const current = ITEM_BY_ID.get(id)
  if (!current) return error(res, 404, 'NOT_FOUND', 'No such item')
  if (method !== 'GET' && method !== 'HEAD') {
    return error(res, 405, 'METHOD_NOT_ALLOWED', `Method ${method} is not allowed`, {
      allow: HASHED_ALLOW,
    })
  }
  const bytes = Buffer.from(JSON.stringify(current))
  const etag = hashEtag(bytes)
  if (etagListHas(req.headers['if-none-match'], etag, true)) {
    res.writeHead(304, { etag })
    return res.end()
  }
  return sendBytes(res, 200, bytes, { etag })
}

async function handle(req, res) {
  const url = req.url
  const q = url.indexOf('?')
  const pathname = q === -1 ? url : url.slice(0, q)
  let method = req.method
  const override = req.headers['x-http-method-override']
  if (method === 'POST' && typeof override === 'string') {
    const target = override.toUpperCase()
    if (target === 'PUT' || target === 'PATCH' || target === 'DELETE') method = target
  }
  if (pathname === '/items') {
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1))
    if (method === 'GET' || method === 'HEAD') return getPage(req, res, query)
    return error(res, 405, 'METHOD_NOT_ALLOWED', `Method ${method} is not allowed`, {
      allow: COLLECTION_ALLOW,
    })
  }
  if (pathname.startsWith('/items/')) {
    const id = pathname.slice(7)
    if (/^[0-9]+$/.test(id)) return item(req, res, id, method)
  }
  if (pathname.startsWith(HASHED_PREFIX)) {
    const id = pathname.slice(HASHED_PREFIX.length)
    if (/^[0-9]+$/.test(id)) return hashedItem(req, res, id, method)
  }
  return error(res, 404, 'NOT_FOUND', 'Not found')
}

export async function build() {
  const server = createServer((req, res) => {
    handle(req, res).catch((err) => error(res, 500, 'INTERNAL', String(err.message)))
  })
  return {
    server,
    listen: () =>
      new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port))),
    close: () => new Promise((resolve) => server.close(() => resolve())),
    expect: {},
  }
}
