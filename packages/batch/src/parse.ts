/** The batch body parser: shape, ids, URLs, headers and the `dependsOn` graph, all checked before anything runs. */
import { READ_METHODS, STANDARD_METHODS } from '@restwell/core/internal'
import { ErrorCode, type HttpError, httpErrors } from '@restwell/errors'

/** One operation of a batch, checked and normalized. */
export interface Operation {
  /** The client's id, unique in the batch. */
  id: string
  /** Upper case, one of {@link METHODS}. */
  method: string
  /** Origin-form: a path and an optional query. */
  url: string
  /** Lower-case names. */
  headers: Record<string, string>
  /** The JSON value given, absent when none. */
  body?: unknown
  /** Indexes (in the batch) of the operations this one waits for. */
  dependsOn: number[]
}

/** A checked batch. */
export interface Batch {
  operations: Operation[]
  atomic: boolean
}

/** What the parser needs to know. */
export interface ParseLimits {
  maxOperations: number
  /** The batch route's own path (lower case, no trailing slash): an operation may not target it. */
  batchPath: string
  /** Lower-case header names an operation may not set. */
  forbiddenHeaders: ReadonlySet<string>
  /** Query parameters an operation may not use (method override). */
  forbiddenQuery: ReadonlySet<string>
}

/** The methods an operation may use. */
export const METHODS: ReadonlySet<string> = new Set(STANDARD_METHODS)
/** Longest operation id and URL. */
export const MAX_ID_LENGTH = 100
export const MAX_URL_LENGTH = 2048

const TOP_KEYS = new Set(['requests', 'atomic'])
const OPERATION_KEYS = new Set(['id', 'method', 'url', 'headers', 'body', 'dependsOn'])
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** A header value Node sends: visible ASCII, Latin-1, spaces and tabs (no CR, LF, NUL). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/
/** Origin-form (RFC 9112 3.2.1): one leading slash, no scheme, no authority, no fragment, no space. */
const ORIGIN_FORM = /^\/(?!\/)[^\s#\\]*$/

/** The 400 of a malformed batch, naming the field. */
export function invalid(field: string, message: string): HttpError {
  return httpErrors.badRequest(`Invalid batch: ${field} ${message}`, {
    code: ErrorCode.VALIDATION_ERROR,
    details: [{ field, message }],
  })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function unknownKey(
  value: Record<string, unknown>,
  allowed: ReadonlySet<string>,
): string | undefined {
  return Object.keys(value).find((key) => !allowed.has(key))
}

/** The path of an origin-form URL, decoded, lower case, without trailing slashes. */
export function comparablePath(url: string): string {
  const path = url.split('?', 1)[0] as string
  let decoded: string
  try {
    decoded = decodeURIComponent(path)
  } catch {
    decoded = path
  }
  return decoded.toLowerCase().replace(/\/+$/, '')
}

function checkUrl(url: unknown, field: string, limits: ParseLimits): string {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) {
    throw invalid(field, `must be a string of 1 to ${MAX_URL_LENGTH} characters`)
  }
  if (!ORIGIN_FORM.test(url)) {
    throw invalid(
      field,
      'must be a path on this API (`/books?limit=5`): no scheme, host or fragment',
    )
  }
  const path = comparablePath(url)
  if (path === limits.batchPath) throw invalid(field, 'may not be a batch: batches do not nest')
  const query = url.indexOf('?')
  if (query !== -1) {
    for (const name of new URLSearchParams(url.slice(query + 1)).keys()) {
      if (limits.forbiddenQuery.has(name)) {
        throw invalid(field, `may not override the method (\`${name}\`): set \`method\``)
      }
    }
  }
  return url
}

function checkHeaders(given: unknown, field: string, limits: ParseLimits): Record<string, string> {
  if (given === undefined) return {}
  if (!isObject(given)) throw invalid(field, 'must be an object of header names to string values')
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase()
    if (!TOKEN.test(name)) throw invalid(`${field}.${name}`, 'is not a header name')
    if (typeof value !== 'string' || !FIELD_VALUE.test(value)) {
      throw invalid(`${field}.${name}`, 'must be a string without line breaks')
    }
    if (lower in headers) throw invalid(`${field}.${name}`, 'is given twice')
    if (limits.forbiddenHeaders.has(lower)) {
      throw invalid(`${field}.${name}`, 'may not be set by an operation')
    }
    headers[lower] = value
  }
  return headers
}

