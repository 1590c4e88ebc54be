// Shared by every server and by the load generator: the resources, the workloads and the
// little helpers each hand-written stack needs (merge patch, a body hash). Every server
// answers the same requests with the same representations, so the figures compare stacks,
// not payloads.
import { createHash } from 'node:crypto'

const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut ' +
  'labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco ' +
  'laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in ' +
  'voluptate velit esse cillum dolore eu fugiat nulla pariatur. Excepteur sint occaecat ' +
  'cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est laborum. Sed ' +
  'ut perspiciatis unde omnis iste natus error sit voluptatem accusantium doloremque laudantium.'

/** Sized so that one item serializes to 1,000 bytes (and a 20-item page to ~20 KB). */
const DESCRIPTION_LENGTH = 763

/** One ~1 KB resource. `version` is the validator a handler already knows (its ETag). */
export function makeItem(id) {
  return {
    id,
    version: 7,
    title: `Item number ${id}`,
    author: 'A. N. Author',
    status: 'active',
    tags: ['alpha', 'beta', 'gamma'],
    price: 12.5,
    stock: 42,
    description: `${LOREM} ${LOREM}`.slice(0, DESCRIPTION_LENGTH),
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-02-01T00:00:00.000Z',
  }
}

export const ITEMS = Array.from({ length: 100 }, (_, i) => makeItem(i + 1))
export const ITEM_BY_ID = new Map(ITEMS.map((item) => [String(item.id), item]))
export const PAGE_LIMIT = 20

/** The strong ETag of an item, from its version (no hashing). */
export const itemEtag = (item) => `"${item.version}"`

/**
 * The path of the same items served the way one line of restwell serves a route: no
 * `etagField`, no `getValidator`, so the ETag is hashed from the bytes sent (and every stack
 * that has ETags hashes them too). Plural and hyphenated, as `@restwell/naming` wants.
 */
export const HASHED_ITEMS = '/hashed-items'

/** The page body every stack sends by hand (and `@restwell/pagination` sends itself). */
export function pageBody(page, limit) {
  const start = (page - 1) * limit
  const data = ITEMS.slice(start, start + limit)
  const last = Math.ceil(ITEMS.length / limit)
  return {
    data,
    meta: { page, limit, total: ITEMS.length, totalPages: last },
    links: {
      self: `/items?page=${page}&limit=${limit}`,
      ...(page < last ? { next: `/items?page=${page + 1}&limit=${limit}` } : {}),
    },
  }
}

/** `Link` header for the hand-built page. */
export function pageLink(body) {
  const parts = [`<${body.links.self}>; rel="self"`]
  if (body.links.next) parts.push(`<${body.links.next}>; rel="next"`)
  return parts.join(', ')
}

/** Reads `?page=&limit=` leniently (the bench always sends valid numbers). */
export function readPageQuery(query) {
  const page = Math.max(1, Number.parseInt(query.page ?? '1', 10) || 1)
  const limit = Math.min(100, Math.max(1, Number.parseInt(query.limit ?? '20', 10) || 20))
  return { page, limit }
}

/** RFC 7396 merge patch, never mutating its inputs (for the stacks without a patch plugin). */
export function mergePatch(target, patch) {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch
  const base = target !== null && typeof target === 'object' && !Array.isArray(target) ? target : {}
  const out = { ...base }
  for (const [key, value] of Object.entries(patch)) {
    if (key === '__proto__') continue
    if (value === null) delete out[key]
    else out[key] = mergePatch(out[key], value)
  }
  return out
}

/** A strong ETag from the bytes (sha1, base64): what a hand-written stack would do. */
export const hashEtag = (bytes) => `"${createHash('sha1').update(bytes).digest('base64url')}"`

/** True when an If-Match / If-None-Match list holds `etag` (weak comparison for If-None-Match). */
export function etagListHas(header, etag, weak) {
  if (header === undefined) return false
  const bare = (t) => (weak && t.startsWith('W/') ? t.slice(2) : t)
  const target = bare(etag)
  for (const raw of header.split(',')) {
    const tag = raw.trim()
    if (tag === '*' || bare(tag) === target) return true
  }
  return false
}

/** The merge patch the PATCH workload sends: it sets fields to the values they already hold. */
export const PATCH_BODY = JSON.stringify({
  status: 'active',
  stock: 42,
  tags: ['alpha', 'beta', 'gamma'],
})

/** The full representation the override workload PUTs. */
export const PUT_BODY = JSON.stringify(makeItem(1))

/** Operations in the batch workload: 20 GETs of distinct items (identical ones would be 208). */
export const BATCH_OPERATIONS = 20
export const BATCH_BODY = JSON.stringify({
  requests: Array.from({ length: BATCH_OPERATIONS }, (_, i) => ({
    id: String(i + 1),
    method: 'GET',
    url: `/items/${i + 1}`,
    headers: { accept: 'application/json' },
  })),
})

/** The item `POST /items` creates, as every stack answers it (the store is not written). */
export const CREATED_ITEM = makeItem(ITEMS.length + 1)
export const CREATED_LOCATION = `/items/${CREATED_ITEM.id}`

/** What a client sends to create it: its fields, without what the server assigns (~900 bytes). */
export const POST_BODY = JSON.stringify(
  (({ id, version, createdAt, updatedAt, ...fields }) => fields)(CREATED_ITEM),
)