/**
 * Indexes in an order where each operation follows its dependencies (Kahn's algorithm, request
 * order among the ready ones); those in or behind a cycle are left out.
 */
export function dependencyOrder(dependsOn: readonly (readonly number[])[]): number[] {
  const waiting = dependsOn.map((deps) => deps.length)
  const dependents: number[][] = dependsOn.map(() => [])
  dependsOn.forEach((deps, index) => {
    for (const dep of deps) dependents[dep]?.push(index)
  })
  const order: number[] = []
  for (const [index, count] of waiting.entries()) if (count === 0) order.push(index)
  for (let next = 0; next < order.length; next++) {
    for (const dependent of dependents[order[next] as number] as number[]) {
      waiting[dependent] = (waiting[dependent] as number) - 1
      if (waiting[dependent] === 0) order.push(dependent)
    }
  }
  return order
}

/** Checks a batch body; throws a 400 `HttpError` naming the first problem, before anything runs. */
export function parseBatch(body: unknown, limits: ParseLimits): Batch {
  if (!isObject(body)) throw invalid('body', 'must be a JSON object with a `requests` array')
  const extra = unknownKey(body, TOP_KEYS)
  if (extra !== undefined) throw invalid(extra, 'is not a batch field (`requests`, `atomic`)')
  const { requests, atomic } = body
  if (atomic !== undefined && typeof atomic !== 'boolean')
    throw invalid('atomic', 'must be a boolean')
  if (!Array.isArray(requests)) throw invalid('requests', 'must be an array of operations')
  if (requests.length === 0) throw invalid('requests', 'must hold at least one operation')
  if (requests.length > limits.maxOperations) {
    throw invalid(
      'requests',
      `holds ${requests.length} operations; at most ${limits.maxOperations}`,
    )
  }
  const index = new Map<string, number>()
  const dependencies: unknown[] = []
  const operations: Operation[] = requests.map((request: unknown, i) => {
    const field = `requests[${i}]`
    if (!isObject(request)) throw invalid(field, 'must be an object')
    const key = unknownKey(request, OPERATION_KEYS)
    if (key !== undefined) throw invalid(`${field}.${key}`, 'is not an operation field')
    const { id, method, body: payload } = request
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
      throw invalid(`${field}.id`, `must be a string of 1 to ${MAX_ID_LENGTH} characters`)
    }
    if (index.has(id)) throw invalid(`${field}.id`, `"${id}" is the id of another operation`)
    index.set(id, i)
    if (typeof method !== 'string' || !METHODS.has(method)) {
      throw invalid(`${field}.method`, `must be one of ${[...METHODS].join(', ')}`)
    }
    const url = checkUrl(request.url, `${field}.url`, limits)
    const headers = checkHeaders(request.headers, `${field}.headers`, limits)
    if (payload !== undefined && READ_METHODS.has(method)) {
      throw invalid(`${field}.body`, `may not be sent with ${method}`)
    }
    dependencies.push(request.dependsOn)
    const operation: Operation = { id, method, url, headers, dependsOn: [] }
    if (payload !== undefined) operation.body = payload
    return operation
  })
  // Dependencies may name any operation of the batch, later ones too: ids are known now.
  for (const [i, operation] of operations.entries()) {
    const given = dependencies[i]
    if (given === undefined) continue
    const field = `requests[${i}].dependsOn`
    if (!Array.isArray(given)) throw invalid(field, 'must be an array of operation ids')
    const seen = new Set<number>()
    for (const id of given) {
      const target = typeof id === 'string' ? index.get(id) : undefined
      if (target === undefined)
        throw invalid(field, `names no operation of this batch (${JSON.stringify(id)})`)
      if (target === i) throw invalid(field, 'may not name the operation itself')
      if (seen.has(target)) throw invalid(field, `names "${id}" twice`)
      seen.add(target)
    }
    operation.dependsOn = [...seen]
  }
  const order = dependencyOrder(operations.map((operation) => operation.dependsOn))
  if (order.length < operations.length) {
    const ordered = new Set(order)
    const stuck = operations.filter((_, i) => !ordered.has(i)).map((operation) => operation.id)
    const shown = stuck.slice(0, 10).join(', ') + (stuck.length > 10 ? ', ...' : '')
    throw invalid('requests', `has a cycle of \`dependsOn\` (among ${shown})`)
  }
  return { operations, atomic: atomic === true }
}