/** The key of the replay workload: an RFC 9651 String, as the draft's example. */
export const IDEMPOTENCY_KEY = '"8e03978e-40d5-43e8-bc93-6894a57f9324"'

/** The query the QUERY workloads send (RFC 10008): the items with one id, a 20-byte JSON body. */
export const QUERY_BODY = JSON.stringify({ where: { id: 1 } })

/** The answer to a query: the items it names (`where.id`), in `data`. */
export function queryResult(query) {
  const item = ITEM_BY_ID.get(String(query?.where?.id))
  return { data: item === undefined ? [] : [item] }
}

/**
 * The workloads. `spec` is what a server following the conventions answers. A stack without
 * the feature declares its own answer (see each server's `expect`), and the output says so.
 * `setup` names a value the parent reads with one request first (an ETag); `prime` sends the
 * workload's own request once before the probe, so the probe and every measured request repeat it.
 */
export const WORKLOADS = [
  {
    id: 'get1k',
    title: 'GET 1 KB JSON',
    method: 'GET',
    path: '/items/1',
    headers: { accept: 'application/json' },
    spec: 200,
  },
  {
    id: 'get1k-hashed',
    title: 'GET 1 KB JSON, ETag hashed from the bytes',
    method: 'GET',
    path: `${HASHED_ITEMS}/1`,
    headers: { accept: 'application/json' },
    spec: 200,
  },
  {
    id: 'get1k-hashed-304',
    title: 'same GET + If-None-Match',
    method: 'GET',
    path: `${HASHED_ITEMS}/1`,
    headers: { accept: 'application/json' },
    setup: { etagFrom: 'get1k-hashed', header: 'if-none-match' },
    spec: 304,
  },
  {
    // A GET with a body: its ETag hashed from the bytes, as get1k-hashed's.
    id: 'query',
    title: 'QUERY /items, 20-byte JSON body, 1 KB answer',
    method: 'QUERY',
    path: '/items',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: QUERY_BODY,
    spec: 200,
  },
  {
    id: 'query-304',
    title: 'same QUERY + If-None-Match',
    method: 'QUERY',
    path: '/items',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: QUERY_BODY,
    setup: { etagFrom: 'query', header: 'if-none-match' },
    spec: 304,
  },
  {
    id: 'page-gzip',
    title: 'GET 20-item page, gzip',
    method: 'GET',
    path: '/items?page=1&limit=20',
    headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
    spec: 200,
  },
  {
    id: 'page-304',
    title: 'same GET + If-None-Match',
    method: 'GET',
    path: '/items?page=1&limit=20',
    headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
    setup: { etagFrom: 'page-gzip', header: 'if-none-match' },
    spec: 304,
  },
  {
    id: 'patch',
    title: 'PATCH merge-patch + If-Match',
    method: 'PATCH',
    path: '/items/1',
    headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json' },
    body: PATCH_BODY,
    setup: { etagFrom: 'get1k', header: 'if-match' },
    spec: 200,
  },
  {
    id: '405',
    title: 'DELETE on a GET/PATCH/PUT path',
    method: 'DELETE',
    path: '/items/1',
    headers: { accept: 'application/json' },
    spec: 405,
  },
  {
    id: 'override',
    title: 'POST + X-HTTP-Method-Override: PUT',
    method: 'POST',
    path: '/items/1',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-http-method-override': 'PUT',
    },
    body: PUT_BODY,
    spec: 200,
  },
  {
    // CPU is reported per operation (per request / `operations`): compare with get1k.
    id: 'batch20',
    title: 'POST /batch of 20 GETs',
    method: 'POST',
    path: '/batch',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: BATCH_BODY,
    operations: BATCH_OPERATIONS,
    spec: 207,
    // A stack without a batch endpoint, unless it declares otherwise.
    absent: { status: 404, note: 'no batch endpoint' },
  },
  {
    // The first POST (the prime) runs and its answer is stored under the key (memory store);
    // every request after it is a replay: compare with get1k.
    id: 'post-replay',
    title: 'POST + Idempotency-Key, replayed',
    method: 'POST',
    path: '/items',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'idempotency-key': IDEMPOTENCY_KEY,
    },
    body: POST_BODY,
    prime: true,
    spec: 201,
  },
]

export const WORKLOAD_IDS = WORKLOADS.map((w) => w.id)

/** JSON schemas of the responses (bare Fastify and every Fastify stack use them). */
export const ITEM_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    version: { type: 'integer' },
    title: { type: 'string' },
    author: { type: 'string' },
    status: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    price: { type: 'number' },
    stock: { type: 'integer' },
    description: { type: 'string' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
}

export const PAGE_SCHEMA = {
  type: 'object',
  properties: {
    data: { type: 'array', items: ITEM_SCHEMA },
    meta: { type: 'object', additionalProperties: true },
    links: { type: 'object', additionalProperties: true },
  },
}

/** The body schema of the QUERY route (`where.id`, an integer). */
export const QUERY_SCHEMA = {
  type: 'object',
  required: ['where'],
  properties: {
    where: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
  },
}

/** What a query answers: `{ data: [item] }`. */
export const QUERY_RESULT_SCHEMA = {
  type: 'object',
  properties: { data: { type: 'array', items: ITEM_SCHEMA } },
}
